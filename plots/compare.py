#!/usr/bin/env python3
"""Two result folders side by side: held memory per setting, base vs new.

    python3 plots/compare.py BASE NEW [--out DIR]

Writes NEW/plots/compare.svg and compare.png (or into --out) and prints their paths.
Grouped bars per label (base and new, coloured by side; the median with min-max error bars when a
label ran several times), each bar annotated with what it held and who stopped it; hatched, with
"was X" written on it, where the new run was stopped by something else than the base run. Labels
found in only one folder are shown with "not run". Dashed line at RAM.
Exit status 2 when a folder is missing or not a result folder.
"""

from __future__ import annotations

import argparse

# wmbench runs this script under `python -I` (tools/python_isolated.h), which puts neither this
# folder nor the current one on sys.path: common.py is found here, by this file's own path.
import os as _os
import sys as _sys
_sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
import common as C  # noqa: E402

SIDE_COLORS = {"base": "#9AA5B1", "new": "#0072B2"}
SIDE_HATCH_EDGE = {"base": "#333333", "new": "white"}


def _side_text(res):
    return "torch %s, %s" % (res.torch_version, res.date)


def draw(base, new, out_dir=None):
    plt = C.pyplot()
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    gb = dict(C.group_by_label(base.runs))
    gn = dict(C.group_by_label(new.runs))
    labels = [lbl for lbl, _ in C.group_by_label(base.runs)]
    labels += [lbl for lbl, _ in C.group_by_label(new.runs) if lbl not in gb]
    n = max(1, len(labels))

    fig_h = 2.3 + 0.78 * n
    fig, ax = plt.subplots(figsize=(10.5, fig_h), layout="constrained")
    same_machine = base.machine_text() == new.machine_text()
    head = "%s: torch %s (%s) vs torch %s (%s)" % (new.scenario, base.torch_version, base.date,
                                                   new.torch_version, new.date)
    if same_machine:
        sub = "both on %s" % new.machine_text()
    else:
        sub = "base on %s  |  new on %s" % (base.machine_text(), new.machine_text())
    fig.suptitle(head + "\n" + sub, fontsize=11)

    bar_h = 0.36
    texts = []
    xmax = 0.0
    changed_any = False
    for i, label in enumerate(labels):
        sides = (("base", gb.get(label), -bar_h / 2), ("new", gn.get(label), bar_h / 2))
        stats = {side: (C.label_stats(runs) if runs else None) for side, runs, _ in sides}
        for side, runs, dy in sides:
            y = i + dy
            st = stats[side]
            if st is None:
                texts.append((y, 0.0, 0.0, "not run in %s" % side, side, False))
                continue
            med = C.gib(st["held_median"]) or 0.0
            other = stats["new" if side == "base" else "base"]
            changed = (side == "new" and other is not None
                       and set(other["stopped_counts"]) != set(st["stopped_counts"]))
            changed_any = changed_any or changed
            ax.barh(y, med, height=bar_h * 0.92, color=SIDE_COLORS[side],
                    edgecolor=SIDE_HATCH_EDGE[side] if changed else "none",
                    hatch="///" if changed else None, linewidth=0, zorder=2)
            right = med
            inner = med
            if st["n"] > 1 and st["held_min"] is not None:
                lo, hi = C.gib(st["held_min"]), C.gib(st["held_max"])
                ax.errorbar(med, y, xerr=[[med - lo], [hi - med]], fmt="none",
                            ecolor="#222222", elinewidth=1.2, capsize=3, zorder=4)
                right = max(right, hi)
                inner = min(med, lo)
            xmax = max(xmax, right)
            who = st["stopped_by"]
            if st["mixed"]:
                rank = {k: j for j, k in enumerate(C.STOPPED_BY_ORDER)}
                who = ", ".join("%d× %s" % (c, k) for k, c in sorted(
                    st["stopped_counts"].items(), key=lambda kv: (-kv[1], rank.get(kv[0], 99))))
            text = "%s%s, %s" % ("median " if st["n"] > 1 else "",
                                 C.fmt_gib(st["held_median"], 1, none="n/a"), who)
            if st["n"] > 1 and not st["mixed"]:
                text += " (n=%d)" % st["n"]
            if changed:
                text += " (was %s)" % ("/".join(sorted(other["stopped_counts"]))
                                       if other["mixed"] else other["stopped_by"])
            if side == "new" and other is not None and other["held_median"] is not None \
                    and st["held_median"] is not None:
                delta = st["held_median"] - other["held_median"]
                if abs(delta) >= 0.05 * C.GIB:
                    text += "  ·  %s" % C.fmt_gib_signed(delta)
            texts.append((y, inner, right, text, side, changed))

    ram_b, ram_n = C.gib(base.ram_bytes), C.gib(new.ram_bytes)
    handles = [Patch(facecolor=SIDE_COLORS["base"], label="base: " + _side_text(base)),
               Patch(facecolor=SIDE_COLORS["new"], label="new: " + _side_text(new))]
    if changed_any:
        handles.append(Patch(facecolor=SIDE_COLORS["new"], edgecolor="white", hatch="///",
                             label="stopped by something else than in base"))
    rams = []
    if ram_b is not None and ram_n is not None and abs(ram_b - ram_n) < 0.01:
        rams.append((ram_n, "#333333", "RAM (%s)" % C.fmt_gib(new.ram_bytes, 0)))
    else:
        if ram_b is not None:
            rams.append((ram_b, "#777777", "RAM base (%s)" % C.fmt_gib(base.ram_bytes, 0)))
        if ram_n is not None:
            rams.append((ram_n, "#111111", "RAM new (%s)" % C.fmt_gib(new.ram_bytes, 0)))
    for value, color, text in rams:
        ax.axvline(value, color=color, ls=(0, (6, 3)), lw=1.5, zorder=1.5)
        handles.append(Line2D([], [], color=color, ls=(0, (6, 3)), lw=1.5, label=text))
        xmax = max(xmax, value)

    xmax = xmax or 1.0
    ax.set_yticks(range(n))
    ax.set_yticklabels(labels or ["(no runs)"])
    ax.set_ylim(n - 0.5, -0.5)
    ax.grid(axis="y", visible=False)
    C.gib_axis(ax.xaxis, xmax, target=14)
    ax.set_xlabel("memory held by tensors when the fill stopped (GiB)")
    ax.set_title("Held memory and who stopped the fill, per setting (upper bar: base, lower: new)",
                 loc="left", fontsize=9.5)

    # text: inside the bar when it fits, else right of it; the axis grows to make room
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    widest = 0.0
    placed = []
    for y, inner, right, text, side, bold in texts:
        t = ax.text(0, y, text, fontsize=8, va="center", fontweight="bold" if bold else None)
        bb = t.get_window_extent(renderer=renderer)
        t.remove()
        placed.append((y, inner, right, text, side, bold, bb.width))
    ax_w = ax.get_window_extent(renderer=renderer).width
    limit = xmax * 1.05
    for y, inner, right, text, side, bold, w in placed:
        w_data = w / ax_w * limit
        if inner > w_data + limit * 0.04:
            ax.text(inner - limit * 0.015, y, text, ha="right", va="center", fontsize=8,
                    color="white" if side == "new" else "#111111", zorder=7,
                    fontweight="bold" if bold else None,
                    bbox=dict(facecolor=SIDE_COLORS[side], edgecolor="none", pad=1.5)
                    if bold else None)
        else:
            ax.text(right + limit * 0.01, y, text, ha="left", va="center", fontsize=8,
                    color="#111111", zorder=7, fontweight="bold" if bold else None)
            widest = max(widest, right + limit * 0.02 + w_data)
    ax.set_xlim(0, max(limit, widest))
    ax.legend(handles=handles, loc="upper center",
              bbox_to_anchor=(0.5, -0.55 / max(0.8, fig_h - 1.8)),
              ncol=min(3, len(handles)), frameon=False)
    return C.save(fig, new.path, "compare", out_dir)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("base", help="the result folder to compare against")
    p.add_argument("new", help="the newer result folder")
    p.add_argument("--out", help="write the charts here instead of NEW/plots")
    C.add_format_option(p)
    args = p.parse_args(argv)
    C.apply_format_option(args)
    base = C.load_results(args.base, with_traces=False)
    new = C.load_results(args.new, with_traces=False)
    draw(base, new, args.out)
    return 0


if __name__ == "__main__":
    C.run_main(main)
