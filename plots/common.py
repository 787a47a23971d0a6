"""Shared helpers for the wmbench chart scripts (plots/*.py).

Python 3 + matplotlib (Agg backend) + the standard library only. Works with Debian's
python3-matplotlib (3.6) and with a pip matplotlib on macOS.

A result folder (docs/ARCHITECTURE.md) holds machine.json, summary.json, runs/*.json and
runs/*.trace.jsonl. Everything here is tolerant: missing files, missing keys, null values, a trace
without an "end" line (the run was stopped) and a truncated last line (the sampler was killed
mid-write) are all normal.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import sys

GIB = float(1 << 30)

# Fixed, colour-blind-friendly palette (Okabe-Ito), one colour per "who stopped" value, so the same
# outcome has the same colour in every chart of every result folder.
STOPPED_BY_ORDER = ["guard", "pytorch", "config", "cap", "crash", "timeout", "interrupted",
                    "not_started"]
STOPPED_BY_COLORS = {
    "guard": "#D55E00",        # vermillion
    "pytorch": "#0072B2",      # blue
    "config": "#CC79A7",       # reddish purple
    "cap": "#009E73",          # bluish green
    "crash": "#E69F00",        # orange
    "timeout": "#56B4E9",      # sky blue
    "interrupted": "#F0E442",  # yellow
    "not_started": "#999999",  # grey
    "exited": "#882255",       # wine: a job (--command) that exited non-zero, not by a memory limit
    "kernel": "#332288",       # indigo: killed by the kernel (the OOM killer), not by wmbench
}
UNKNOWN_COLOR = "#BBBBBB"
STOPPED_BY_TEXT = {
    "guard": "guard (swap budget / free memory)",
    "kernel": "the kernel's OOM killer",
    "pytorch": "PyTorch error (limit hit)",
    "config": "configuration error",
    "cap": "cap reached (no limit hit)",
    "crash": "crash",
    "timeout": "timeout",
    "interrupted": "interrupted",
    "not_started": "not started",
    "exited": "the command exited with an error",
}


class ResultFolderError(Exception):
    """The folder is missing or is not a wmbench result folder."""


# ---------------------------------------------------------------------------------------------
# matplotlib set-up

_plt = None


def pyplot():
    """Import matplotlib with the Agg backend and the house style; returns pyplot."""
    global _plt
    if _plt is not None:
        return _plt
    try:
        import matplotlib
    except ImportError:
        sys.stderr.write(
            "error: matplotlib is not installed for %s\n"
            "       install it (Debian: apt-get install python3-matplotlib; macOS: "
            "python3 -m pip install matplotlib) or run the script with a python that has it\n"
            % sys.executable)
        sys.exit(2)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({
        "svg.fonttype": "none",        # keep text as <text> in the SVG (searchable, small)
        "svg.hashsalt": "wmbench",     # stable ids between runs
        "font.size": 9.5,
        "axes.titlesize": 10.5,
        "axes.labelsize": 9.5,
        "legend.fontsize": 8.5,
        "xtick.labelsize": 8.5,
        "ytick.labelsize": 8.5,
        "figure.titlesize": 12,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "grid.linewidth": 0.6,
    })
    _plt = plt
    return plt


# ---------------------------------------------------------------------------------------------
# small value helpers

def num(value):
    """A finite float, or None (null, missing, text, NaN, bool)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        v = float(value)
        return v if math.isfinite(v) else None
    return None


def gib(value):
    """Bytes -> GiB as float, or None."""
    v = num(value)
    return None if v is None else v / GIB


def fmt_gib(value, digits=1, none="n/a"):
    """Bytes -> '38.5 GiB' (GiB = 2^30). Trailing '.0' is kept off for whole numbers: '48 GiB'."""
    g = gib(value)
    if g is None:
        return none
    text = "%.*f" % (digits, g)
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if text in ("-0", ""):
        text = "0"
    return text + " GiB"


def fmt_gib_signed(value, digits=1):
    g = gib(value)
    if g is None:
        return "n/a"
    return ("+" if g >= 0 else "-") + fmt_gib(abs(value), digits)


def swap_growth(run):
    """swap_after - swap_before in bytes, or None when either is unknown."""
    before, after = num(run.get("swap_before_bytes")), num(run.get("swap_after_bytes"))
    if before is None or after is None:
        return None
    return after - before


def swap_text(run, threshold=64 * 1024 * 1024):
    """'+5.9 GiB swap', 'no swap growth' (below 64 MiB) or 'swap n/a'."""
    g = swap_growth(run)
    if g is None:
        return "swap n/a"
    if g < threshold:
        return "no swap growth"
    return "%s swap" % fmt_gib_signed(g)


def date_of(utc):
    """'2026-10-13T10:00:00Z' -> '2026-10-13'; anything else -> '' ."""
    if isinstance(utc, str) and len(utc) >= 10 and utc[4] == "-" and utc[7] == "-":
        return utc[:10]
    return ""


def nice_step(span, target=8):
    """A tick step for a GiB axis: 1, 2, 4, 8, 16, ... (or 0.25/0.5 for small ranges)."""
    if not span or span <= 0:
        return 1.0
    for step in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024):
        if span / step <= target:
            return float(step)
    return float(2 ** math.ceil(math.log2(span / target)))


def gib_axis(axis, vmax, target=8):
    """Put GiB ticks on an x or y axis (axis = ax.xaxis / ax.yaxis) running up to vmax GiB."""
    from matplotlib.ticker import FuncFormatter, MultipleLocator
    axis.set_major_locator(MultipleLocator(nice_step(vmax, target)))
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: ("%g" % round(v, 3))))


# ---------------------------------------------------------------------------------------------
# loading

# The bounds wmbench's own readers apply (io/json_input.h kMaxFolderJsonBytes, files.h kMaxReadBytes).
MAX_JSON_BYTES = 32 << 20
MAX_TRACE_BYTES = 64 << 20


def read_bounded(path, limit):
    """The bytes of the regular file `path`, at most `limit` of them. A symbolic link, a FIFO or a
    device (a planted trace -> /dev/zero) is refused without blocking, as is a larger file."""
    import stat
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError("%s is not a regular file" % path)
        if st.st_size > limit:
            raise OSError("%s is %d bytes, over the limit of %d" % (path, st.st_size, limit))
        chunks, left = [], limit + 1
        while left > 0:
            b = os.read(fd, min(left, 1 << 20))
            if not b:
                break
            chunks.append(b)
            left -= len(b)
        data = b"".join(chunks)
        if len(data) > limit:
            raise OSError("%s grew over the limit of %d bytes" % (path, limit))
        return data
    finally:
        os.close(fd)


def _read_json(path, what, problems):
    try:
        data = json.loads(read_bounded(path, MAX_JSON_BYTES).decode("utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        problems.append("%s unreadable: %s" % (what, e))
        return None
    if not isinstance(data, dict):
        problems.append("%s is not a JSON object" % what)
        return None
    return data


def read_trace(path):
    """Parse a *.trace.jsonl file. Never raises for bad content; returns a dict:
    start (dict or None), samples (list), events (list), ended (bool: an "end" line was seen),
    bad_lines (int: lines that were not JSON objects, e.g. a truncated last line)."""
    trace = {"path": path, "start": None, "samples": [], "events": [], "ended": False,
             "bad_lines": 0}
    try:
        text = read_bounded(path, MAX_TRACE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        trace["bad_lines"] += 1
        return trace
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            trace["bad_lines"] += 1
            continue
        if not isinstance(obj, dict):
            trace["bad_lines"] += 1
            continue
        kind = obj.get("type")
        if kind == "start":
            trace["start"] = obj
        elif kind == "sample":
            if num(obj.get("t")) is not None:
                trace["samples"].append(obj)
        elif kind == "event":
            trace["events"].append(obj)
        elif kind == "end":
            trace["ended"] = True
    trace["samples"].sort(key=lambda s: num(s.get("t")))
    return trace


def _resolve_trace_path(folder, rel):
    if not isinstance(rel, str) or not rel:
        return None
    path = rel if os.path.isabs(rel) else os.path.join(folder, rel)
    return os.path.normpath(path)


class ResultFolder:
    def __init__(self, path, machine, summary, runs, problems):
        self.path = path
        self.machine = machine or {}
        self.summary = summary or {}
        self.runs = runs
        self.problems = problems

    # --- facts for titles and lines
    @property
    def scenario(self):
        s = self.summary.get("scenario")
        if isinstance(s, str) and s:
            return s
        base = os.path.basename(os.path.normpath(self.path))
        # results/YYYY-MM-DD-<name>[-N]
        if len(base) > 11 and base[4] == "-" and base[7] == "-" and base[10] == "-":
            return base[11:]
        return base or "wmbench"

    @property
    def ram_bytes(self):
        sandbox = self.machine.get("sandbox")
        if isinstance(sandbox, dict) and num(sandbox.get("ram_limit_bytes")):
            return num(sandbox.get("ram_limit_bytes"))
        return num(self.machine.get("ram_bytes"))

    @property
    def recommended_max_bytes(self):
        return num(self.machine.get("recommended_max_bytes"))

    @property
    def torch_version(self):
        v = self.machine.get("torch_version")
        return v if isinstance(v, str) and v else "?"

    @property
    def chip(self):
        for key in ("chip", "cpu"):
            v = self.machine.get(key)
            if isinstance(v, str) and v.strip():
                return v.strip()
        return "unknown machine"

    @property
    def date(self):
        d = date_of(self.machine.get("started_utc"))
        if not d:
            base = os.path.basename(os.path.normpath(self.path))
            d = date_of(base[:10] + "T") if len(base) >= 10 else ""
        return d or "undated"

    @property
    def child(self):
        """'native' or 'python': machine.json "child".kind; folders without it ran the native child."""
        c = self.machine.get("child")
        if isinstance(c, dict) and c.get("kind") in ("native", "python"):
            return c["kind"]
        return "native"

    @property
    def is_cuda(self):
        return self.machine.get("device") == "cuda" or self.summary.get("device") == "cuda"

    def limit_line_text(self):
        """The one name of the dashed line at the memory limit: 'sandbox limit 2 GiB' inside a
        memory sandbox, else 'RAM 48 GiB'; None when RAM is unknown."""
        ram = self.ram_bytes
        if ram is None:
            return None
        digits = 0 if abs(ram / GIB - round(ram / GIB)) < 0.05 else 1
        if isinstance(self.machine.get("sandbox"), dict):
            return "sandbox limit %s" % fmt_gib(ram, digits)
        return "RAM %s" % fmt_gib(ram, digits)

    def machine_text(self):
        """'Apple M5 Pro, 48 GiB RAM' (with 'sandbox' when the RAM is a sandbox limit)."""
        ram = self.ram_bytes
        model = self.machine.get("model")
        if isinstance(model, dict) and num(model.get("mac_ram_bytes")):
            # The MPS model: say plainly that this is a model of a Mac, not a Mac.
            text = "MODEL of a %s Mac (mps-model) on %s" % (fmt_gib(num(model.get("mac_ram_bytes")), 0), self.chip)
            if ram is not None:
                text += ", %s sandbox = its free memory" % fmt_gib(ram, 0 if abs(ram / GIB - round(ram / GIB)) < 0.05 else 1)
            return text
        text = self.chip
        if self.machine.get("device") == "cuda" and num(self.machine.get("recommended_max_bytes")):
            text = "cuda (%s GPU memory) on %s" % (fmt_gib(num(self.machine.get("recommended_max_bytes")), 1), self.chip)
        if ram is not None:
            text += ", %s RAM" % fmt_gib(ram, 0 if abs(ram / GIB - round(ram / GIB)) < 0.05 else 1)
            if isinstance(self.machine.get("sandbox"), dict):
                text += " (sandbox)"
        return text

    def title(self):
        """'<scenario> — <chip or cpu>, <RAM> RAM, torch <version> (<child> child), <date>'."""
        return "%s — %s, torch %s (%s child), %s" % (self.scenario, self.machine_text(),
                                                     self.torch_version, self.child, self.date)


def load_results(path, with_traces=True):
    """Load a result folder. Raises ResultFolderError when it is not one."""
    if not path or not os.path.isdir(path):
        raise ResultFolderError("%s: no such folder" % path)
    problems = []
    machine = _read_json(os.path.join(path, "machine.json"), "machine.json", problems)
    summary = _read_json(os.path.join(path, "summary.json"), "summary.json", problems)

    runs = None
    if summary is not None and isinstance(summary.get("runs"), list):
        runs = [r for r in summary["runs"] if isinstance(r, dict)]
    if runs is None:
        # summary.json is written at the end of the matrix; an interrupted matrix still has the
        # per-run records (written atomically when each run ends).
        runs_dir = os.path.join(path, "runs")
        runs = []
        if os.path.isdir(runs_dir):
            for name in sorted(os.listdir(runs_dir)):
                if name.endswith(".json") and not name.endswith(".trace.json"):
                    r = _read_json(os.path.join(runs_dir, name), "runs/" + name, problems)
                    if r is not None:
                        runs.append(r)
    if machine is None and summary is not None and isinstance(summary.get("machine"), dict):
        machine = summary["machine"]
    if machine is None and summary is None and not runs:
        detail = ("; " + "; ".join(problems)) if problems else ""
        raise ResultFolderError(
            "%s: not a wmbench result folder (no machine.json, summary.json or runs/*.json)%s"
            % (path, detail))

    def sort_key(r):
        i = num(r.get("index"))
        return (i if i is not None else 1e9, str(r.get("label")), num(r.get("repeat")) or 0)
    runs.sort(key=sort_key)

    for i, r in enumerate(runs):
        if not isinstance(r.get("label"), str) or not r.get("label"):
            r["label"] = "run-%d" % (i + 1)
        r["_trace"] = None
        if not with_traces:
            continue
        tp = _resolve_trace_path(path, r.get("trace"))
        if tp is None:
            continue
        try:
            r["_trace"] = read_trace(tp)
        except OSError as e:
            if not isinstance(e, FileNotFoundError):
                problems.append("%s: %s" % (r.get("trace"), e))
    return ResultFolder(path, machine, summary, runs, problems)


# ---------------------------------------------------------------------------------------------
# runs grouped by label (repeats)

def run_name(run, repeats_of_label=1):
    label = run.get("label", "?")
    rep = num(run.get("repeat"))
    if repeats_of_label > 1 and rep is not None:
        return "%s #%d" % (label, int(rep))
    return label


def group_by_label(runs):
    """[(label, [runs...])] in first-seen order."""
    order, groups = [], {}
    for r in runs:
        label = r.get("label", "?")
        if label not in groups:
            groups[label] = []
            order.append(label)
        groups[label].append(r)
    return [(label, groups[label]) for label in order]


def label_stats(runs):
    """Median/min/max held bytes of one label's runs and the outcome to colour by."""
    held = [num(r.get("held_bytes")) for r in runs]
    held = [h for h in held if h is not None]
    stopped = [r.get("stopped_by") if isinstance(r.get("stopped_by"), str) else "unknown"
               for r in runs]
    counts = {}
    for s in stopped:
        counts[s] = counts.get(s, 0) + 1
    # the most frequent outcome; ties go to the order of STOPPED_BY_ORDER
    rank = {s: i for i, s in enumerate(STOPPED_BY_ORDER)}
    main = sorted(counts, key=lambda s: (-counts[s], rank.get(s, 99)))[0] if counts else "unknown"
    growth = [swap_growth(r) for r in runs]
    growth = [g for g in growth if g is not None]
    allowed = [num(r.get("max_allowed_bytes")) for r in runs]
    allowed = [a for a in allowed if a is not None]
    return {
        "n": len(runs),
        "held_median": statistics.median(held) if held else None,
        "held_min": min(held) if held else None,
        "held_max": max(held) if held else None,
        "stopped_by": main,
        "stopped_counts": counts,
        "mixed": len(counts) > 1,
        "swap_growth_median": statistics.median(growth) if growth else None,
        "swap_growth_max": max(growth) if growth else None,
        "max_allowed": sorted(set(allowed)),
    }


def stopped_color(stopped_by):
    return STOPPED_BY_COLORS.get(stopped_by, UNKNOWN_COLOR)


def stopped_text(stopped_by):
    if stopped_by == "unknown":
        return "? (not recorded)"
    return STOPPED_BY_TEXT.get(stopped_by, str(stopped_by))


# ---------------------------------------------------------------------------------------------
# output

def _open_dir_nofollow(path, dir_fd=None, create=False):
    """An fd of the folder `path` (relative to dir_fd), never through a symbolic link."""
    if create:
        try:
            os.mkdir(path, 0o755, dir_fd=dir_fd)
        except FileExistsError:
            pass
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        return os.open(path, flags, dir_fd=dir_fd)
    except OSError as e:
        raise ResultFolderError("cannot write charts into %s: %s (a symbolic link or not a folder)"
                                % (path, e.strerror))


def _write_nofollow(fig, dir_fd, name, ext, kwargs):
    """Draws into a fresh temporary file (O_EXCL|O_NOFOLLOW: a planted file or link is never
    written through), then renames it over `name`: a link there is replaced, not followed."""
    tmp = ".%s.tmp.%d" % (name, os.getpid())
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644,
                 dir_fd=dir_fd)
    try:
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, format=ext, facecolor="white", bbox_inches="tight", pad_inches=0.15,
                        **kwargs)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except OSError:
            pass
        raise


# What save() writes: both by default; "--svg-only" (add_format_option) is for `wmbench publish`,
# whose pages show the SVG only (half the drawing time of a site).
FORMATS = ("svg", "png")


def add_format_option(parser):
    """--svg-only on a script's parser; apply_format_option(args) after parsing."""
    parser.add_argument("--svg-only", action="store_true", help="write only the .svg (no .png)")


def apply_format_option(args):
    global FORMATS
    FORMATS = ("svg",) if getattr(args, "svg_only", False) else ("svg", "png")


def save(fig, folder, name, out_dir=None):
    """Write <folder>/plots/<name>.svg and .png (or into out_dir); print and return the paths.
    Nothing is written through a symbolic link: plots/ (or out_dir's last component) must be a
    real folder, and each chart is a fresh file renamed into place."""
    if out_dir:
        target = out_dir
        dfd = _open_dir_nofollow(out_dir, create=True)
    else:
        target = os.path.join(folder, "plots")
        ffd = _open_dir_nofollow(folder)
        try:
            dfd = _open_dir_nofollow("plots", dir_fd=ffd, create=True)
        finally:
            os.close(ffd)
    paths = []
    try:
        for ext, kwargs in (("svg", {"metadata": {"Date": None}}), ("png", {"dpi": 150})):
            if ext not in FORMATS:
                continue
            fname = "%s.%s" % (name, ext)
            _write_nofollow(fig, dfd, fname, ext, kwargs)
            p = os.path.join(target, fname)
            paths.append(p)
            print(p)
    finally:
        os.close(dfd)
    pyplot().close(fig)
    return paths


def run_main(main):
    """Call main(argv); turn ResultFolderError into 'error: ...' and exit status 2."""
    try:
        code = main(sys.argv[1:])
    except ResultFolderError as e:
        sys.stderr.write("error: %s\n" % e)
        sys.exit(2)
    sys.exit(code or 0)
