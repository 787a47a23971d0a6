#!/usr/bin/env python3
"""The matrix across torch releases: held memory per setting, coloured by who stopped.

    python3 plots/releases.py RELEASES_DIR [--out DIR]

Reads RELEASES_DIR/releases.json (written by `wmbench releases`) and each release's result folder
(summary.json, or runs/*.json when the summary is missing), and writes RELEASES_DIR/plots/releases.svg
and releases.png (or into --out), printing their paths. x: the releases in version order (as
releases.json lists them); one line per setting of the held memory (the median over repeats), each
point coloured by who stopped it; PyTorch's "max allowed" as a short black bar where it said one.
A setting that regressed between two neighbours is named in the title's note. Exit status 2 when
RELEASES_DIR has no readable releases.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

# Run under `python -I` (tools/python_isolated.h): common.py is found by this file's own path.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402


def load_releases(path):
    if not path or not os.path.isdir(path):
        raise C.ResultFolderError("%s: no such folder" % path)
    p = os.path.join(path, "releases.json")
    try:
        raw = C.read_bounded(p, C.MAX_JSON_BYTES)
        doc = json.loads(raw)
    except (OSError, ValueError) as e:
        raise C.ResultFolderError("%s: not a releases folder (%s)" % (path, e))
    if not isinstance(doc, dict) or not isinstance(doc.get("releases"), list):
        raise C.ResultFolderError("%s: releases.json has no list of releases" % path)
    return doc


def _folder_name_ok(name):
    return isinstance(name, str) and name not in ("", ".", "..") and "/" not in name


def draw(path, doc, out_dir=None):
    plt = C.pyplot()
    from matplotlib.lines import Line2D

    columns = []  # (x label, {label: stats})
    for rel in doc["releases"]:
        if not isinstance(rel, dict) or rel.get("state") != "done" or not _folder_name_ok(rel.get("folder")):
            continue
        try:
            folder = C.load_results(os.path.join(path, rel["folder"]), with_traces=False)
        except C.ResultFolderError as e:
            sys.stderr.write("warning: %s\n" % e)
            continue
        stats = {label: C.label_stats(runs) for label, runs in C.group_by_label(folder.runs)}
        name = "torch %s" % rel.get("torch_version", "?")
        if rel.get("model_revision"):
            name += "\n(%s)" % rel["model_revision"]
        columns.append((name, stats))
    labels = []
    for _, stats in columns:
        for label in stats:
            if label not in labels:
                labels.append(label)

    fig, ax = plt.subplots(figsize=(max(6.0, 1.8 * len(columns) + 3.5), 5.2))
    used, ymax = [], 0.0
    markers = "osD^vP*Xh<>"
    handles = []
    for i, label in enumerate(labels):
        xs, ys = [], []
        for x, (_, stats) in enumerate(columns):
            s = stats.get(label)
            if not s or s["held_median"] is None:
                continue
            y = C.gib(s["held_median"])
            xs.append(x)
            ys.append(y)
            who = s["stopped_by"]
            if who not in used:
                used.append(who)
            ax.scatter([x], [y], s=55, color=C.stopped_color(who), marker=markers[i % len(markers)], zorder=3,
                       edgecolors="black", linewidths=0.6)
            ymax = max(ymax, y)
            for limit in s["max_allowed"]:
                ax.plot([x - 0.12, x + 0.12], [C.gib(limit)] * 2, color="black", lw=1.4, zorder=4)
                ymax = max(ymax, C.gib(limit))
        if xs:
            ax.plot(xs, ys, color="#888888", lw=0.8, zorder=2)
            handles.append(Line2D([], [], color="#555555", marker=markers[i % len(markers)], ls="-", lw=0.8,
                                  label=label))
    ax.set_xticks(range(len(columns)))
    ax.set_xticklabels([c[0] for c in columns], fontsize=9)
    ax.set_xlim(-0.5, max(0.5, len(columns) - 0.5))
    C.gib_axis(ax.yaxis, ymax * 1.1 if ymax else 1.0)
    ax.set_ylabel("tensors held when it stopped (GiB)")
    scen = doc.get("scenario") if isinstance(doc.get("scenario"), dict) else {}
    title = "%s on %s across torch releases" % (scen.get("name", "?"), doc.get("device", "?"))
    regressed = []
    for n in doc.get("neighbours") or []:
        if isinstance(n, dict) and n.get("exit_code") == 1:
            regressed.append("%s -> %s" % (n.get("base_torch", "?"), n.get("new_torch", "?")))
    if regressed:
        title += "\nregression: " + ", ".join(regressed)
    ax.set_title(title, fontsize=11)
    for who in used:
        handles.append(Line2D([], [], color=C.stopped_color(who), marker="o", ls="", label=C.stopped_text(who)))
    handles.append(Line2D([], [], color="black", lw=1.4, label="max allowed (PyTorch)"))
    ax.legend(handles=handles, fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    ax.grid(axis="y", color="#DDDDDD", lw=0.6)
    return C.save(fig, path, "releases", out_dir)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dir", help="a wmbench releases folder (with releases.json)")
    p.add_argument("--out", help="write the chart here instead of DIR/plots")
    args = p.parse_args(argv)
    draw(args.dir, load_releases(args.dir), args.out)
    return 0


if __name__ == "__main__":
    C.run_main(main)
