#!/usr/bin/env python3
"""Writes the crafted result folders of tests/data/history/ (hand-made, not measurements).

    python3 tests/data/history/make_series.py

Standard library only; the same files every time. Each folder has machine.json, scenario.json,
summary.json (what `wmbench history` reads) and, for the runs the guard stopped, a short
runs/NN-label.trace.jsonl whose swap begins to grow part-way (what plots/history.py marks).

- release/: one Mac (Apple M4 Max, 64 GiB, macOS 15.5), mps, torch 2.8.0 -> 2.9.0 -> 2.10.0.
  2.9.0 is the same as 2.8.0 within 1 %; in 2.10.0 `high-1.0-low-1.0` is stopped by PyTorch
  instead of the guard: the newest folder regressed (exit 1). Given in reverse date order.
- drift/: one Mac, python child, torch 2.9.0 -> 2.10.0 -> 2.11.0; `default` holds 40.0 -> 41.6
  (+4.0 %, within 5 %) -> 44.0 GiB (+5.8 %, beyond 5 %): only the last step regressed.
- macs/: the same torch 2.10.0 on three Macs (16, 36, 128 GiB), for --by machine.
- mixed/: a compression-trap folder (another scenario) and an mps-watermark folder on mps-model
  (another device): history keeps them apart.
- settings/: torch 2.10.0 -> 2.11.0 on one Mac, but the scenario was edited between the runs and
  kept its labels: in the newer folder `high-0.8-low-0.8` ran HIGH 0.7 and LOW 0.7 (and PyTorch's
  max allowed fell with it) and `high-1.0-low-1.0` ran with memory_fraction 0.5 (same numbers).
  Neither row is a regression, and neither is "no regression": compare exits 3 (not comparable).
- device/: a folder whose summary.json says device mps while its machine.json and its run
  records say cpu (a summary.json edited or copied by hand): compare and history refuse it.
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
GIB = 1 << 30
MIB = 1 << 20

SETTINGS = [  # label, env
    ("default", {}),
    ("high-1.0-low-1.0", {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "1.0", "PYTORCH_MPS_LOW_WATERMARK_RATIO": "1.0"}),
    ("high-0.8-low-0.8", {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0.8", "PYTORCH_MPS_LOW_WATERMARK_RATIO": "0.8"}),
    ("high-0.8-alone", {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0.8"}),
]


def machine(torch, started, chip="Apple M4 Max", ram_gib=64, device="mps", child="native", model=None):
    rec = int(ram_gib * GIB * 0.75)
    m = {
        "os": "macOS", "os_version": "15.5", "chip": chip, "ram_bytes": ram_gib * GIB,
        "swap_total_bytes": 4 * GIB, "torch_version": torch, "device": device,
        "recommended_max_bytes": rec, "wmbench_version": "0.1.0", "git_rev": "crafted",
        "started_utc": started, "ended_utc": started[:11] + "23:59:00Z", "sandbox": None,
        "model": model, "notes": ["crafted for tests/data/history (not a measurement)"],
        "mac": {"product_version": "15.5", "build_version": "24F74", "hw_model": "Mac16,5",
                "metal_device": chip, "metal_device_virtual": False, "iogpu_wired_limit_mb": 0},
        "page_size_bytes": 16384,
    }
    if child == "python":
        m["child"] = {"kind": "python", "program": "build/wmbench_fill.py",
                      "python": {"path": "/usr/bin/python3", "version": "3.12.4"}}
    else:
        m["child"] = {"kind": "native", "program": "build/wmbench-fill", "python": None}
    return m


def run(index, label, env, stopped_by, held_gib, started, max_allowed_gib=None, swap_gib=0.0, device="mps",
        memory_fraction=None):
    held = int(held_gib * GIB)
    r = {
        "index": index, "label": label, "repeat": 1, "env": env, "device": device, "data": "random",
        "program": "fill", "stopped_by": stopped_by, "detail": "", "error_text": None, "error": None,
        "held_bytes": held, "steps": int(held // (512 * MIB)), "step_bytes": 512 * MIB,
        "max_allowed_bytes": int(max_allowed_gib * GIB) if max_allowed_gib else None,
        "swap_before_bytes": 1 * GIB, "swap_after_bytes": int((1 + swap_gib) * GIB),
        "swap_peak_bytes": int((1 + swap_gib) * GIB), "peak_footprint_bytes": held + 300 * MIB,
        "started_utc": started, "trace": None,
    }
    if stopped_by == "config":
        r["error_text"] = r["detail"] = "invalid low watermark ratio 1.4"
    if memory_fraction is not None:
        r["memory_fraction"] = memory_fraction
    return r


def trace_lines(r, swap_from_gib):
    """Samples every 0.5 s while held grows 2 GiB/s; swap grows once held passes swap_from_gib."""
    held_end = r["held_bytes"] / GIB
    lines = [{"type": "start", "label": r["label"], "interval": 0.5}]
    t, held, step = 0.0, 0.0, 0
    while held < held_end:
        step += 1
        held = min(held_end, step * 0.5)
        lines.append({"type": "event", "kind": "step", "index": step, "held": int(held * GIB), "t": round(t + 0.25, 3)})
        swap = max(0.0, held - swap_from_gib) * 0.8
        lines.append({"type": "sample", "t": round(t + 0.5, 3), "footprint": int((held + 0.3) * GIB),
                      "held": int(held * GIB), "swap_used": int((1 + swap) * GIB), "level": 50})
        t += 0.5
    lines.append({"type": "event", "kind": "stop", "by": "guard", "t": round(t + 0.1, 3)})
    return lines


def write_folder(path, scenario, device, mach, runs, swap_from=None, summary_device=None):
    os.makedirs(os.path.join(path, "runs"), exist_ok=True)
    for r in runs:
        if r["stopped_by"] == "guard" and swap_from is not None:
            rel = "runs/%02d-%s.trace.jsonl" % (r["index"], r["label"])
            r["trace"] = rel
            with open(os.path.join(path, rel), "w") as f:
                for line in trace_lines(r, swap_from):
                    f.write(json.dumps(line, sort_keys=True) + "\n")
    summary = {"schema_version": 1, "scenario": scenario, "device": summary_device or device, "machine": mach,
               "runs": runs, "not_run": []}
    sc = {"name": scenario, "device": device,
          "resolved": {"step_bytes": 512 * MIB, "swap_budget_bytes": 2 * GIB}}
    for name, obj in (("machine.json", mach), ("summary.json", summary), ("scenario.json", sc)):
        with open(os.path.join(path, name), "w") as f:
            json.dump(obj, f, indent=2, sort_keys=True)
            f.write("\n")


def watermark_runs(started, default_held, stop_10="guard", held_10=44.5, device="mps", scale=1.0):
    return [
        run(1, "default", SETTINGS[0][1], "guard", default_held * scale, started, swap_gib=5.5, device=device),
        run(2, "high-1.0-low-1.0", SETTINGS[1][1], stop_10, held_10 * scale, started,
            max_allowed_gib=48.0 * scale if stop_10 == "pytorch" else None,
            swap_gib=4.0 if stop_10 == "guard" else 0.0, device=device),
        run(3, "high-0.8-low-0.8", SETTINGS[2][1], "pytorch", 38.0 * scale, started, max_allowed_gib=38.4 * scale,
            device=device),
        run(4, "high-0.8-alone", SETTINGS[3][1], "config", 0, started, device=device),
    ]


def main():
    # release: 2.8.0 and 2.9.0 agree; 2.10.0 changes a stop reason.
    for torch, date, d_held, stop_10, held_10 in (("2.8.0", "2026-09-01", 45.0, "guard", 44.5),
                                                  ("2.9.0", "2026-10-01", 45.2, "guard", 44.6),
                                                  ("2.10.0", "2026-11-01", 45.1, "pytorch", 47.5)):
        started = date + "T10:00:00Z"
        write_folder(os.path.join(HERE, "release", "%s-mps-watermark-torch-%s" % (date, torch)), "mps-watermark",
                     "mps", machine(torch, started), watermark_runs(started, d_held, stop_10, held_10), swap_from=42.0)
    # drift: default creeps up, past the 5 % tolerance in the last step.
    for torch, date, d_held in (("2.9.0", "2026-10-02", 40.0), ("2.10.0", "2026-11-02", 41.6),
                                ("2.11.0", "2026-12-02", 44.0)):
        started = date + "T10:00:00Z"
        write_folder(os.path.join(HERE, "drift", "%s-mps-watermark" % date), "mps-watermark", "mps",
                     machine(torch, started, child="python"), watermark_runs(started, d_held), swap_from=38.0)
    # macs: one torch, three Macs (held scaled to the RAM).
    for chip, ram, date in (("Apple M4 Max", 128, "2026-11-03"), ("Apple M4", 16, "2026-11-04"),
                            ("Apple M4 Pro", 36, "2026-11-05")):
        started = date + "T10:00:00Z"
        s = ram / 64.0
        write_folder(os.path.join(HERE, "macs", "%s-mps-watermark-%dgb" % (date, ram)), "mps-watermark", "mps",
                     machine("2.10.0", started, chip=chip, ram_gib=ram), watermark_runs(started, 45.0, scale=s),
                     swap_from=42.0 * s)
    # mixed: another scenario, and the same scenario on another device.
    started = "2026-11-06T10:00:00Z"
    write_folder(os.path.join(HERE, "mixed", "2026-11-06-compression-trap"), "compression-trap", "mps",
                 machine("2.10.0", started),
                 [run(1, "ones", {}, "cap", 40.0, started), run(2, "random", {}, "guard", 44.0, started, swap_gib=3.0)])
    model = {"mac_ram_bytes": 64 * GIB, "recommended_max_bytes": 48 * GIB, "note": "crafted"}
    write_folder(os.path.join(HERE, "mixed", "2026-11-07-mps-watermark-model"), "mps-watermark", "mps-model",
                 machine("2.10.0", "2026-11-07T10:00:00Z", device="mps-model", model=model),
                 watermark_runs("2026-11-07T10:00:00Z", 45.0, device="mps-model"))
    # settings: one label, two settings (the scenario edited between the runs, its labels kept).
    started = "2026-11-10T10:00:00Z"
    write_folder(os.path.join(HERE, "settings", "2026-11-10-mps-watermark"), "mps-watermark", "mps",
                 machine("2.10.0", started), watermark_runs(started, 45.0), swap_from=42.0)
    started = "2026-11-11T10:00:00Z"
    edited = watermark_runs(started, 45.0)
    edited[1]["memory_fraction"] = 0.5
    edited[2] = run(3, "high-0.8-low-0.8", {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0.7",
                                            "PYTORCH_MPS_LOW_WATERMARK_RATIO": "0.7"},
                    "pytorch", 33.5, started, max_allowed_gib=33.6)
    write_folder(os.path.join(HERE, "settings", "2026-11-11-mps-watermark"), "mps-watermark", "mps",
                 machine("2.11.0", started), edited, swap_from=42.0)
    # device: summary.json says mps, machine.json and the run records say cpu.
    started = "2026-11-12T10:00:00Z"
    write_folder(os.path.join(HERE, "device", "2026-11-12-mps-watermark-summary-says-mps"), "mps-watermark", "cpu",
                 machine("2.10.0", started, device="cpu"), watermark_runs(started, 45.0, device="cpu"),
                 summary_device="mps")


if __name__ == "__main__":
    main()
