#!/usr/bin/env python3
"""Where each setting stops, across torch releases or across Macs: one chart per series.

    python3 plots/history.py [--out DIR] [--by date|torch|machine] [--scenario NAME] DIR...

The folders are grouped as `wmbench history` groups them: one series per scenario and device (mps,
mps-model, cuda and cpu are never mixed), ordered by date (the default), torch version, or machine
(RAM, then chip). Each series gives OUT/history-<scenario>-<device>.svg and .png (OUT defaults to
the current folder), and the paths are printed.

One panel per setting; one bar per folder: the memory held when the fill stopped (the median when a
setting ran several times), coloured by who stopped it, a black tick at PyTorch's "max allowed",
an open triangle at the memory held when the system's swap began to grow (from the run's trace:
the first sample with 64 MiB more swap than at the start), and a dashed tick at the folder's RAM
(or sandbox limit) when it is on the panel's scale. The title says what was compared and what
stayed the same. Exit status 2 when a folder is missing or not a result folder.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import statistics

# wmbench runs this script under `python -I` (tools/python_isolated.h), which puts neither this
# folder nor the current one on sys.path: common.py is found here, by this file's own path.
import os as _os
import sys as _sys
_sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
import common as C  # noqa: E402

SWAP_BEGAN = 64 * 1024 * 1024


def torch_key(version):
    """'2.11.0+cu130' -> ((2, 11, 0), 1); '2.12.0.dev2026' -> ((2, 12, 0), 0); '?' first."""
    m = re.match(r"(\d+(?:\.\d+)*)(.*)", version or "")
    if not m:
        return (0, (), 0)
    parts = tuple(int(x) for x in m.group(1).split("."))
    rest = m.group(2).split("+")[0]
    return (1, parts, 0 if rest else 1)


def ram_of(res):
    """The Mac's RAM: the modelled Mac's for mps-model, else machine.json's ram_bytes."""
    model = res.machine.get("model")
    if isinstance(model, dict) and C.num(model.get("mac_ram_bytes")):
        return C.num(model.get("mac_ram_bytes"))
    return C.num(res.machine.get("ram_bytes"))


def short_chip(chip):
    """'Intel(R) Xeon(R) Processor' -> 'Intel Xeon'; 'Apple M5 Pro' stays."""
    chip = re.sub(r"\((R|TM)\)", "", chip)
    chip = re.sub(r"\b(Processor|CPU)\b", "", chip)
    return " ".join(chip.split()) or "?"


def machine_name(res, sep=" "):
    model = res.machine.get("model")
    if isinstance(model, dict) and C.num(model.get("mac_ram_bytes")):
        return "model of %s Mac%son %s" % (C.fmt_gib(model.get("mac_ram_bytes"), 0), sep, short_chip(res.chip))
    ram = ram_of(res)
    return "%s,%s%s" % (short_chip(res.chip), sep, C.fmt_gib(ram, 0)) if ram is not None else short_chip(res.chip)


def device_of(res):
    d = res.summary.get("device") or res.machine.get("device")
    return d if isinstance(d, str) and d else "?"


def sort_folders(folders, by):
    def date_key(r):
        started = r.machine.get("started_utc")
        return (started if isinstance(started, str) else r.date, r.path)
    if by == "torch":
        return sorted(folders, key=lambda r: (torch_key(r.torch_version), date_key(r)))
    if by == "machine":
        return sorted(folders, key=lambda r: (ram_of(r) or 0, machine_name(r), date_key(r)))
    return sorted(folders, key=date_key)


def swap_began_held(run):
    """Held bytes when the system's swap first grew by 64 MiB during the run, or None."""
    tr = run.get("_trace")
    if not tr:
        return None
    swap0 = None
    steps = sorted((C.num(e.get("t")), C.num(e.get("held"))) for e in tr["events"]
                   if e.get("kind") == "step" and C.num(e.get("t")) is not None
                   and C.num(e.get("held")) is not None)
    for s in tr["samples"]:
        sw = C.num(s.get("swap_used"))
        if sw is None:
            continue
        if swap0 is None:
            swap0 = sw
            continue
        if sw - swap0 >= SWAP_BEGAN:
            t = C.num(s.get("t"))
            held = [h for (ts, h) in steps if ts <= t]
            if held:
                return held[-1]
            return C.num(s.get("held"))
    return None


def folder_label(res, by, varying):
    """The x tick of a folder: what the order is by first, then what else varies."""
    parts = {"torch": "torch " + res.torch_version, "date": res.date,
             "machine": machine_name(res, "\n"), "child": res.child + " child"}
    first = {"torch": "torch", "machine": "machine", "date": "date"}[by]
    lines = [parts[first]] + [parts[k] for k in ("torch", "date", "machine", "child")
                              if k != first and k in varying]
    return "\n".join(lines)


def varying_facts(folders):
    facts = {"torch": {f.torch_version for f in folders}, "date": {f.date for f in folders},
             "machine": {machine_name(f) for f in folders}, "child": {f.child for f in folders}}
    return {k for k, v in facts.items() if len(v) > 1}


def title_of(scenario, device, folders, by, varying):
    n = len(folders)
    what = {"torch": "torch releases", "machine": "machines", "date": "runs"}[by]
    if by == "date":
        what = "torch releases" if varying == {"torch", "date"} else \
               "machines" if "machine" in varying and "torch" not in varying else "runs"
    head = "%s on %s: held memory per setting across %d %s" % (scenario, device, n, what) \
        if n > 1 else "%s on %s: held memory per setting (one folder)" % (scenario, device)
    same = []
    f0 = folders[0]
    if "machine" not in varying:
        same.append(machine_name(f0))
    if "torch" not in varying:
        same.append("torch " + f0.torch_version)
    if "child" not in varying:
        same.append(f0.child + " child")
    if n == 1:
        same.append(f0.date)
    sub = ("every folder: " if n > 1 else "") + ", ".join(same) if same else ""
    if device == "mps-model":
        sub += "  (mps-model: a MODEL of a Mac's MPS limits, not a Mac)"
    return head, sub


def draw_series(scenario, device, folders, by, out_dir):
    plt = C.pyplot()
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    labels = []
    for f in folders:
        for label, _runs in C.group_by_label(f.runs):
            if label not in labels:
                labels.append(label)
    n = max(1, len(labels))
    ncols = min(3, n)
    nrows = int(math.ceil(n / float(ncols)))
    panel_w = max(3.6, 0.95 * len(folders) + 1.6)
    fig, axes = plt.subplots(nrows, ncols, figsize=(panel_w * ncols + 0.4, 3.1 * nrows + 1.6),
                             layout="constrained", squeeze=False)
    varying = varying_facts(folders)
    head, sub = title_of(scenario, device, folders, by, varying)
    fig.suptitle(head + "\n" + sub)
    ticks = [folder_label(f, by, varying) for f in folders]
    used = []
    any_allowed = any_swap = any_ram = False
    for i, ax in enumerate(axes.flat):
        if i >= len(labels):
            ax.set_visible(False)
            continue
        label = labels[i]
        top = 0.0
        bars = []
        for x, f in enumerate(folders):
            runs = [r for r in f.runs if r.get("label") == label]
            if not runs:
                ax.text(x, 0, "not run", rotation=90, ha="center", va="bottom", fontsize=8,
                        color="#666666", style="italic")
                continue
            st = C.label_stats(runs)
            if st["stopped_by"] not in used:
                used.append(st["stopped_by"])
            held = C.gib(st["held_median"]) or 0.0
            ax.bar(x, max(held, 0.0), width=0.62, color=C.stopped_color(st["stopped_by"]),
                   edgecolor="none", zorder=2)
            text = C.fmt_gib(st["held_median"], 2, none="n/a") if held > 0 else \
                "nothing held\n(%s)" % st["stopped_by"]
            if st["mixed"]:
                text += "\n" + ", ".join("%d× %s" % (k, s) for s, k in sorted(st["stopped_counts"].items()))
            bars.append((x, held, text, C.stopped_color(st["stopped_by"])))
            top = max(top, held)
            for a in st["max_allowed"]:
                ax.hlines(C.gib(a), x - 0.38, x + 0.38, colors="#111111", linewidth=2.4, zorder=6)
                top = max(top, C.gib(a))
                any_allowed = True
            began = [b for b in (swap_began_held(r) for r in runs) if b is not None]
            if began:
                b = C.gib(statistics.median(began))
                # beside the bar, pointing at the height (clear of the value written in the bar)
                ax.plot(x + 0.40, b, marker="<", ms=8, mfc="white", mec="#111111", mew=1.3, zorder=8)
                any_swap = True
        # each folder's RAM (or sandbox limit) as a dashed tick, when it is on this panel's scale
        for x, f in enumerate(folders):
            ram = C.gib(f.ram_bytes) if not f.is_cuda else None
            if ram is not None and ram <= 1.6 * max(top, 1e-9):
                ax.hlines(ram, x - 0.45, x + 0.45, colors="#333333", linestyles=(0, (4, 2)),
                          linewidth=1.3, zorder=5)
                top = max(top, ram)
                any_ram = True
        # the value inside the bar's top when it is tall enough, else just above it; a bar of
        # nothing gets a stub in its outcome's colour
        for x, held, text, color in bars:
            if held <= 0:
                ax.bar(x, max(top, 1.0) * 0.02, width=0.62, color=color, edgecolor="none", zorder=2)
            inside = held > 0.18 * max(top, 1e-9)
            ax.annotate(text, (x, held), xytext=(0, -3 if inside else 3), textcoords="offset points",
                        ha="center", va="top" if inside else "bottom", fontsize=7.5, zorder=7,
                        color="white" if inside and color not in ("#F0E442", "#56B4E9") else "#111111")
        ax.set_title(label, loc="left")
        ax.set_xticks(range(len(folders)))
        ax.set_xticklabels(ticks, fontsize=7.5)
        ax.set_xlim(-0.6, len(folders) - 0.35)
        if top > 0:
            ax.set_ylim(0, top * 1.22)
            C.gib_axis(ax.yaxis, top * 1.2, target=6)
        else:
            ax.set_ylim(0, 1.0)
            ax.set_yticks([0])  # nothing held anywhere: no scale to read
        ax.grid(axis="x", visible=False)
        if i % ncols == 0:
            ax.set_ylabel("held when stopped (GiB)")
    order = [s for s in C.STOPPED_BY_ORDER if s in used] + [s for s in used if s not in C.STOPPED_BY_ORDER]
    handles = [Patch(facecolor=C.stopped_color(s), label="stopped by " + C.stopped_text(s)) for s in order]
    if any_allowed:
        handles.append(Line2D([], [], color="#111111", lw=2.4, label="max allowed (from PyTorch's error)"))
    if any_swap:
        handles.append(Line2D([], [], color="#111111", marker="<", mfc="white", ls="none", ms=8,
                              label="held when swap began to grow"))
    if any_ram:
        sandbox = any(isinstance(f.machine.get("sandbox"), dict) for f in folders)
        handles.append(Line2D([], [], color="#333333", ls=(0, (4, 2)), lw=1.3,
                              label="sandbox limit / RAM" if sandbox else "RAM"))
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=min(4, len(handles)) or 1, frameon=False)
    safe = re.sub(r"[^A-Za-z0-9._+-]", "_", "%s-%s" % (scenario, device))
    return C.save(fig, None, "history-" + safe, out_dir)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dirs", nargs="+", metavar="DIR", help="wmbench result folders")
    p.add_argument("--out", default=".", help="folder for the charts (default: the current folder)")
    p.add_argument("--by", choices=("date", "torch", "machine"), default="date",
                   help="order of each series (default: date)")
    p.add_argument("--scenario", help="draw only this scenario (the other folders are named and skipped)")
    C.add_format_option(p)
    args = p.parse_args(argv)
    C.apply_format_option(args)
    groups, keys = {}, []
    for d in args.dirs:
        res = C.load_results(d)
        if args.scenario and res.scenario != args.scenario:
            print("skipped: %s (scenario %s)" % (d, res.scenario))
            continue
        key = (res.scenario, device_of(res))
        if key not in groups:
            groups[key] = []
            keys.append(key)
        groups[key].append(res)
    if not keys:
        raise C.ResultFolderError("no folder of scenario %s among the %d given" % (args.scenario, len(args.dirs)))
    for key in keys:
        draw_series(key[0], key[1], sort_folders(groups[key], args.by), args.by, args.out)
    return 0


if __name__ == "__main__":
    C.run_main(main)
