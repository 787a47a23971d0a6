"""Render the chart scripts (plots/*.py) from the example result folders and check the output.

Run by CTest one test class at a time, so the classes render in parallel:
    python3 tests/plots/test_plots.py -v TableTest
(tests/CMakeLists.txt reads the class names off this file), with WMBENCH_SOURCE_DIR set to the
repository root (falls back to this file's location). All of them:
    python3 -m unittest discover -s tests/plots -p "test_*.py"

The scripts run in one subprocess per test process, plots/batch.py --serve (each script's main on its
own command line, matplotlib imported once, as wmbench draws them), or alone where the test is about
the script's own process; with a python that has matplotlib: this interpreter if it does,
else WMBENCH_PYTHON, else python3 on PATH or /usr/bin/python3 (a pyenv python without matplotlib
may run the tests while Debian's python3-matplotlib lives under /usr/bin/python3). When no python
with matplotlib is found the tests are skipped with a message.
"""

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("WMBENCH_SOURCE_DIR") or os.path.dirname(os.path.dirname(HERE))
PLOTS = os.path.join(SOURCE, "plots")
EXAMPLES = os.path.join(SOURCE, "tests", "data", "example-results")
BASE = "2026-10-13-mps-watermark"
NEW = "2026-11-01-mps-watermark"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _find_python():
    candidates = [sys.executable, os.environ.get("WMBENCH_PYTHON"), shutil.which("python3"),
                  "/usr/bin/python3", "/usr/local/bin/python3", "/opt/homebrew/bin/python3"]
    seen = set()
    for c in candidates:
        if not c or c in seen or not os.path.exists(c):
            continue
        seen.add(c)
        try:
            # importlib's finder, as wmbench's own probe (harness/tools/locate.cpp): no import
            r = subprocess.run([c, "-c", "import importlib.util as u, sys; "
                                "sys.exit(0 if u.find_spec('matplotlib') and u.find_spec('numpy') else 1)"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if r.returncode == 0:
            return c
    return None


PYTHON = _find_python()


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(33)
    if head[:8] != PNG_SIGNATURE:
        raise AssertionError("%s: not a PNG (signature %r)" % (path, head[:8]))
    length, ctype = struct.unpack(">I4s", head[8:16])
    if ctype != b"IHDR" or length != 13:
        raise AssertionError("%s: first chunk is %r, not IHDR" % (path, ctype))
    return struct.unpack(">II", head[16:24])


def svg_text(path):
    """All text of an SVG (it must parse as XML with an <svg> root)."""
    root = ET.parse(path).getroot()
    if not root.tag.endswith("svg"):
        raise AssertionError("%s: root element is %s" % (path, root.tag))
    parts = []
    for el in root.iter():
        if el.tag.endswith("}text") or el.tag == "text":
            parts.append("".join(el.itertext()))
    return "\n".join(parts)


class _Answer:
    """What a script's own process would have given: returncode, stdout, stderr."""

    def __init__(self, answer):
        self.returncode = answer["exit"]
        self.stdout = answer["stdout"]
        self.stderr = answer["stderr"]


class _BatchServer:
    """One `python plots/batch.py --serve` for this test process: one job a line, one answer a line."""

    def __init__(self):
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", MPLBACKEND="Agg")
        self.proc = subprocess.Popen([PYTHON, os.path.join(PLOTS, "batch.py"), "--serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, universal_newlines=True, env=env)

    def run(self, job):
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError("plots/batch.py --serve ended (exit %s) on the job %r" % (self.proc.wait(), job))
        return _Answer(json.loads(line))

    def close(self):
        self.proc.stdin.close()
        self.proc.stdout.close()
        self.proc.wait(timeout=60)


_server = []


def _batch():
    if not _server:
        _server.append(_BatchServer())
    return _server[0]


def tearDownModule():
    if _server:
        _server.pop().close()


class PlotTestCase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if PYTHON is None:
            raise unittest.SkipTest("no python with matplotlib found (tried %s, python3, "
                                    "/usr/bin/python3); set WMBENCH_PYTHON" % sys.executable)
        cls.tmp = tempfile.mkdtemp(prefix="wmbench-plots-")
        for name in (BASE, NEW):
            shutil.copytree(os.path.join(EXAMPLES, name), os.path.join(cls.tmp, name))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def folder(self, name):
        return os.path.join(self.tmp, name)

    def copy_of(self, name):
        """A private copy of an example folder that a test may damage."""
        dst = tempfile.mkdtemp(prefix="wmbench-plots-case-", dir=self.tmp)
        path = os.path.join(dst, name)
        shutil.copytree(os.path.join(EXAMPLES, name), path)
        return path

    def run_script(self, script, *args):
        """`script args...` as its own command line has it: its exit status, stdout and stderr.
        Drawn by this test process's one plots/batch.py --serve (matplotlib imported once, as
        wmbench's charts are drawn); run_alone() starts the script in a python of its own."""
        return _batch().run([script] + list(args))

    def run_alone(self, script, *args):
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", MPLBACKEND="Agg")
        return subprocess.run([PYTHON, os.path.join(PLOTS, script)] + list(args),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, env=env, timeout=300)

    def assert_ok(self, proc):
        self.assertEqual(proc.returncode, 0, "exit %d\nstdout:\n%s\nstderr:\n%s"
                         % (proc.returncode, proc.stdout, proc.stderr))

    def assert_charts(self, proc, directory, name, expected_texts):
        """<directory>/<name>.svg and .png exist, are printed, and are real charts."""
        self.assert_ok(proc)
        svg = os.path.join(directory, name + ".svg")
        png = os.path.join(directory, name + ".png")
        printed = [line.strip() for line in proc.stdout.splitlines() if line.strip()]
        for path in (svg, png):
            self.assertTrue(os.path.isfile(path), "%s not written" % path)
            self.assertIn(path, printed, "%s not printed: %r" % (path, printed))
        w, h = png_size(png)
        self.assertGreater(w, 300, png)
        self.assertGreater(h, 300, png)
        text = svg_text(svg)
        for t in expected_texts:
            self.assertIn(t, text, "%r not in %s; texts:\n%s" % (t, svg, text))
        return text


BASE_TITLE = "mps-watermark — Apple M5 Pro, 48 GiB RAM, torch 2.14.0 (native child), 2026-10-13"
NEW_TITLE = "mps-watermark — Apple M5 Pro, 48 GiB RAM, torch 2.15.0 (native child), 2026-11-01"


class TableTest(PlotTestCase):
    def test_base(self):
        d = self.folder(BASE)
        self.assert_charts(self.run_script("table.py", d), os.path.join(d, "plots"), "table", [
            BASE_TITLE,
            "memory held by tensors when the fill stopped (GiB)",
            "default", "high-0.0", "high-1.0-low-1.0", "high-0.8-low-0.8", "high-0.5-low-0.5",
            "high-0.8-alone",
            "38.5 GiB  ·  +5.9 GiB swap", "36 GiB  ·  +4.7 GiB swap", "34.5 GiB  ·  +4.1 GiB swap",
            "29.5 GiB  ·  no swap growth", "18.5 GiB  ·  no swap growth",
            "stopped by guard", "stopped by PyTorch error", "stopped by configuration error",
            "RAM (48 GiB)", "recommended max (37.44 GiB)", "max allowed (from PyTorch's error)",
        ])

    def test_repeats(self):
        d = self.folder(NEW)
        self.assert_charts(self.run_script("table.py", d), os.path.join(d, "plots"), "table", [
            NEW_TITLE, "3 runs: 2× PyTorch, 1× guard", "median 29.5 GiB",
            "swap +2.2 GiB in 1 of 3", "single runs, min-max",
        ])

    def test_out_option(self):
        out = os.path.join(self.tmp, "table-out")
        self.assert_charts(self.run_script("table.py", self.folder(BASE), "--out", out), out,
                           "table", [BASE_TITLE])

    def test_svg_only(self):
        # `wmbench publish` draws only the SVG its pages show.
        out = os.path.join(self.tmp, "table-svg-only")
        proc = self.run_script("table.py", self.folder(BASE), "--out", out, "--svg-only")
        self.assert_ok(proc)
        self.assertEqual(sorted(os.listdir(out)), ["table.svg"])
        self.assertIn(BASE_TITLE, svg_text(os.path.join(out, "table.svg")))


class TracesTest(PlotTestCase):
    def test_base(self):
        d = self.folder(BASE)
        text = self.assert_charts(self.run_script("traces.py", d), os.path.join(d, "plots"), "traces", [
            BASE_TITLE,
            # the run record's peak_footprint_bytes, as table.md shows it
            "default: peak footprint 38.70 GiB", "high-0.5-low-0.5: peak footprint 18.79 GiB",
            "high-0.8-alone: peak footprint 0.29 GiB",
            "time since start (s)", "memory (GiB)",
            "process footprint", "held by tensors", "swap growth (system, since start)",
            "stopped by guard", "stopped by pytorch",
            "RAM 48 GiB", "max allowed 29.95 GiB", "max allowed 18.72 GiB",
            # the config run held nothing: a note, not an empty panel
            "stopped by config: invalid low watermark ratio 1.4",
            "nothing held; peak footprint 0.29 GiB",
        ])
        self.assertNotIn("off this scale", text)
        self.assertNotIn("sandbox", text)   # no sandbox here: the dashed line is the RAM

    def test_repeats(self):
        d = self.folder(NEW)
        self.assert_charts(self.run_script("traces.py", d), os.path.join(d, "plots"), "traces", [
            NEW_TITLE, "high-0.8-low-0.8 #1: peak footprint", "high-0.8-low-0.8 #3: peak footprint",
        ])

    def test_run_without_trace_and_damaged_traces(self):
        d = self.copy_of(BASE)
        os.remove(os.path.join(d, "runs", "01-default.trace.jsonl"))
        # a truncated last line (sampler killed mid-write) and no "end" line
        p = os.path.join(d, "runs", "04-high-0.8-low-0.8.trace.jsonl")
        with open(p) as f:
            lines = [l for l in f.read().splitlines() if '"end"' not in l]
        lines.append(lines[-1][: len(lines[-1]) // 2])
        with open(p, "w") as f:
            f.write("\n".join(lines))
        # nulls and missing keys in a run record
        with open(os.path.join(d, "summary.json")) as f:
            summary = json.load(f)
        summary["runs"][4]["swap_after_bytes"] = None
        summary["runs"][4]["max_allowed_bytes"] = None
        del summary["runs"][4]["peak_footprint_bytes"]
        summary["runs"][5]["trace"] = None
        with open(os.path.join(d, "summary.json"), "w") as f:
            json.dump(summary, f)
        self.assert_charts(self.run_script("traces.py", d), os.path.join(d, "plots"), "traces", [
            "default: peak footprint 38.70 GiB",       # from the run record
            "high-0.5-low-0.5: peak footprint 18.79 GiB (samples)",  # no record value: the samples
            "no trace", "1 unreadable trace line skipped",
        ])
        self.assert_charts(self.run_script("table.py", d), os.path.join(d, "plots"), "table", [
            "18.5 GiB  ·  swap n/a",
        ])

    def test_footprint_line_ends_at_the_childs_end(self):
        """Issue 30: a sample taken after the child exited read footprint 0 while held stayed flat."""
        sys.path.insert(0, PLOTS)
        try:
            import traces
        finally:
            sys.path.remove(PLOTS)
        g = 1 << 30
        samples = [{"t": 0.5, "footprint": g, "held": g}, {"t": 1.0, "footprint": 2 * g, "held": 2 * g},
                   {"t": 1.5, "footprint": 0, "held": 2 * g}]  # the child is gone: a zombie's 0
        run = {"duration_s": 1.4, "_trace": {"samples": samples, "events": [], "ended": True, "bad_lines": 0}}
        ser = traces._series(run)
        self.assertEqual(ser["footprint"], [1.0, 2.0, None])
        self.assertEqual(ser["held"][-1], 2.0)
        # Unlisted: a reading after duration_s that is not 0 (the pid reused, a late sample) is cut too,
        # and a 0 inside the run (before its end) stays a reading.
        samples[2]["footprint"] = g // 2
        samples[0]["footprint"] = 0
        ser = traces._series(run)
        self.assertEqual(ser["footprint"], [0.0, 2.0, None])

    def test_without_summary(self):
        """An interrupted matrix has runs/*.json but no summary.json yet."""
        d = self.copy_of(BASE)
        os.remove(os.path.join(d, "summary.json"))
        self.assert_charts(self.run_script("traces.py", d), os.path.join(d, "plots"), "traces",
                           [BASE_TITLE, "default: peak footprint 38.70 GiB"])


class CompareTest(PlotTestCase):
    def test_compare(self):
        base, new = self.folder(BASE), self.folder(NEW)
        self.assert_charts(self.run_script("compare.py", base, new), os.path.join(new, "plots"),
                           "compare", [
            "mps-watermark: torch 2.14.0 (2026-10-13) vs torch 2.15.0 (2026-11-01)",
            "both on Apple M5 Pro, 48 GiB RAM",
            "memory held by tensors when the fill stopped (GiB)",
            "base: torch 2.14.0, 2026-10-13", "new: torch 2.15.0, 2026-11-01",
            "stopped by something else than in base", "RAM (48 GiB)",
            "37 GiB, pytorch (was guard)", "high-0.8-alone",
        ])

    def test_compare_out_and_missing_label(self):
        d = self.copy_of(NEW)
        with open(os.path.join(d, "summary.json")) as f:
            summary = json.load(f)
        summary["runs"] = [r for r in summary["runs"] if r["label"] != "high-0.8-alone"]
        with open(os.path.join(d, "summary.json"), "w") as f:
            json.dump(summary, f)
        out = os.path.join(self.tmp, "compare-out")
        self.assert_charts(self.run_script("compare.py", self.folder(BASE), d, "--out", out), out,
                           "compare", ["not run in new"])
        self.assertFalse(os.path.exists(os.path.join(d, "plots", "compare.svg")))


def _tune_probe(run, high, stopped_by, held_gib, swap_mib, clean, max_allowed_gib=None, footprint_gib=None):
    return {"run": run, "label": "t%02d" % run, "high": high, "low": high, "stopped_by": stopped_by,
            "held_bytes": int(held_gib * (1 << 30)), "swap_growth_bytes": int(swap_mib * (1 << 20)),
            "peak_footprint_bytes": int((footprint_gib or held_gib) * (1 << 30)),
            "max_allowed_bytes": int(max_allowed_gib * (1 << 30)) if max_allowed_gib else None,
            "clean": clean, "counted": True}


class TuneTest(PlotTestCase):
    """plots/tune.py on a tune folder's tune.json (the shape tune/tune_report.cpp writes)."""

    def tune_folder(self, probes, answer=0.9, said="Set HIGH 0.9 (LOW 0.9): the highest setting measured to end cleanly"):
        path = tempfile.mkdtemp(prefix="wmbench-plots-tune-", dir=self.tmp)
        tune = {"schema_version": 1, "outcome": "found" if answer else "no_safe_setting",
                "answer": {"high": answer, "low": answer} if answer else None, "said": said,
                "tolerance_bytes": 32 << 20, "resolution": 0.05, "probes": probes}
        with open(os.path.join(path, "tune.json"), "w") as f:
            json.dump(tune, f)
        return path

    def test_fill_probes(self):
        path = self.tune_folder([
            _tune_probe(1, 1.7, "guard", 2.09, 160, False),
            _tune_probe(2, 0.5, "pytorch", 1.06, 0, True, 1.07),
            _tune_probe(3, 0.95, "pytorch", 1.9, 55, False, 2.04),
            _tune_probe(4, 0.9, "pytorch", 1.9, 0, True, 1.93),
        ])
        proc = self.run_script("tune.py", path)
        text = self.assert_charts(proc, os.path.join(path, "plots"), "tune",
                                  ["wmbench tune", "held memory (GiB)", "swap +55 MiB", "swap +160 MiB",
                                   "stopped by guard (swap budget / free memory)",
                                   "stopped by PyTorch error (limit hit)", "max allowed (PyTorch's limit)", "answer"])
        self.assertNotIn("swap +0 MiB", text, "a clean run without swap growth is not marked")

    def test_job_probes_show_the_footprint(self):
        path = self.tune_folder([
            _tune_probe(1, 1.7, "exited", 0, 0, False, footprint_gib=1.5),
            _tune_probe(2, 0.5, "pytorch", 0, 0, True, footprint_gib=0.7),
        ], answer=None, said="No safe setting with the apps open now")
        proc = self.run_script("tune.py", path)
        self.assert_charts(proc, os.path.join(path, "plots"), "tune",
                           ["peak footprint (the job's whole process tree) (GiB)",
                            "stopped by the command exited with an error", "No safe setting"])

    def test_not_a_tune_folder(self):
        proc = self.run_script("tune.py", self.folder(BASE))
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("not a tune folder", proc.stderr)


class BadInputTest(PlotTestCase):
    def check_exit_2(self, script, *args):
        proc = self.run_script(script, *args)
        self.assertEqual(proc.returncode, 2, "%s %s: exit %d\n%s%s"
                         % (script, args, proc.returncode, proc.stdout, proc.stderr))
        self.assertIn("error:", proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)

    def test_missing_folder(self):
        missing = os.path.join(self.tmp, "no-such-folder")
        for script in ("table.py", "traces.py"):
            self.check_exit_2(script, missing)
        self.check_exit_2("compare.py", missing, self.folder(NEW))
        self.check_exit_2("compare.py", self.folder(BASE), missing)

    def test_not_a_result_folder(self):
        empty = tempfile.mkdtemp(prefix="empty-", dir=self.tmp)
        for script in ("table.py", "traces.py"):
            self.check_exit_2(script, empty)

    def test_no_arguments(self):
        for script in ("table.py", "traces.py", "compare.py"):
            self.assertEqual(self.run_script(script).returncode, 2)


class BatchTest(PlotTestCase):
    """plots/batch.py's command line, as wmbench runs it (tools/chart_batch.cpp): many charts in one
    python, one answer line per job, a failed job said and the next one drawn, and only the chart
    scripts of plots/ named."""

    def batch(self, *words):
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", MPLBACKEND="Agg")
        return subprocess.run([PYTHON, "-I", os.path.join(PLOTS, "batch.py")] + list(words), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, env=env, timeout=300, cwd="/")

    def test_many_charts_one_python_and_a_failure_is_that_jobs_only(self):
        out = os.path.join(self.tmp, "batch-out")
        missing = os.path.join(self.tmp, "no-such-folder")
        proc = self.batch("4", "table.py", "--out", out, self.folder(BASE),
                          "2", "traces.py", missing,
                          "5", "traces.py", "--out", out, "--svg-only", self.folder(NEW),
                          "5", "releases.py", "--out", out, "--bogus", self.folder(NEW),
                          "3", "compare.py", self.folder(BASE), self.folder(NEW))
        self.assert_ok(proc)
        answers = [json.loads(l) for l in proc.stdout.splitlines()]
        self.assertEqual(answers, [{"job": 0, "exit": 0}, {"job": 1, "exit": 2}, {"job": 2, "exit": 0},
                                   {"job": 3, "exit": 2}, {"job": 4, "exit": 0}])
        self.assertIn("error: %s: no such folder" % missing, proc.stderr)
        self.assertIn("usage: releases.py", proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        # each job's own formats: --svg-only on one job is not the next one's
        self.assertEqual(sorted(os.listdir(out)), ["table.png", "table.svg", "traces.svg"])
        self.assertIn(BASE_TITLE, svg_text(os.path.join(out, "table.svg")))
        self.assertIn(NEW_TITLE, svg_text(os.path.join(out, "traces.svg")))
        self.assertIn("torch 2.14.0 (2026-10-13) vs torch 2.15.0", svg_text(os.path.join(self.folder(NEW), "plots", "compare.svg")))

    def test_only_chart_scripts_and_whole_counts_or_nothing_runs(self):
        out = os.path.join(self.tmp, "batch-refused")
        for words in (["4", "table.py", "--out", out, self.folder(BASE), "1", "batch.py"],
                      ["4", "table.py", "--out", out, self.folder(BASE), "2", "../plots/table.py", self.folder(BASE)],
                      ["4", "table.py", "--out", out, self.folder(BASE), "1", "common.py"],
                      ["4", "table.py", "--out", out, self.folder(BASE), "9", "table.py"],
                      ["4", "table.py", "--out", out, self.folder(BASE), "x"],
                      ["0", "table.py"], []):
            proc = self.batch(*words)
            self.assertEqual(proc.returncode, 2, "%r: %s%s" % (words, proc.stdout, proc.stderr))
            self.assertEqual(proc.stdout.strip() if words else "", "", words)
            self.assertFalse(os.path.exists(out), "%r drew before refusing" % (words,))

    def test_serve_answers_each_line(self):
        server = _BatchServer()
        try:
            a = server.run(["tune.py", self.folder(BASE)])
            self.assertEqual(a.returncode, 2)
            self.assertIn("not a tune folder", a.stderr)
            a = server.run(["os.py"])
            self.assertEqual(a.returncode, 2)
            self.assertIn("allowed: table.py", a.stderr)
            out = os.path.join(self.tmp, "batch-serve")
            self.assert_charts(server.run(["table.py", "--out", out, self.folder(BASE)]), out, "table", [BASE_TITLE])
        finally:
            server.close()


def _committed_kinds(results):
    """The newest committed folder of each kind (program, device): the charts differ by kind, not
    by folder or scenario name, so one folder of each renders (each chart type once, on real data)."""
    newest = {}
    for n in sorted(os.listdir(results)):
        d = os.path.join(results, n)
        if not os.path.isfile(os.path.join(d, "summary.json")):
            continue
        with open(os.path.join(d, "scenario.json")) as f, open(os.path.join(d, "machine.json")) as g:
            scenario, machine = json.load(f), json.load(g)
        newest[(scenario.get("program", "fill"), machine.get("device"))] = n
    return sorted(newest.values())


class HostileFolderTest(PlotTestCase):
    """Issue 22: a contributed folder's planted links are never written through, a trace that
    links to /dev/zero is never read without bound, and the scripts run under python -I."""

    def test_planted_chart_link_is_replaced_not_followed(self):
        d = self.copy_of(BASE)
        victim = os.path.join(os.path.dirname(d), "victim")
        with open(victim, "w") as f:
            f.write("precious\n")
        os.makedirs(os.path.join(d, "plots"), exist_ok=True)
        link = os.path.join(d, "plots", "table.png")
        if os.path.lexists(link):
            os.unlink(link)
        os.symlink(victim, link)
        self.assert_ok(self.run_script("table.py", d))
        with open(victim) as f:
            self.assertEqual(f.read(), "precious\n")
        self.assertFalse(os.path.islink(link))
        png_size(link)

    def test_plots_folder_that_is_a_link_is_refused(self):
        d = self.copy_of(BASE)
        elsewhere = os.path.join(os.path.dirname(d), "elsewhere")
        os.mkdir(elsewhere)
        shutil.rmtree(os.path.join(d, "plots"), ignore_errors=True)
        os.symlink(elsewhere, os.path.join(d, "plots"))
        proc = self.run_script("table.py", d)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertEqual(os.listdir(elsewhere), [])

    def test_history_out_link_is_replaced_not_followed(self):
        # unlisted: --out's chart name planted as a link in the output folder
        out = tempfile.mkdtemp(prefix="wmbench-plots-out-", dir=self.tmp)
        victim = os.path.join(self.tmp, "victim-history")
        with open(victim, "w") as f:
            f.write("precious\n")
        proc = self.run_script("history.py", "--out", out, self.folder(BASE), self.folder(NEW))
        self.assert_ok(proc)
        pngs = [n for n in os.listdir(out) if n.endswith(".png")]
        self.assertTrue(pngs)
        target = os.path.join(out, pngs[0])
        os.unlink(target)
        os.symlink(victim, target)
        self.assert_ok(self.run_script("history.py", "--out", out, self.folder(BASE), self.folder(NEW)))
        with open(victim) as f:
            self.assertEqual(f.read(), "precious\n")
        self.assertFalse(os.path.islink(target))

    def test_trace_linked_to_dev_zero_is_not_read(self):
        d = self.copy_of(BASE)
        runs = os.path.join(d, "runs")
        trace = sorted(n for n in os.listdir(runs) if n.endswith(".trace.jsonl"))[0]
        os.unlink(os.path.join(runs, trace))
        os.symlink("/dev/zero", os.path.join(runs, trace))
        proc = subprocess.run([PYTHON, os.path.join(PLOTS, "traces.py"), d], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=120,
                              env=dict(os.environ, MPLBACKEND="Agg"))
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_trace_over_the_bound_is_not_read(self):
        # unlisted: a regular trace file past MAX_TRACE_BYTES (sparse: no disk used) is refused by
        # its size, never read into memory, and the chart of the other runs is still drawn.
        d = self.copy_of(BASE)
        runs = os.path.join(d, "runs")
        trace = sorted(n for n in os.listdir(runs) if n.endswith(".trace.jsonl"))[0]
        path = os.path.join(runs, trace)
        sys.path.insert(0, PLOTS)
        try:
            import common as C  # plots/common.py: no matplotlib at import
        finally:
            sys.path.remove(PLOTS)
        with open(path, "ab") as f:
            f.truncate(C.MAX_TRACE_BYTES + 1)
        got = C.read_trace(path)
        self.assertEqual(got["samples"], [])
        self.assertEqual(got["bad_lines"], 1)
        proc = subprocess.run([PYTHON, os.path.join(PLOTS, "traces.py"), d], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=120,
                              env=dict(os.environ, MPLBACKEND="Agg"))
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_scripts_run_under_isolated_python(self):
        d = self.copy_of(BASE)
        proc = subprocess.run([PYTHON, "-I", os.path.join(PLOTS, "table.py"), d], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=300, cwd="/",
                              env={"PATH": os.environ.get("PATH", "/usr/bin"), "MPLBACKEND": "Agg"})
        self.assert_ok(proc)


class CommittedResultsTest(PlotTestCase):
    """One committed real result folder of each kind under results/ renders, titled with its machine."""

    def test_each_kind_of_committed_folder_renders(self):
        results = os.path.join(SOURCE, "results")
        names = _committed_kinds(results)
        self.assertGreaterEqual(len(names), 3, "too few kinds of committed result folders: %r" % names)
        for name in names:
            path = os.path.join(self.tmp, "committed-" + name)
            shutil.copytree(os.path.join(results, name), path)
            shutil.rmtree(os.path.join(path, "plots"), ignore_errors=True)
            with open(os.path.join(path, "machine.json")) as f:
                machine = json.load(f)
            expected = [machine.get("torch_version", "")]
            if isinstance(machine.get("model"), dict):
                expected.append("MODEL of a 48 GiB Mac")
            if machine.get("device") == "cuda":
                expected.append("GPU memory")
            self.assert_charts(self.run_script("table.py", path), os.path.join(path, "plots"), "table", expected)
            self.assert_charts(self.run_script("traces.py", path), os.path.join(path, "plots"), "traces",
                               [machine.get("torch_version", "")])

    def test_traces_peak_is_the_tables_peak(self):
        """One number, one place: each panel's peak footprint is the one table.md shows."""
        import re
        results = os.path.join(SOURCE, "results")
        for name in ("2026-11-29-mps-watermark", "2026-11-29-cuda-fraction-h200"):
            src = os.path.join(results, name)
            out = os.path.join(self.tmp, "peak-" + name)
            proc = self.run_script("traces.py", src, "--out", out)
            self.assert_ok(proc)
            text = svg_text(os.path.join(out, "traces.svg"))
            with open(os.path.join(src, "table.md")) as f:
                rows = [l for l in f if l.startswith("| `")]
            self.assertTrue(rows)
            for row in rows:
                cells = [c.strip() for c in row.strip().strip("|").split("|")]
                label = re.match(r"`([^`]+)`", cells[0]).group(1)
                peak = cells[-1]
                host = "host " if "cuda" in name else ""
                self.assertIn("%s: peak %sfootprint %s" % (label, host, peak), text)
            if "cuda" in name:
                # device memory beside the host footprint, and the host RAM is not a limit line
                self.assertIn("device at the stop: allocated 6.5 GiB, reserved 6.5 GiB", text)
                self.assertIn("process footprint (host)", text)
                self.assertIn("stopped by config: stod", text)
            else:
                # the dashed line has one name: the sandbox limit, in the legend and on the panels
                self.assertIn("sandbox limit 2 GiB", text)
                self.assertIn("sandbox limit", text.splitlines())
                self.assertNotIn("RAM", text.splitlines())   # the old legend's other name for it


HISTORY = os.path.join(SOURCE, "tests", "data", "history")


def _folders(*groups):
    out = []
    for g in groups:
        base = os.path.join(HISTORY, g)
        out += sorted(os.path.join(base, n) for n in os.listdir(base) if os.path.isdir(os.path.join(base, n)))
    return out


class HistoryTest(PlotTestCase):
    def test_release_series(self):
        out = os.path.join(self.tmp, "history-release")
        dirs = list(reversed(_folders("release")))      # given newest first: ordered by the script
        text = self.assert_charts(self.run_script("history.py", "--out", out, "--by", "torch", *dirs), out,
                                  "history-mps-watermark-mps", [
            "mps-watermark on mps: held memory per setting across 3 torch releases",
            "every folder: Apple M4 Max, 64 GiB, native child",
            "torch 2.8.0", "torch 2.9.0", "torch 2.10.0",
            "default", "high-1.0-low-1.0", "high-0.8-low-0.8", "high-0.8-alone",
            "stopped by guard (swap budget / free memory)", "stopped by PyTorch error (limit hit)",
            "stopped by configuration error", "max allowed (from PyTorch's error)",
            "held when swap began to grow", "nothing held\n(config)", "45 GiB", "47.5 GiB",
        ])
        # the x order is the torch order, whatever the order given
        self.assertLess(text.index("torch 2.8.0"), text.index("torch 2.9.0"))
        self.assertLess(text.index("torch 2.9.0"), text.index("torch 2.10.0"))

    def test_macs_and_mixed(self):
        out = os.path.join(self.tmp, "history-mixed")
        proc = self.run_script("history.py", "--out", out, "--by", "machine", *_folders("macs", "mixed"))
        self.assert_charts(proc, out, "history-mps-watermark-mps", [
            "mps-watermark on mps: held memory per setting across 3 machines",
            "every folder: torch 2.10.0, native child", "Apple M4,\n16 GiB", "Apple M4 Max,\n128 GiB", "RAM",
        ])
        # another scenario and another device: charts of their own, never mixed in
        self.assert_charts(proc, out, "history-compression-trap-mps",
                           ["compression-trap on mps: held memory per setting (one folder)", "ones", "random"])
        self.assert_charts(proc, out, "history-mps-watermark-mps-model",
                           ["mps-model: a MODEL of a Mac's MPS limits, not a Mac", "model of 64 GiB Mac"])
        proc = self.run_script("history.py", "--out", out, "--scenario", "compression-trap", *_folders("mixed"))
        self.assert_ok(proc)
        self.assertIn("skipped: %s" % _folders("mixed")[1], proc.stdout)

    def test_committed_results(self):
        out = os.path.join(self.tmp, "history-committed")
        results = os.path.join(SOURCE, "results")
        dirs = sorted(os.path.join(results, n) for n in os.listdir(results)
                      if os.path.isfile(os.path.join(results, n, "summary.json")))
        proc = self.run_script("history.py", "--out", out, *dirs)
        # How many committed folders are of that series, read off their own files.
        n = 0
        for d in dirs:
            with open(os.path.join(d, "scenario.json")) as f, open(os.path.join(d, "machine.json")) as g:
                n += json.load(f).get("name") == "mps-watermark" and json.load(g).get("device") == "mps-model"
        self.assertGreaterEqual(n, 3)
        self.assert_charts(proc, out, "history-mps-watermark-mps-model", [
            "mps-watermark on mps-model: held memory per setting across %d runs" % n, "torch 1.13.0", "torch 2.11.0",
        ])
        self.assert_charts(proc, out, "history-cuda-fraction-cuda", ["cuda-fraction on cuda"])

    def test_bad_input(self):
        proc = self.run_script("history.py", "--out", self.tmp, os.path.join(self.tmp, "no-such-folder"))
        self.assertEqual(proc.returncode, 2)
        self.assertIn("error:", proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        self.assertEqual(self.run_script("history.py").returncode, 2)


if __name__ == "__main__":
    unittest.main()
