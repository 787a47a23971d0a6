#!/usr/bin/env python3
"""Write the two hand-made example result folders next to this script.

    python3 tests/data/example-results/make_examples.py

The values come from write-up 004's table (Apple M5 Pro, 48 GB, macOS 26.5.2, PyTorch 2.14.0);
the traces are synthesised with a small, seeded model of a 512 MiB random-data fill (same output
every time). The format follows docs/ARCHITECTURE.md. Standard library only.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import random
import shutil
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
STEP = 512 * MiB
RAM = 48 * GiB
RECOMMENDED_MAX = 40200896512          # 37.44 GiB, MTLDevice.recommendedMaxWorkingSetSize
OTHER = 448 * KiB                      # "other allocations: 448.00 KiB"
PROCESS_BASE = int(0.29 * GiB)         # libtorch + Metal set-up, before the first tensor
PAGE = 16 * KiB

ENV = {
    "default": {},
    "high-0.0": {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0.0"},
    "high-1.0-low-1.0": {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "1.0",
                         "PYTORCH_MPS_LOW_WATERMARK_RATIO": "1.0"},
    "high-0.8-low-0.8": {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0.8",
                         "PYTORCH_MPS_LOW_WATERMARK_RATIO": "0.8"},
    "high-0.5-low-0.5": {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0.5",
                         "PYTORCH_MPS_LOW_WATERMARK_RATIO": "0.5"},
    "high-0.8-alone": {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0.8"},
}
LABELS = list(ENV)


def g(x):
    return int(round(x * GiB))


def fmt2(n):
    """PyTorch's c10 format_size: 2 decimals, binary units."""
    for unit, size in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if n > size or (unit == "KiB" and n > 1024):
            return "%.2f %s" % (n / size, unit)
    return "%d bytes" % n


def utc(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def oom_text(held, limit):
    return ("MPS backend out of memory (MPS allocated: %s, other allocations: %s, max allowed: %s). "
            "Tried to allocate %s on shared pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable "
            "upper limit for memory allocations (may cause system failure)."
            % (fmt2(held), fmt2(OTHER), fmt2(limit), fmt2(STEP)))


def parsed_limit(limit):
    """max_allowed_bytes as the error parser reads it back from the 2-decimal text."""
    return int(round(float(fmt2(limit).split()[0]) * GiB))


# ---------------------------------------------------------------------------------------------
# one run, simulated

def simulate(spec, rng):
    """spec: stopped_by, steps, swap_before/after (bytes), thr (GiB: footprint where swap starts to
    grow), check (guard check interval, s), limit (bytes, for pytorch), budget (bytes)."""
    by = spec["stopped_by"]
    t_hello = 0.30 + rng.uniform(0.0, 0.08)
    t = t_hello + 0.10 + rng.uniform(0.0, 0.04)     # first MPS call
    steps = spec["steps"]
    thr = spec.get("thr")

    # step completion times; a step slows down once the footprint is past the swap threshold
    done = []
    starts = []
    for i in range(steps):
        fp_after = PROCESS_BASE + (i + 1) * STEP
        over = max(0.0, fp_after / GiB - thr) if thr is not None else 0.0
        d = rng.uniform(0.21, 0.27) * (1.0 + 1.6 * over)
        starts.append(t)
        t += d
        done.append(t)
    t_last = done[-1] if done else t

    before, after = spec.get("swap_before", 0), spec.get("swap_after", spec.get("swap_before", 0))
    budget = spec.get("budget", 2 * GiB)
    check = spec.get("check", 0.1)

    if by == "guard":
        # The guard checks every `check` seconds from the spawn and fires at the first check after
        # the last step, before the next step ends: stretch the steps a little so that a check
        # falls shortly after the last one.
        gap = rng.uniform(0.03, min(0.4, 0.6 * check)) if check > 0.1 else rng.uniform(0.01, 0.09)
        t_stop = math.ceil((t_last + gap) / check) * check
        first = starts[0]
        scale = (t_stop - gap - first) / (t_last - first)
        starts = [first + (x - first) * scale for x in starts]
        done = [first + (x - first) * scale for x in done]
        t_last = done[-1]
        t_exit = t_stop + rng.uniform(1.1, 1.7)          # SIGTERM, pages freed, process gone
    elif by == "pytorch":
        t_stop = t_last + rng.uniform(0.03, 0.06)        # next 512 MiB allocation refused
        # freeing tens of GiB takes a moment: the next 0.5 s sample still sees the process
        t_exit = max(t_stop + rng.uniform(0.18, 0.30), math.ceil(t_stop / 0.5) * 0.5 + 0.05)
    else:  # config: fails at the first MPS allocation
        t_stop = t
        t_exit = t + rng.uniform(0.10, 0.16)

    def held_at(x):
        n = sum(1 for d in done if d <= x)
        return n * STEP

    def footprint_at(x):
        if x < t_hello:
            return int(0.02 * GiB + x / t_hello * 0.10 * GiB)
        fp = PROCESS_BASE + held_at(x)
        n = sum(1 for d in done if d <= x)
        if n < steps and x >= starts[n] and x < t_stop:       # a step in flight
            frac = (x - starts[n]) / (done[n] - starts[n])
            fp += int(frac * STEP)
        if by == "guard" and x > t_stop:                     # being torn down
            fp = int(fp * max(0.15, 1.0 - (x - t_stop) / (t_exit - t_stop)))
        return fp

    # swap: grows with the integral of the footprint above the threshold, scaled so that the
    # growth at the stop is `at_stop` and reaches `after` during the tear-down
    def over_integral(x):
        total, step = 0.0, 0.01
        y = 0.0
        while y < min(x, t_stop):
            total += max(0.0, footprint_at(y) / GiB - thr) * step if thr is not None else 0.0
            y += step
        return total

    growth_total = after - before
    if by == "guard":
        at_stop = spec.get("swap_at_stop", growth_total - 0.35 * GiB)
        a_stop = over_integral(t_stop) or 1.0

        def swap_at(x):
            if x <= t_stop:
                return before + int(at_stop * over_integral(x) / a_stop)
            frac = min(1.0, (x - t_stop) / (t_exit - t_stop) * 1.6)
            return before + int(at_stop + (growth_total - at_stop) * frac)

        # the guard must not have fired at the check before
        prev = swap_at(t_stop - check) - before
        assert prev <= budget, (spec["label"], prev / GiB)
        assert at_stop > budget, (spec["label"], at_stop / GiB)
    else:
        def swap_at(x):
            return before

    other_apps = RAM - (thr * GiB if thr is not None else 40 * GiB) - 2.5 * GiB
    swapouts0 = rng.randint(900000, 1300000)
    swapins0 = rng.randint(200000, 400000)

    lines = [{"type": "start", "utc": None, "interval": 0.5, "label": spec["label"],
              "pid": spec["pid"], "device": "mps"}]
    samples = []
    events = []
    k = 0
    while True:
        ts = round(0.5 * k + (0.001 if k == 0 else rng.uniform(0.001, 0.006)), 3)
        if ts >= t_exit:
            break
        fp = footprint_at(ts)
        sw = swap_at(ts)
        held = held_at(ts) if ts >= t_hello else None
        started = ts >= t_hello and by != "config"
        free = RAM - other_apps - fp - (sw - before) * 0.2
        level = max(4.0, min(99.0, 100.0 * free / RAM + rng.uniform(-0.6, 0.6)))
        if sw > before:
            level = min(level, rng.uniform(5.0, 9.0))
        samples.append({
            "type": "sample", "t": ts, "footprint": fp, "swap_used": sw,
            "level": round(level, 1),
            "held": held if started else None,
            "allocated": held if started else None,
            "driver": (held + OTHER) if started and held else (0 if started else None),
            "swapins": swapins0 + (sw - before) // PAGE // 40,
            "swapouts": swapouts0 + (sw - before) // PAGE,
            "cgroup_usage": None, "cgroup_swap": None,
        })
        k += 1
    for i, d in enumerate(done):
        events.append({"type": "event", "t": round(d, 3), "kind": "step", "index": i + 1,
                       "held": (i + 1) * STEP})
    events.append({"type": "event", "t": round(t_stop, 3), "kind": "stop", "by": by,
                   "detail": None})
    merged = sorted(samples + events, key=lambda o: o["t"])
    lines += merged
    if by != "guard":
        lines.append({"type": "end"})

    return {
        "lines": lines, "samples": samples, "t_stop": t_stop, "t_exit": t_exit,
        "held": steps * STEP,
        "swap_at_stop": swap_at(t_stop) - before,
        "peak_footprint": max(s["footprint"] for s in samples),
        "swap_peak": max([s["swap_used"] for s in samples] + [after]),
    }


# ---------------------------------------------------------------------------------------------
# a folder

def gib2(n):
    return "%.2f GiB" % (n / GiB)


def describe_env(env):
    hi = env.get("PYTORCH_MPS_HIGH_WATERMARK_RATIO")
    lo = env.get("PYTORCH_MPS_LOW_WATERMARK_RATIO")
    parts = []
    if hi is not None and lo is not None:
        parts.append("HIGH %s, LOW %s" % (hi, lo))
    elif hi is not None:
        parts.append("HIGH %s alone" % hi)
    elif lo is not None:
        parts.append("LOW %s alone" % lo)
    parts += ["%s=%s" % (k, v) for k, v in sorted(env.items())
              if k not in ("PYTORCH_MPS_HIGH_WATERMARK_RATIO", "PYTORCH_MPS_LOW_WATERMARK_RATIO")]
    return "; ".join(parts) if parts else "default"


def swap_cell(r):
    delta = r["swap_after_bytes"] - r["swap_before_bytes"]
    grow_peak = max(0, r["swap_peak_bytes"] - r["swap_before_bytes"])
    if grow_peak < MiB and abs(delta) < MiB:
        return "no change (%s)" % gib2(r["swap_before_bytes"])
    return "%s -> %s (%s%.2f GiB)" % (gib2(r["swap_before_bytes"]), gib2(r["swap_after_bytes"]),
                                      "+" if delta >= 0 else "-", abs(delta) / GiB)


def who_cell(r):
    if r["stopped_by"] == "pytorch" and r["max_allowed_bytes"]:
        return "PyTorch, max allowed %s" % gib2(r["max_allowed_bytes"])
    if r["stopped_by"] == "pytorch":
        return "PyTorch"
    if r["stopped_by"] == "config":
        t = (r["error_text"] or r["detail"]).split("\n")[0]
        return "config: " + (t if len(t) <= 80 else t[:77] + "...")
    return r["stopped_by"]


def table_md(m, runs):
    out = "# mps-watermark\n\n"
    out += "Device `%s` on %s (%s RAM, recommended max %s), torch %s, %s.\n" % (
        m["device"], m["chip"], gib2(m["ram_bytes"]), gib2(m["recommended_max_bytes"]),
        m["torch_version"], m["started_utc"])
    out += "\n| setting | who stopped | tensors held | swap during the run | max allowed | peak footprint |\n"
    out += "|---|---|---|---|---|---|\n"
    groups = {}
    for r in runs:
        groups.setdefault(r["label"], []).append(r)
    for label, g in groups.items():
        first = g[0]
        setting = "`%s` (%s)" % (label, describe_env(first["env"]))
        if len(g) == 1:
            out += "| %s | %s | %s | %s | %s | %s |\n" % (
                setting, who_cell(first), gib2(first["held_bytes"]), swap_cell(first),
                gib2(first["max_allowed_bytes"]) if first["max_allowed_bytes"] else "-",
                gib2(first["peak_footprint_bytes"]))
            continue
        who = {}
        for r in g:
            who[who_cell(r)] = who.get(who_cell(r), 0) + 1
        held = sorted(r["held_bytes"] for r in g)
        grow = sorted(max(0, r["swap_after_bytes"] - r["swap_before_bytes"]) for r in g)
        foot = sorted(r["peak_footprint_bytes"] for r in g)
        maxa = [r["max_allowed_bytes"] for r in g if r["max_allowed_bytes"]]
        out += "| %s | %s | %s (%s - %s), %d runs | median +%s | %s | %s |\n" % (
            setting, ", ".join("%s x%d" % (w, n) for w, n in sorted(who.items())),
            gib2(held[len(held) // 2]), gib2(held[0]), gib2(held[-1]), len(g),
            gib2(grow[len(grow) // 2]), gib2(maxa[-1]) if maxa else "-", gib2(foot[len(foot) // 2]))
    out += ("\nHeld = bytes of tensors the fill child held when it stopped. Swap = the system's swap "
            "used before -> after the run.\n")
    return out


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")


def make_folder(name, machine, guard, specs, seed, description):
    root = os.path.join(HERE, name)
    if os.path.isdir(root):
        shutil.rmtree(root)
    os.makedirs(os.path.join(root, "runs"))
    rng = random.Random(seed)
    start = datetime.strptime(machine["started_utc"], "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=timezone.utc)
    now = start + timedelta(seconds=3)
    runs = []
    for index, spec in enumerate(specs, start=1):
        spec = dict(spec)
        spec["pid"] = 41000 + 37 * index + rng.randint(0, 30)
        spec.setdefault("check", guard["check_s"])
        sim = simulate(spec, rng)
        sim["lines"][0]["utc"] = utc(now)
        base = "%02d-%s" % (index, spec["label"])
        trace_rel = "runs/%s.trace.jsonl" % base
        with open(os.path.join(root, trace_rel), "w", encoding="utf-8") as f:
            for obj in sim["lines"]:
                f.write(json.dumps(obj, separators=(",", ":")) + "\n")
        open(os.path.join(root, "runs", base + ".stderr.log"), "w").close()

        by = spec["stopped_by"]
        held = sim["held"]
        before = spec["swap_before"]
        after = spec.get("swap_after", before)
        limit = spec.get("limit")
        error_text, error, max_allowed, detail = None, None, None, None
        exit_code, signal = None, None
        if by == "pytorch":
            error_text = oom_text(held, limit)
            max_allowed = parsed_limit(limit)
            error = {"kind": "mps_oom", "allocated_bytes": int(round(float(fmt2(held).split()[0]) * GiB)),
                     "other_bytes": OTHER, "max_allowed_bytes": max_allowed,
                     "requested_bytes": STEP, "pool": "shared"}
            detail = "MPS out of memory at %s held, max allowed %s" % (fmt2(held), fmt2(max_allowed))
            exit_code = 1
        elif by == "config":
            error_text = "invalid low watermark ratio 1.4"
            error = {"kind": "invalid_watermark", "allocated_bytes": None, "other_bytes": None,
                     "max_allowed_bytes": None, "requested_bytes": None, "pool": None}
            detail = ("PyTorch rejected the settings at the first MPS allocation: "
                      "invalid low watermark ratio 1.4 (set PYTORCH_MPS_LOW_WATERMARK_RATIO too)")
            exit_code = 1
        elif by == "guard":
            detail = "swap grew %s > budget %s" % (fmt2(sim["swap_at_stop"]), fmt2(guard["budget"]))
            signal = 15
        for line in sim["lines"]:
            if line.get("kind") == "stop":
                line["detail"] = detail
        # rewrite the trace with the stop detail filled in
        with open(os.path.join(root, trace_rel), "w", encoding="utf-8") as f:
            for obj in sim["lines"]:
                f.write(json.dumps(obj, separators=(",", ":")) + "\n")

        last = sim["samples"][-1]
        run = {
            "index": index, "label": spec["label"], "repeat": spec.get("repeat", 1),
            "env": ENV[spec["label"]], "device": "mps",
            "stopped_by": by, "detail": detail,
            "error_text": error_text, "error": error,
            "held_bytes": held, "steps": held // STEP, "step_bytes": STEP,
            "max_allowed_bytes": max_allowed,
            "allocated_bytes": last["allocated"], "driver_bytes": last["driver"],
            "recommended_max_bytes": RECOMMENDED_MAX,
            "swap_before_bytes": before, "swap_after_bytes": after,
            "swap_peak_bytes": sim["swap_peak"],
            "peak_footprint_bytes": sim["peak_footprint"],
            "started_utc": utc(now),
            "ended_utc": utc(now + timedelta(seconds=sim["t_exit"])),
            "duration_s": round(sim["t_exit"], 2),
            "exit_code": exit_code, "signal": signal,
            "trace": trace_rel,
            "warnings": [],
        }
        write_json(os.path.join(root, "runs", base + ".json"), run)
        runs.append(run)
        # the guard waits for free memory (and swap to settle) before the next run
        now += timedelta(seconds=int(sim["t_exit"]) + 1 + (95 if by == "guard" else 20))

    machine = dict(machine)
    machine["ended_utc"] = utc(now)
    write_json(os.path.join(root, "machine.json"), machine)

    matrix = []
    for label in dict.fromkeys(s["label"] for s in specs):
        entry = {"label": label, "env": ENV[label]}
        reps = max(s.get("repeat", 1) for s in specs if s["label"] == label)
        if reps > 1:
            entry["repeats"] = reps
        matrix.append(entry)
    scenario = {
        "name": "mps-watermark",
        "description": description,
        "device": "mps",
        "step": "512MiB", "min_steps": 64, "data": "random", "cap": "95%RAM",
        "timeout": "30m", "repeats": 1,
        "guard": {"swap_budget": "2GiB", "wait_free": 0, "kill_free": 0, "interval": "0.5s",
                  "check_interval": guard["check"], "wait_free_timeout": "5m", "grace": "5s"},
        "matrix": matrix,
        "resolved": {"ram_bytes": RAM, "step_bytes": STEP, "cap_bytes": int(RAM * 0.95),
                     "swap_budget_bytes": guard["budget"], "interval_s": 0.5,
                     "check_interval_s": guard["check_s"], "timeout_s": 1800.0, "grace_s": 5.0},
    }
    write_json(os.path.join(root, "scenario.json"), scenario)
    write_json(os.path.join(root, "summary.json"), {
        "schema_version": 1, "scenario": "mps-watermark", "device": "mps",
        "machine": machine, "runs": runs, "not_run": []})

    # table.md and results.csv, in the shape of harness/results/export_table_md.cpp / export_csv.cpp
    with open(os.path.join(root, "table.md"), "w", encoding="utf-8") as f:
        f.write(table_md(machine, runs))
    cols = ["index", "label", "repeat", "setting", "device", "stopped_by", "detail", "held_bytes",
            "steps", "step_bytes", "max_allowed_bytes", "swap_before_bytes", "swap_after_bytes",
            "swap_peak_bytes", "peak_footprint_bytes", "duration_s", "exit_code", "signal"]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for r in runs:
        row = dict(r, setting=describe_env(r["env"]), duration_s="%.3f" % r["duration_s"])
        w.writerow(["" if row[c] is None else row[c] for c in cols])
    with open(os.path.join(root, "results.csv"), "w", encoding="utf-8") as f:
        f.write(buf.getvalue())
    print(root)


def machine(torch_version, started, git_rev):
    return {
        "os": "macOS", "os_version": "26.5.2", "chip": "Apple M5 Pro",
        "ram_bytes": RAM, "swap_total_bytes": 14 * GiB,
        "torch_version": torch_version,
        "torch_library": "/Users/bench/venv/lib/python3.12/site-packages/torch/lib/libtorch_cpu.dylib",
        "device": "mps", "recommended_max_bytes": RECOMMENDED_MAX,
        "wmbench_version": "0.1.0", "git_rev": git_rev,
        "started_utc": started, "ended_utc": None, "sandbox": None, "model": None,
    }


def main():
    # Write-up 004's table. Its guard polled every 5 s, hence swap growth far past the 2 GiB budget.
    lim08, lim05, lim10 = int(0.8 * RECOMMENDED_MAX), int(0.5 * RECOMMENDED_MAX), RECOMMENDED_MAX
    make_folder(
        "2026-10-13-mps-watermark",
        machine("2.14.0", "2026-10-13T10:00:00Z", "8c28f3a"),
        {"check": "5s", "check_s": 5.0, "budget": 2 * GiB},
        [
            {"label": "default", "stopped_by": "guard", "steps": 77, "thr": 36.2,
             "swap_before": g(6.1), "swap_after": g(12.0)},
            {"label": "high-0.0", "stopped_by": "guard", "steps": 72, "thr": 35.0,
             "swap_before": g(5.1), "swap_after": g(9.8)},
            {"label": "high-1.0-low-1.0", "stopped_by": "guard", "steps": 69, "thr": 33.5,
             "swap_before": g(4.6), "swap_after": g(8.7)},
            {"label": "high-0.8-low-0.8", "stopped_by": "pytorch", "steps": 59, "limit": lim08,
             "swap_before": g(4.4)},
            {"label": "high-0.5-low-0.5", "stopped_by": "pytorch", "steps": 37, "limit": lim05,
             "swap_before": g(4.4)},
            {"label": "high-0.8-alone", "stopped_by": "config", "steps": 0,
             "swap_before": g(4.4)},
        ],
        seed=4, description="Write-up 004 (hand-made example): fill MPS with 512 MiB random "
                            "tensors under each watermark setting; guard check every 5 s as in "
                            "the write-up.")
    # A later, invented run with a newer torch: guard checks every 100 ms (little swap growth),
    # 1.0 now hits PyTorch's limit before swap (fewer apps open), and 0.8 repeated three times
    # (the third with more apps open went to swap first).
    make_folder(
        "2026-11-01-mps-watermark",
        machine("2.15.0", "2026-11-01T09:30:00Z", "5d1e0b7"),
        {"check": "100ms", "check_s": 0.1, "budget": 2 * GiB},
        [
            {"label": "default", "stopped_by": "guard", "steps": 77, "thr": 37.2,
             "swap_before": g(5.8), "swap_after": g(8.0), "swap_at_stop": g(2.03)},
            {"label": "high-0.0", "stopped_by": "guard", "steps": 76, "thr": 37.0,
             "swap_before": g(5.0), "swap_after": g(7.2), "swap_at_stop": g(2.02)},
            {"label": "high-1.0-low-1.0", "stopped_by": "pytorch", "steps": 74, "limit": lim10,
             "swap_before": g(4.9)},
            {"label": "high-0.8-low-0.8", "repeat": 1, "stopped_by": "pytorch", "steps": 59,
             "limit": lim08, "swap_before": g(4.9)},
            {"label": "high-0.8-low-0.8", "repeat": 2, "stopped_by": "pytorch", "steps": 59,
             "limit": lim08, "swap_before": g(4.9)},
            {"label": "high-0.8-low-0.8", "repeat": 3, "stopped_by": "guard", "steps": 56,
             "thr": 26.4, "swap_before": g(5.3), "swap_after": g(7.5), "swap_at_stop": g(2.04)},
            {"label": "high-0.5-low-0.5", "stopped_by": "pytorch", "steps": 37, "limit": lim05,
             "swap_before": g(4.9)},
            {"label": "high-0.8-alone", "stopped_by": "config", "steps": 0,
             "swap_before": g(4.9)},
        ],
        seed=11, description="Hand-made example of a later run with a newer torch (invented "
                             "values) for compare.py; high-0.8-low-0.8 repeated 3 times.")


if __name__ == "__main__":
    main()
