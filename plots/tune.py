#!/usr/bin/env python3
"""A tune folder's probes: ratio against held memory, coloured by who stopped.

    python3 plots/tune.py TUNE_DIR [--out DIR]

Reads TUNE_DIR/tune.json (written by `wmbench tune`) and writes TUNE_DIR/plots/tune.svg and
tune.png (or into --out), printing their paths. One point per run: HIGH ratio on x; on y the bytes
of tensors the fill held when it stopped (for a job, `--command`, whose held bytes are unknown:
its peak footprint); colour = who stopped; a ring around each run that was not clean; each run's
"max allowed" (PyTorch's limit) as a short line; swap growth written beside runs that swapped; the
answer as a vertical line. Exit status 2 when TUNE_DIR has no readable tune.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

# wmbench runs this script under `python -I` (tools/python_isolated.h), which puts neither this
# folder nor the current one on sys.path: common.py is found here, by this file's own path.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402

_MIB = 1024.0 * 1024.0


def load_tune(path):
    p = os.path.join(path or "", "tune.json")
    if not path or not os.path.isdir(path):
        raise C.ResultFolderError("%s: no such folder" % path)
    try:
        with open(p, encoding="utf-8") as f:
            tune = json.load(f)
    except (OSError, ValueError) as e:
        raise C.ResultFolderError("%s: not a tune folder (%s)" % (path, e))
    if not isinstance(tune, dict) or not isinstance(tune.get("probes"), list):
        raise C.ResultFolderError("%s: tune.json has no list of probes" % path)
    return tune


def _y(probe):
    held = C.num(probe.get("held_bytes"))
    if held:
        return held, "held"
    foot = C.num(probe.get("peak_footprint_bytes"))
    return foot, "footprint"


def draw(path, tune, out_dir=None):
    plt = C.pyplot()
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    probes = [p for p in tune["probes"] if isinstance(p, dict) and C.num(p.get("high")) is not None]
    fig, ax = plt.subplots(figsize=(8.5, 5.0))
    used, kinds, ymax = [], set(), 0.0
    for p in probes:
        x = C.num(p.get("high"))
        y, kind = _y(p)
        if y is None:
            continue
        kinds.add(kind)
        who = p.get("stopped_by") or "?"
        if who not in used:
            used.append(who)
        ax.scatter([x], [C.gib(y)], s=60, color=C.stopped_color(who), zorder=3,
                   edgecolors="black" if not p.get("clean") else "none", linewidths=1.2)
        ymax = max(ymax, C.gib(y))
        limit = C.num(p.get("max_allowed_bytes"))
        if limit:
            ax.plot([x - 0.015, x + 0.015], [C.gib(limit)] * 2, color="black", lw=1.5, zorder=4)
            ymax = max(ymax, C.gib(limit))
        growth = C.num(p.get("swap_growth_bytes")) or 0
        if growth >= C.num(tune.get("tolerance_bytes") or 0) and growth > 0:
            ax.annotate("swap +%.0f MiB" % (growth / _MIB), (x, C.gib(y)), textcoords="offset points",
                        xytext=(6, 6), fontsize=8, color="#D55E00")
    answer = tune.get("answer") if isinstance(tune.get("answer"), dict) else None
    if answer and C.num(answer.get("high")) is not None:
        ax.axvline(C.num(answer["high"]), color="#009E73", ls="--", lw=1.2)
    ax.set_xlabel("PYTORCH_MPS_HIGH_WATERMARK_RATIO (LOW by the tune's rule)")
    what = "held memory" if kinds != {"footprint"} else "peak footprint (the job's whole process tree)"
    ax.set_ylabel("%s (GiB)" % what)
    top = ymax * 1.15 if ymax else 1.0
    ax.set_ylim(0, top)
    C.gib_axis(ax.yaxis, top)
    said = tune.get("said") or ""
    title = "wmbench tune — " + (said.split("\n")[0][:90] if said else "no answer yet")
    ax.set_title(title, fontsize=10)
    handles = [Patch(facecolor=C.stopped_color(s), label="stopped by " + C.stopped_text(s)) for s in used]
    handles.append(Line2D([], [], color="black", lw=1.5, label="max allowed (PyTorch's limit)"))
    handles.append(Line2D([], [], marker="o", color="white", markeredgecolor="black", markersize=8,
                          label="not clean (swap grew past the tolerance, or not a clean end)"))
    if answer:
        handles.append(Line2D([], [], color="#009E73", ls="--", label="answer"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False, fontsize=8)
    return C.save(fig, path, "tune", out_dir)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dir", help="a wmbench tune folder (with tune.json)")
    p.add_argument("--out", help="write the charts here instead of DIR/plots")
    C.add_format_option(p)
    args = p.parse_args(argv)
    C.apply_format_option(args)
    draw(args.dir, load_tune(args.dir), args.out)
    return 0


if __name__ == "__main__":
    C.run_main(main)
