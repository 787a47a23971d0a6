#!/usr/bin/env python3
"""The macOS CI job's smoke test of the harness (not a measurement): reads a result folder of
scenarios/mps-ci.json and fails only when the harness broke.

  python3 scripts/check-mps-smoke.py RESULT_DIR [--expect LABEL=STOP ...]

Passes when summary.json lists a record for every cell of the scenario as run (scenario.json's
matrix x repeats), nothing under "not_run", every record has a stop class the harness knows (except
"not_started", which means the harness never started the child), and each --expect LABEL=STOP
holds (the CI job expects high-0.3-alone=config: PyTorch refuses HIGH 0.3 with the default LOW 1.4).
Whatever MPS itself does on the runner (GitHub documents MPS as unsupported on its macOS VMs), a
`pytorch`, `crash` or `cap` stop is a result, not a failure. Exit 0 ok, 1 failed, 2 bad input.
"""
import json
import os
import sys

KNOWN = {"guard", "pytorch", "config", "cap", "finished", "crash", "timeout", "interrupted"}


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"check-mps-smoke: cannot read {path}: {e}", file=sys.stderr)
        sys.exit(1)


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    folder, expect = argv[1], {}
    rest = argv[2:]
    while rest:
        if rest[0] != "--expect" or len(rest) < 2 or "=" not in rest[1]:
            print(f"check-mps-smoke: bad argument {rest[0]!r}; allowed: --expect LABEL=STOP", file=sys.stderr)
            return 2
        label, stop = rest[1].split("=", 1)
        expect[label] = stop
        rest = rest[2:]
    summary = load(os.path.join(folder, "summary.json"))
    scenario = load(os.path.join(folder, "scenario.json"))
    problems = []
    labels = [c.get("label") for c in scenario.get("matrix", [])]
    repeats = scenario.get("repeats", 1)
    planned = [(l, r) for r in range(1, repeats + 1) for l in labels]
    runs = summary.get("runs")
    if not isinstance(runs, list):
        problems.append("summary.json has no runs list")
        runs = []
    got = {(r.get("label"), r.get("repeat", 1)): r for r in runs if isinstance(r, dict)}
    for key in planned:
        rec = got.get(key)
        if rec is None:
            problems.append(f"no record for {key[0]} (repeat {key[1]})")
            continue
        stop = rec.get("stopped_by")
        if stop not in KNOWN:
            problems.append(f"{key[0]}: stop class {stop!r} (the harness did not run it, or wrote an unknown class)")
        print(f"{key[0]} (repeat {key[1]}): stopped by {stop}: {rec.get('detail', '')}")
    for nr in summary.get("not_run") or []:
        problems.append(f"not run: {nr}")
    for label, stop in expect.items():
        if label not in labels:
            problems.append(f"--expect {label}={stop}: no such cell in the scenario")
        for key, rec in got.items():
            if key[0] == label and rec.get("stopped_by") != stop:
                problems.append(f"{label}: stopped by {rec.get('stopped_by')!r}, expected {stop!r}")
    for p in problems:
        print(f"check-mps-smoke: FAIL: {p}", file=sys.stderr)
    if not problems:
        print(f"check-mps-smoke: ok: {len(planned)} run(s), each with a record and a stop class")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
