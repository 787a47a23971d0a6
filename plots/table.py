#!/usr/bin/env python3
"""Held memory per setting, as bars coloured by who stopped the fill.

    python3 plots/table.py RESULT_DIR [--out DIR]

Writes RESULT_DIR/plots/table.svg and table.png (or into --out) and prints their paths.
One bar per label (the median when a label ran several times, with min-max error bars and a dot per
run), dashed line at the machine's RAM, dotted line at MPS's recommended max, a black tick at each
run's "max allowed" from PyTorch's error, and the swap growth of each run written on its bar.
Exit status 2 when RESULT_DIR is missing or not a result folder.
"""

from __future__ import annotations

import argparse

# wmbench runs this script under `python -I` (tools/python_isolated.h), which puts neither this
# folder nor the current one on sys.path: common.py is found here, by this file's own path.
import os as _os
import sys as _sys
_sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
import common as C  # noqa: E402


def _luminance(hex_color):
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) / 255.0 for i in (0, 2, 4))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _swap_note(runs, stats):
    if stats["n"] == 1:
        return C.swap_text(runs[0])
    growth = [C.swap_growth(r) for r in runs]
    known = [x for x in growth if x is not None]
    if not known:
        return "swap n/a"
    grew = [x for x in known if x >= 64 * 1024 * 1024]
    if not grew:
        return "no swap growth"
    return "swap %s in %d of %d" % (C.fmt_gib_signed(max(grew)), len(grew), len(known))


_SHORT = {"pytorch": "PyTorch", "not_started": "not started"}


def _outcome_note(stats):
    if not stats["mixed"]:
        return ""
    rank = {s: i for i, s in enumerate(C.STOPPED_BY_ORDER)}
    parts = ["%d× %s" % (n, _SHORT.get(s, s)) for s, n in sorted(stats["stopped_counts"].items(),
                                                   key=lambda kv: (-kv[1], rank.get(kv[0], 99)))]
    return ", ".join(parts)


def draw(res, out_dir=None):
    plt = C.pyplot()
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    groups = C.group_by_label(res.runs)
    n = max(1, len(groups))
    fig_h = 1.9 + 0.52 * n
    fig, ax = plt.subplots(figsize=(10.5, fig_h), layout="constrained")
    fig.suptitle(res.title())

    ram = C.gib(res.ram_bytes)
    rec = C.gib(res.recommended_max_bytes)
    bar_h = 0.62
    xmax_hint = max([C.gib(r.get("held_bytes")) or 0.0 for r in res.runs] +
                    [v for v in (ram, rec) if v is not None] + [1.0])
    used_outcomes = []
    xmax_data = 0.0
    texts = []          # (y, x where inside text ends, x after bar and marks, text, color)
    stubs = []

    for i, (label, runs) in enumerate(groups):
        y = i
        st = C.label_stats(runs)
        if st["stopped_by"] not in used_outcomes:
            used_outcomes.append(st["stopped_by"])
        for r in runs:
            s = r.get("stopped_by") if isinstance(r.get("stopped_by"), str) else "unknown"
            if s not in used_outcomes:
                used_outcomes.append(s)
        color = C.stopped_color(st["stopped_by"])
        med = C.gib(st["held_median"])
        width = med if med is not None else 0.0
        ax.barh(y, width, height=bar_h, color=color, edgecolor="none", zorder=2)
        if width <= 0.0:
            # nothing held (or not known): a stub in the outcome's colour so the legend still reads
            stubs.append((y, color))
        right = width
        inner_end = width
        if st["n"] > 1 and st["held_min"] is not None:
            lo, hi = C.gib(st["held_min"]), C.gib(st["held_max"])
            ax.errorbar(width, y, xerr=[[width - lo], [hi - width]], fmt="none", ecolor="#222222",
                        elinewidth=1.2, capsize=4, zorder=4)
            for j, r in enumerate(runs):
                h = C.gib(r.get("held_bytes"))
                if h is None:
                    continue
                s = r.get("stopped_by") if isinstance(r.get("stopped_by"), str) else "unknown"
                ax.plot(h, y + (j - (len(runs) - 1) / 2.0) * 0.14, "o", ms=5.5, mfc=C.stopped_color(s),
                        mec="#222222", mew=0.9, zorder=5)
            right = max(right, hi)
            inner_end = min(width, lo) - xmax_hint * 0.015     # clear of the dots
        for a in st["max_allowed"]:
            a_g = C.gib(a)
            ax.vlines(a_g, y - bar_h / 2 - 0.1, y + bar_h / 2 + 0.1, colors="#111111",
                      linewidth=2.6, zorder=6)
            right = max(right, a_g)
        xmax_data = max(xmax_data, right)

        held_txt = C.fmt_gib(st["held_median"], 1, none="held n/a")
        if st["n"] > 1:
            held_txt = "median " + held_txt
        parts = [held_txt, _swap_note(runs, st)]
        signals = sorted({r["guard_signal"] for r in runs if isinstance(r.get("guard_signal"), str)})
        if signals:  # which guard signal stopped it (issue 41; older records have none)
            parts.append("guard: " + ", ".join(signals))
        if res.is_cuda and st["n"] == 1:
            # device memory beside the host footprint (the run record's counts at the stop)
            r0 = runs[0]
            if med:
                parts[0] = "allocated " + parts[0]
            if C.num(r0.get("driver_bytes")) is not None:
                parts.insert(1, "reserved " + C.fmt_gib(r0.get("driver_bytes"), 2))
            if C.num(r0.get("peak_footprint_bytes")) is not None:
                parts.insert(-1, "host footprint " + C.fmt_gib(r0.get("peak_footprint_bytes"), 2))
        if med is None:
            parts = ["held n/a"] + parts[1:]
        elif width <= 0.0:
            detail = C.stopped_text(st["stopped_by"])
            parts = ["%s at start (nothing held)" % detail] + parts[1:]
        texts.append((y, inner_end, right, "  ·  ".join(parts), color))

    ax.set_yticks(range(n))
    ylabels = []
    for lbl, rs in groups:
        if len(rs) > 1:
            note = _outcome_note(C.label_stats(rs))
            lbl = "%s\n%d runs%s" % (lbl, len(rs), (": " + note) if note else "")
        ylabels.append(lbl)
    ax.set_yticklabels(ylabels or ["(no runs)"])
    ax.invert_yaxis()
    ax.set_ylim(n - 0.5, -0.5)
    ax.grid(axis="y", visible=False)

    handles = []
    cuda = res.machine.get("device") == "cuda"
    if cuda:
        ram = None  # the host's RAM says nothing about a GPU's memory; the device total is drawn below
    if ram is not None:
        ax.axvline(ram, color="#333333", linestyle=(0, (6, 3)), linewidth=1.5, zorder=1.5)
        handles.append(Line2D([], [], color="#333333", linestyle=(0, (6, 3)), linewidth=1.5,
                              label=("sandbox limit (%s)" if isinstance(res.machine.get("sandbox"), dict) else "RAM (%s)") % C.fmt_gib(res.ram_bytes, 0)))
    if rec is not None:
        ax.axvline(rec, color="#333333", linestyle=":", linewidth=1.5, zorder=1.5)
        handles.append(Line2D([], [], color="#333333", linestyle=":", linewidth=1.5,
                              label=("GPU memory, the device's total (%s)" if cuda else "recommended max (%s)") % C.fmt_gib(res.recommended_max_bytes, 2)))
    if any(C.label_stats(rs)["max_allowed"] for _, rs in groups):
        handles.append(Line2D([], [], color="#111111", marker="|", linestyle="none",
                              markersize=13, markeredgewidth=2.6,
                              label="max allowed (from PyTorch's error)"))
    if any(len(rs) > 1 for _, rs in groups):
        handles.append(Line2D([], [], color="#222222", marker="o", linestyle="-", ms=5,
                              mfc="white", label="single runs, min-max"))

    xmax = max([xmax_data] + [v for v in (ram, rec) if v is not None]) or 1.0
    ax.set_xlim(0, xmax * 1.06)
    for y, color in stubs:
        ax.barh(y, xmax * 0.008, height=bar_h, color=color, edgecolor="none", zorder=2)
    C.gib_axis(ax.xaxis, xmax, target=14)
    ax.set_xlabel("device memory allocated by tensors when the fill stopped (GiB)" if cuda else
                  "memory held by tensors when the fill stopped (GiB)")
    ax.set_title("Who stopped the fill, and how much it held", loc="left")

    # text on (or next to) each bar; measured so that it never spills over the bar's end
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    inv = ax.transData.inverted()
    for y, width, right, text, color in texts:
        t = ax.text(width - xmax * 0.01, y, text, ha="right", va="center", fontsize=8.5,
                    color="white" if _luminance(color) < 0.55 else "#111111", zorder=7)
        bb = t.get_window_extent(renderer=renderer)
        (x0, _), (x1, _) = inv.transform([(bb.x0, bb.y0), (bb.x1, bb.y1)])
        if x1 - x0 > width - xmax * 0.03:
            t.remove()
            t = ax.text(max(right, xmax * 0.008) + xmax * 0.012, y, text, ha="left", va="center", fontsize=8.5,
                        color="#111111", zorder=7)
        t.set_clip_on(False)

    order = [s for s in C.STOPPED_BY_ORDER if s in used_outcomes] + \
            [s for s in used_outcomes if s not in C.STOPPED_BY_ORDER]
    patches = [Patch(facecolor=C.stopped_color(s), label="stopped by " + C.stopped_text(s))
               for s in order]
    legend_items = patches + handles
    ax.legend(handles=legend_items, loc="upper center", bbox_to_anchor=(0.5, -0.55 / max(0.8, fig_h - 1.45)),
              ncol=min(3, len(legend_items)), frameon=False)
    return C.save(fig, res.path, "table", out_dir)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dir", help="a wmbench result folder")
    p.add_argument("--out", help="write the charts here instead of DIR/plots")
    C.add_format_option(p)
    args = p.parse_args(argv)
    C.apply_format_option(args)
    res = C.load_results(args.dir, with_traces=False)
    draw(res, args.out)
    return 0


if __name__ == "__main__":
    C.run_main(main)
