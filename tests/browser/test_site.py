#!/usr/bin/env python3
"""The published site in a real browser: `wmbench publish` over the committed results/ into a
fresh folder, then every page opened in headless Chromium (Debian's `chromium`), driven through the
DevTools protocol on a pipe (--remote-debugging-pipe; Python's standard library only, nothing from
the internet). A page fails on any console error, uncaught exception, failed load (an image or
style that does not resolve) or image that did not decode; beside the browser, a link checker
reads every page's href/src and checks that each relative target is a file of the site (and each
#fragment an id of its page). The index is checked to list every committed folder, and its
screenshot (light and dark) is kept as an artifact: the paths are printed.

    test_site.py --wmbench build/wmbench --results results --work build/browser-site

Exit 0 pass, 1 fail, 77 skipped (no chromium: the reason is printed; ctest counts it as skipped).
"""

import argparse
import base64
import fcntl
import html.parser
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

SKIP = 77


def find_chromium():
    env = os.environ.get("WMBENCH_CHROMIUM")
    if env:
        return env if os.access(env, os.X_OK) else None
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        p = shutil.which(name)
        if p:
            return p
    return None


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.refs, self.ids, self.scripts = [], set(), 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "script":
            self.scripts += 1
        if tag == "link" and a.get("rel") == "canonical":
            return  # the hosted copy's address (--base-url), not a file of this site
        for key in ("href", "src"):
            if key in a and a[key] is not None:
                self.refs.append((tag, key, a[key]))


def check_links(site):
    """Every relative href/src of every page resolves to a file inside the site."""
    problems, pages, parsed = [], [], {}
    for dirpath, _, files in os.walk(site):
        for f in files:
            if f.endswith(".html"):
                pages.append(os.path.join(dirpath, f))
    for page in pages:
        p = Links()
        with open(page, encoding="utf-8") as fh:
            p.feed(fh.read())
        parsed[os.path.realpath(page)] = p
    site_real = os.path.realpath(site)
    checked = 0
    for page in sorted(pages):
        p = parsed[os.path.realpath(page)]
        rel_page = os.path.relpath(page, site)
        if p.scripts:
            problems.append("%s: %d <script> element(s)" % (rel_page, p.scripts))
        for tag, key, ref in p.refs:
            u = urllib.parse.urlsplit(ref)
            if u.scheme or u.netloc:
                problems.append("%s: <%s %s=%r> leaves the site (no server, no internet)" % (rel_page, tag, key, ref))
                continue
            target = page if not u.path else os.path.normpath(
                os.path.join(os.path.dirname(page), urllib.parse.unquote(u.path)))
            checked += 1
            if not os.path.realpath(target).startswith(site_real + os.sep):
                problems.append("%s: %r points outside the site" % (rel_page, ref))
            elif not os.path.isfile(target):
                problems.append("%s: %r does not resolve (%s is missing)" % (rel_page, ref, target))
            elif u.fragment and target.endswith(".html"):
                if u.fragment not in parsed[os.path.realpath(target)].ids:
                    problems.append("%s: %r: no id %r in the page" % (rel_page, ref, u.fragment))
    return pages, checked, problems


class Browser:
    """Headless Chromium on --remote-debugging-pipe: fd 3 carries commands to it, fd 4 its answers,
    each message JSON ended by a NUL byte."""

    def __init__(self, exe, profile):
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()

        def fds():
            # Out of the way first (either may be 3 or 4 already), then onto 3 and 4.
            a = fcntl.fcntl(to_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", "--no-first-run",
             "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
             "--disable-sync", "--hide-scrollbars", "--user-data-dir=" + profile, "about:blank"],
            pass_fds=(3, 4), preexec_fn=fds, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_r)
        os.close(from_w)
        self.buf, self.next_id, self.events = b"", 0, []

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from chromium")
            r, _, _ = select.select([self.from_r], [], [], left)
            if r:
                chunk = os.read(self.from_r, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed its pipe (it exited %s)" % self.proc.poll())
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        m = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            m["sessionId"] = session
        os.write(self.to_w, json.dumps(m).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            r = self._read(deadline)
            if r.get("id") == self.next_id:
                if "error" in r:
                    raise RuntimeError("%s: %s" % (method, r["error"]))
                return r.get("result", {})
            self.events.append(r)

    def wait_event(self, method, session, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e.get("method") == method and e.get("sessionId") == session:
                    return self.events.pop(i)
            self.events.append(self._read(deadline))

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def page_problems(events, session):
    out = []
    for e in events:
        if e.get("sessionId") != session:
            continue
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append("console.%s: %s" % (p["type"], " ".join(str(a.get("value", a.get("description")))
                                                              for a in p.get("args", []))))
        elif m == "Runtime.exceptionThrown":
            out.append("exception: %s" % p.get("exceptionDetails", {}).get("text"))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            out.append("console error: %s (%s)" % (p["entry"].get("text"), p["entry"].get("url", "")))
        elif m == "Network.loadingFailed":
            out.append("load failed: %s %s" % (p.get("errorText"), p.get("blockedReason", "")))
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wmbench", help="the wmbench to publish with (or --site)")
    ap.add_argument("--site", help="check this already published site instead (a quick re-check by hand)")
    ap.add_argument("--results", required=True)
    ap.add_argument("--work", required=True, help="made afresh: the site and the screenshots go here")
    args = ap.parse_args(argv)
    exe = find_chromium()
    if not exe:
        print("SKIP: no chromium found (Debian: apt-get install chromium, which scripts/setup.sh does for the tests; "
              "or set WMBENCH_CHROMIUM), so the site cannot be opened in a browser here")
        return SKIP
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    site = os.path.abspath(args.site) if args.site else os.path.join(work, "site")
    if not args.site:
        if not args.wmbench:
            ap.error("give --wmbench (or --site)")
        r = subprocess.run([args.wmbench, "publish", args.results, "--out", site], capture_output=True, text=True)
        sys.stdout.write(r.stdout)
        sys.stderr.write(r.stderr)
        if r.returncode != 0:
            print("FAIL: wmbench publish exited %d" % r.returncode)
            return 1
    failures = []
    # The index lists every committed folder, each a link to its page.
    with open(os.path.join(site, "index.html"), encoding="utf-8") as fh:
        index = fh.read()
    committed = sorted(d for d in os.listdir(args.results) if os.path.isdir(os.path.join(args.results, d)))
    for d in committed:
        if 'href="folders/%s/index.html">%s<' % (d, d) not in index:
            failures.append("index.html: folder %s is not listed" % d)
    pages, checked, link_problems = check_links(site)
    failures += link_problems
    print("link check: %d pages, %d links and images, %d problems" % (len(pages), checked, len(link_problems)))

    profile = tempfile.mkdtemp(prefix="wmbench-chromium-")
    b = Browser(exe, profile)
    try:
        target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        s = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for m in ("Page.enable", "Runtime.enable", "Log.enable", "Network.enable"):
            b.send(m, session=s)
        b.send("Emulation.setDeviceMetricsOverride",
               {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session=s)
        for page in sorted(pages):
            rel = os.path.relpath(page, site)
            b.events = [e for e in b.events if e.get("sessionId") != s]
            url = "file://" + urllib.parse.quote(page)
            nav = b.send("Page.navigate", {"url": url}, session=s)
            if nav.get("errorText"):
                failures.append("%s: navigation failed: %s" % (rel, nav["errorText"]))
                continue
            b.wait_event("Page.loadEventFired", s)
            broken = b.send("Runtime.evaluate", {
                "expression": "Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0))"
                              ".map(i => i.getAttribute('src'))", "returnByValue": True}, session=s)
            for src in broken.get("result", {}).get("value", []):
                failures.append("%s: image %s did not load" % (rel, src))
            n_img = b.send("Runtime.evaluate", {"expression": "document.images.length", "returnByValue": True},
                           session=s)["result"]["value"]
            b.send("Runtime.evaluate", {"expression": "1"}, session=s)  # let late console events arrive
            for p in page_problems(b.events, s):
                failures.append("%s: %s" % (rel, p))
            print("opened %s (%d images)" % (rel, n_img))
        # The index's screenshots, the whole page, light and dark.
        shots = []
        for scheme in ("light", "dark"):
            b.send("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]},
                   session=s)
            b.send("Page.navigate", {"url": "file://" + urllib.parse.quote(os.path.join(site, "index.html"))},
                   session=s)
            b.wait_event("Page.loadEventFired", s)
            shot = b.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session=s)
            path = os.path.join(work, "index-%s.png" % scheme)
            with open(path, "wb") as fh:
                fh.write(base64.b64decode(shot["data"]))
            shots.append(path)
        for p in shots:
            print("screenshot: %s" % p)
    finally:
        b.close()
        shutil.rmtree(profile, ignore_errors=True)
    if failures:
        for f in failures:
            print("FAIL: " + f)
        return 1
    print("PASS: %d pages opened in %s without a console error; every link and image resolves" % (len(pages), exe))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
