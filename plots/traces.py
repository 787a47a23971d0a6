#!/usr/bin/env python3
"""Memory over time, one subplot per run, from the sampler's traces.

    python3 plots/traces.py RESULT_DIR [--out DIR]

Writes RESULT_DIR/plots/traces.svg and traces.png (or into --out) and prints their paths.
Lines: the process footprint, the memory held by tensors, and the growth of the system's swap since
the first sample; a vertical line where the run was stopped (with who stopped it), a dashed line at
the machine's RAM or, inside a memory sandbox, at the sandbox limit (one name in the legend and on
the panel; left out when far above the data, and said so), a dotted line at PyTorch's "max allowed"
when the error gave one. On cuda the device memory PyTorch counted (allocated, reserved) is drawn
where the trace recorded it, and noted from the run record. Subplot titles: "<label>: peak footprint
X.XX GiB", the run record's peak_footprint_bytes (the number table.md shows; the 0.5 s samples
alone can miss the peak). A run that held nothing (a refused configuration) gets a short note
instead of an empty panel.
Up to 16 runs go into one grid; more runs get one file per run (traces-<NN>-<label>.*).
Exit status 2 when RESULT_DIR is missing or not a result folder.
"""

from __future__ import annotations

import argparse
import math
import re

# wmbench runs this script under `python -I` (tools/python_isolated.h), which puts neither this
# folder nor the current one on sys.path: common.py is found here, by this file's own path.
import os as _os
import sys as _sys
_sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
import common as C  # noqa: E402

COLORS = {
    "footprint": "#0072B2",
    "held": "#009E73",
    "swap": "#D55E00",
    "ram": "#333333",
    "allowed": "#CC79A7",
    "stop": "#111111",
    "allocated": "#E69F00",
    "reserved": "#56B4E9",
}
RAM_FAR = 4.0        # leave the RAM line out when RAM > RAM_FAR x the largest plotted value
GRID_MAX = 16


def _series(run):
    """Times and values (GiB) of the lines of one run; None entries are gaps."""
    tr = run.get("_trace")
    out = {"t": [], "footprint": [], "swap": [], "held_t": [], "held": [], "stop": None,
           "stop_by": None, "ended": False, "bad_lines": 0, "has_trace": tr is not None,
           "allocated_t": [], "allocated": [], "reserved_t": [], "reserved": []}
    if tr is None:
        return out
    out["ended"] = tr["ended"]
    out["bad_lines"] = tr["bad_lines"]
    swap0 = None
    for s in tr["samples"]:
        t = C.num(s.get("t"))
        out["t"].append(t)
        out["footprint"].append(C.gib(s.get("footprint")))
        sw = C.num(s.get("swap_used"))
        if sw is not None and swap0 is None:
            swap0 = sw
        out["swap"].append(None if sw is None else (sw - swap0) / C.GIB)
    # device memory (cuda, mps): the samples' allocator counts and the offload stages'
    for s in tr["samples"]:
        for key, src in (("allocated", "allocated"), ("reserved", "driver")):
            v = C.gib(s.get(src))
            if v is not None:
                out[key + "_t"].append(C.num(s.get("t")))
                out[key].append(v)
    for e in tr["events"]:
        if e.get("kind") != "stage" or C.num(e.get("t")) is None:
            continue
        for key, src in (("allocated", "allocated_bytes"), ("reserved", "driver_bytes")):
            v = C.gib(e.get(src))
            if v is not None:
                out[key + "_t"].append(C.num(e["t"]))
                out[key].append(v)
    for key in ("allocated", "reserved"):
        pts = sorted(zip(out[key + "_t"], out[key]))
        out[key + "_t"], out[key] = [p[0] for p in pts], [p[1] for p in pts]
    # held: from the step events when there are any (exact times), else from the samples
    steps = [e for e in tr["events"] if e.get("kind") == "step" and C.num(e.get("t")) is not None
             and C.num(e.get("held")) is not None]
    if steps:
        out["held_t"] = [0.0] + [C.num(e["t"]) for e in steps]
        out["held"] = [0.0] + [C.gib(e["held"]) for e in steps]
    else:
        for s in tr["samples"]:
            h = C.gib(s.get("held"))
            if h is not None:
                out["held_t"].append(C.num(s.get("t")))
                out["held"].append(h)
    for e in tr["events"]:
        if e.get("kind") == "stop" and C.num(e.get("t")) is not None:
            out["stop"] = C.num(e.get("t"))
            out["stop_by"] = e.get("by") if isinstance(e.get("by"), str) else None
    if out["stop_by"] is None and isinstance(run.get("stopped_by"), str):
        out["stop_by"] = run["stopped_by"]
    # Which guard signal (issue 41; records before it have none): "stopped by guard (pressure)".
    if out["stop_by"] == "guard" and isinstance(run.get("guard_signal"), str):
        out["stop_by"] = "guard (%s)" % run["guard_signal"]
    # The footprint line ends at the child's end (issue 30): a sample taken after the child exited
    # (before the parent reaped it, or after the run's duration_s) reads 0 for a process that is
    # gone, while its tensors were held to the end; those readings are gaps, not a fall to 0.
    end = C.num(run.get("duration_s"))
    for i, t in enumerate(out["t"]):
        if end is not None and t is not None and t > end:
            out["footprint"][i] = None
    i = len(out["footprint"]) - 1
    while i >= 0 and out["footprint"][i] in (None, 0.0):
        out["footprint"][i] = None
        i -= 1
    # the held line runs on to the end of the trace
    t_end = max([x for x in out["t"] if x is not None] + [out["stop"] or 0.0] + out["held_t"])
    if out["held_t"] and out["held_t"][-1] < t_end:
        out["held_t"].append(t_end)
        out["held"].append(out["held"][-1])
    return out


def _peak(run, ser):
    """The peak footprint in GiB and where it came from: the run record's peak_footprint_bytes
    (the sampler's peak, per-step readings included: the number table.md shows), else the highest
    0.5 s sample."""
    rec = C.gib(run.get("peak_footprint_bytes"))
    if rec is not None:
        return rec, ""
    vals = [v for v in ser["footprint"] if v is not None]
    if vals:
        return max(vals), " (samples)"
    return None, ""


def _held_nothing(run, ser):
    """Nothing was ever held: a refused configuration, a run that never started."""
    if run.get("program") == "offload" or run.get("stages"):
        return False
    if C.num(run.get("held_bytes")) not in (None, 0.0):
        return False
    return not any(v for v in ser["held"] if v)


def _first_line(text, limit=70):
    text = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _note_panel(ax, run, peak, host):
    """A short note instead of an empty panel."""
    why = run.get("stopped_by") if isinstance(run.get("stopped_by"), str) else "?"
    detail = _first_line(run.get("error_text") if isinstance(run.get("error_text"), str) else
                         run.get("detail") if isinstance(run.get("detail"), str) else "")
    lines = ["stopped by %s%s" % (why, (": " + detail) if detail else ""),
             "nothing held; peak %sfootprint %s" % (host, "%.2f GiB" % peak if peak is not None else "n/a")]
    ax.set_axis_off()
    ax.text(0.5, 0.5, "\n".join(lines), transform=ax.transAxes, ha="center", va="center",
            fontsize=9, color="#333333", style="italic", wrap=True,
            bbox=dict(facecolor="#F4F4F4", edgecolor="#CCCCCC", pad=6))


def _plot_run(ax, run, name, res, show_xlabel, show_ylabel):
    ser = _series(run)
    peak, source = _peak(run, ser)
    host = "host " if res.is_cuda else ""
    ax.set_title("%s: peak %sfootprint %s%s" % (name, host, "%.2f GiB" % peak if peak is not None else "n/a",
                                                 source), loc="left")
    if ser["has_trace"] and _held_nothing(run, ser):
        _note_panel(ax, run, peak, host)
        return
    notes = []
    plotted = []

    def line(ts, vs, key, **kw):
        pts = [(t, v) for t, v in zip(ts, vs) if t is not None]
        if not pts or all(v is None for _, v in pts):
            return
        xs = [t for t, _ in pts]
        ys = [float("nan") if v is None else v for _, v in pts]
        ax.plot(xs, ys, color=COLORS[key], **kw)
        plotted.extend(v for v in ys if not math.isnan(v))

    line(ser["t"], ser["footprint"], "footprint", lw=1.8, zorder=4)
    line(ser["held_t"], ser["held"], "held", lw=1.5, drawstyle="steps-post", zorder=3)
    line(ser["t"], ser["swap"], "swap", lw=1.5, zorder=5)
    if res.is_cuda:
        # On a discrete GPU the device memory is not in the host footprint: draw it beside it.
        line(ser["allocated_t"], ser["allocated"], "allocated", lw=1.3, drawstyle="steps-post", zorder=4)
        line(ser["reserved_t"], ser["reserved"], "reserved", lw=1.3, ls="--", drawstyle="steps-post", zorder=4)
        dev = [(k, C.num(run.get(src))) for k, src in (("allocated", "allocated_bytes"), ("reserved", "driver_bytes"))]
        dev = ["%s %s" % (k, C.fmt_gib(v, 2)) for k, v in dev if v is not None]
        if dev:
            notes.append("device at the stop: " + ", ".join(dev))

    if ser["has_trace"] and not ser["held"] and C.num(run.get("held_bytes")) == 0:
        notes.append("no tensors held")
    if not ser["has_trace"] or not ser["t"]:
        ax.text(0.5, 0.5, "no trace" if not ser["has_trace"] else "trace has no samples",
                transform=ax.transAxes, ha="center", va="center", fontsize=10, color="#444444",
                style="italic", zorder=8)
        ax.set_xticks([])
    if ser["bad_lines"]:
        notes.append("%d unreadable trace line%s skipped" % (ser["bad_lines"],
                                                              "s" if ser["bad_lines"] > 1 else ""))

    top = max(plotted) if plotted else 0.0
    bottom = min(plotted + [0.0])
    allowed = C.gib(run.get("max_allowed_bytes"))
    if allowed is not None and (not plotted or allowed <= RAM_FAR * max(top, 1e-9)):
        ax.axhline(allowed, color=COLORS["allowed"], ls=":", lw=1.6, zorder=2)
        ax.annotate("max allowed %s" % C.fmt_gib(run.get("max_allowed_bytes"), 2),
                    (0.01, allowed), xycoords=("axes fraction", "data"), xytext=(2, 2),
                    textcoords="offset points", fontsize=7.5, color=COLORS["allowed"],
                    va="bottom", ha="left")
        top = max(top, allowed)
    ram = C.gib(res.ram_bytes)
    if res.is_cuda:
        ram = None  # host RAM is not the limit of a GPU fill
    if ram is not None:
        if plotted and ram > RAM_FAR * max(top, 1e-9):
            notes.append("%s is off this scale" % res.limit_line_text())
            ram = None
        else:
            ax.axhline(ram, color=COLORS["ram"], ls=(0, (6, 3)), lw=1.3, zorder=2)
            ax.annotate(res.limit_line_text(), (0.01, ram),
                        xycoords=("axes fraction", "data"), xytext=(2, 2),
                        textcoords="offset points", fontsize=7.5, color=COLORS["ram"],
                        va="bottom", ha="left")
            top = max(top, ram)

    ts = [t for t in ser["t"] if t is not None] + ser["held_t"]
    if ser["stop"] is not None:
        ts.append(ser["stop"])
    t_max = max(ts) if ts else 1.0
    # A run that ended at once (a refused configuration) has one sample at t~0: show a 1 s axis.
    t_max = t_max if t_max > 0.05 else 1.0
    ax.set_xlim(0, t_max * 1.02)
    if top <= 0:
        top = 1.0
    ax.set_ylim(min(0.0, bottom * 1.1), top * 1.1)
    C.gib_axis(ax.yaxis, top, target=6)

    if ser["stop"] is not None:
        ax.axvline(ser["stop"], color=COLORS["stop"], ls="-.", lw=1.1, zorder=6)
        right_half = ser["stop"] > 0.5 * t_max
        ax.annotate("stopped by %s" % (ser["stop_by"] or "?"), (ser["stop"], 1.0),
                    xycoords=("data", "axes fraction"), xytext=(-3 if right_half else 3, 2),
                    textcoords="offset points", ha="right" if right_half else "left",
                    va="bottom", fontsize=8, color=COLORS["stop"], annotation_clip=False)
    elif ser["has_trace"] and not ser["ended"]:
        notes.append("trace ends without 'end' (run was stopped)")

    if notes:
        lines_at_top = ram is not None or (allowed is not None and allowed >= 0.8 * top)
        ax.text(0.02, 0.80 if lines_at_top else 0.96,
                "\n".join(notes), transform=ax.transAxes, ha="left", va="top", fontsize=7.5,
                color="#444444", style="italic",
                bbox=dict(facecolor="white", edgecolor="none", alpha=0.85, pad=1.5), zorder=8)
    if show_xlabel:
        ax.set_xlabel("time since start (s)")
    if show_ylabel:
        ax.set_ylabel("memory (GiB)")


def _handles(res, runs):
    from matplotlib.lines import Line2D
    series = [_series(r) for r in runs]
    out = [
        Line2D([], [], color=COLORS["footprint"], lw=1.8,
               label="process footprint (host)" if res.is_cuda else "process footprint"),
        Line2D([], [], color=COLORS["held"], lw=1.5, label="held by tensors"),
        Line2D([], [], color=COLORS["swap"], lw=1.5, label="swap growth (system, since start)"),
    ]
    if res.is_cuda and any(s["allocated"] for s in series):
        out.append(Line2D([], [], color=COLORS["allocated"], lw=1.3, label="device allocated (PyTorch)"))
    if res.is_cuda and any(s["reserved"] for s in series):
        out.append(Line2D([], [], color=COLORS["reserved"], lw=1.3, ls="--", label="device reserved (PyTorch)"))
    if res.limit_line_text() and not res.is_cuda:
        name = "sandbox limit" if isinstance(res.machine.get("sandbox"), dict) else "RAM"
        out.append(Line2D([], [], color=COLORS["ram"], lw=1.3, ls=(0, (6, 3)), label=name))
    if any(C.num(r.get("max_allowed_bytes")) is not None for r in runs):
        out.append(Line2D([], [], color=COLORS["allowed"], lw=1.6, ls=":", label="max allowed (PyTorch's error)"))
    out.append(Line2D([], [], color=COLORS["stop"], lw=1.1, ls="-.", label="stop"))
    return out


def _names(runs):
    counts = {}
    for r in runs:
        counts[r.get("label")] = counts.get(r.get("label"), 0) + 1
    return [C.run_name(r, counts[r.get("label")]) for r in runs]


def draw_grid(res, runs, out_dir=None):
    plt = C.pyplot()
    n = max(1, len(runs))
    ncols = 1 if n == 1 else 2 if n <= 4 else 3 if n <= 9 else 4
    nrows = int(math.ceil(n / float(ncols)))
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.9 * ncols + 0.6, 2.75 * nrows + 1.0),
                             layout="constrained", squeeze=False)
    fig.suptitle(res.title())
    names = _names(runs)
    for i, ax in enumerate(axes.flat):
        if i >= len(runs):
            ax.set_visible(False)
            continue
        row, col = divmod(i, ncols)
        below_empty = (i + ncols) >= len(runs)
        _plot_run(ax, runs[i], names[i], res, show_xlabel=below_empty, show_ylabel=(col == 0))
    if not runs:
        axes.flat[0].text(0.5, 0.5, "no runs in this folder", ha="center", va="center",
                          transform=axes.flat[0].transAxes)
    handles = _handles(res, runs)
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=min(6, len(handles)) if ncols >= 2 else 2, frameon=False)
    return C.save(fig, res.path, "traces", out_dir)


def draw_each(res, runs, out_dir=None):
    plt = C.pyplot()
    paths = []
    names = _names(runs)
    for i, run in enumerate(runs):
        fig, ax = plt.subplots(figsize=(7.5, 4.2), layout="constrained")
        fig.suptitle(res.title(), fontsize=10.5)
        _plot_run(ax, run, names[i], res, True, True)
        fig.legend(handles=_handles(res, [run]), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3,
                   frameon=False)
        safe = re.sub(r"[^A-Za-z0-9._+-]", "_", str(run.get("label")))
        idx = C.num(run.get("index"))
        name = "traces-%02d-%s" % (int(idx) if idx is not None else i + 1, safe)
        paths += C.save(fig, res.path, name, out_dir)
    return paths


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dir", help="a wmbench result folder")
    p.add_argument("--out", help="write the charts here instead of DIR/plots")
    C.add_format_option(p)
    args = p.parse_args(argv)
    C.apply_format_option(args)
    res = C.load_results(args.dir)
    if len(res.runs) > GRID_MAX:
        draw_each(res, res.runs, args.out)
    else:
        draw_grid(res, res.runs, args.out)
    return 0


if __name__ == "__main__":
    C.run_main(main)
