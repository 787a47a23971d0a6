#!/usr/bin/env python3
"""Many charts in one Python: matplotlib is imported once, then each job is one chart script's
main(argv), exactly as if that script had been started on its own command line.

    python3 plots/batch.py N SCRIPT ARG... [N SCRIPT ARG...]...
    python3 plots/batch.py --serve

On the command line each job is N (how many words follow: the script and its arguments), then the
script's name and its arguments as its own command line has them, e.g. `4 table.py --out DIR
FOLDER`: no word is parsed, quoted or decoded, so any folder name (non-UTF-8 too) is one argument.
--serve reads one job a line from stdin, as a JSON list (["table.py", "--out", DIR, FOLDER]), and
answers each with one line on stdout.

Command-line jobs (wmbench's publish, a run's finish, tune, releases: tools/chart_batch.cpp): each
job's stderr is this process's stderr, its stdout (the chart paths) is dropped, and after it one
line {"job": N, "exit": CODE} is printed, N counting from 0 (CODE: the script's exit status).
--serve (the chart tests): each answer is {"exit": CODE, "stdout": ..., "stderr": ...}.

A job may name only the chart scripts of this folder. One job's failure (an exit status, an
exception) is that job's answer; the next job runs. Between jobs every figure is closed and the
formats that --svg-only changes are put back. Exit status: 0 when each job's line was printed (the
jobs' own codes are in their lines), 2 for a job that is not a count and a chart script's name (no job runs then).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import common as C  # noqa: E402

SCRIPTS = ("table.py", "traces.py", "compare.py", "history.py", "tune.py", "releases.py")
_modules = {}


class JobError(Exception):
    """A job that is not a JSON list of strings naming one of SCRIPTS."""


def check_job(job):
    if job[0] not in SCRIPTS:
        raise JobError("a job names the script %.200r; allowed: %s" % (job[0], ", ".join(SCRIPTS)))
    return job


def parse_job(text):
    """One --serve line: a JSON list of strings, the script first."""
    try:
        job = json.loads(text)
    except ValueError as e:
        raise JobError("a job is not JSON: %s" % e)
    if not isinstance(job, list) or not job or not all(isinstance(a, str) for a in job):
        raise JobError("a job is a JSON list of strings, the script first; got %.200r" % (text,))
    return check_job(job)


def split_jobs(argv):
    """The command line's jobs: N, then N words (the script and its arguments), again and again."""
    jobs, i = [], 0
    while i < len(argv):
        n = argv[i]
        if not n.isdigit() or not 1 <= int(n) <= len(argv) - i - 1:
            raise JobError("word %d: expected how many words the next job has (1 to %d), got %.200r"
                           % (i + 1, len(argv) - i - 1, n))
        jobs.append(check_job(argv[i + 1:i + 1 + int(n)]))
        i += 1 + int(n)
    return jobs


def _module(script):
    if script not in _modules:
        spec = importlib.util.spec_from_file_location("wmbench_plots_" + script[:-3], os.path.join(HERE, script))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _modules[script] = mod
    return _modules[script]


def run_job(job):
    """The exit status of job[0]'s main(job[1:]), as its own process would have had it."""
    script, argv = job[0], job[1:]
    C.FORMATS = ("svg", "png")
    saved_argv = sys.argv
    sys.argv = [os.path.join(HERE, script)] + argv  # argparse's "usage: table.py ..."
    try:
        code = _module(script).main(argv)
        return code or 0
    except C.ResultFolderError as e:  # what common.run_main says
        sys.stderr.write("error: %s\n" % e)
        return 2
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            return e.code or 0
        sys.stderr.write("%s\n" % e.code)
        return 1
    except Exception:  # noqa: BLE001 - an uncaught exception: its traceback and exit 1, as python does
        traceback.print_exc()
        return 1
    finally:
        sys.argv = saved_argv
        if C._plt is not None:
            C._plt.close("all")


def serve(stdin, stdout):
    for line in stdin:
        if not line.strip():
            continue
        out, err = io.StringIO(), io.StringIO()
        try:
            job = parse_job(line)
        except JobError as e:
            answer = {"exit": 2, "stdout": "", "stderr": "batch.py: %s\n" % e}
        else:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = run_job(job)
            answer = {"exit": code, "stdout": out.getvalue(), "stderr": err.getvalue()}
        stdout.write(json.dumps(answer) + "\n")
        stdout.flush()
    return 0


def main(argv):
    if argv == ["--serve"]:
        return serve(sys.stdin, sys.stdout)
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0 if argv else 2
    try:
        jobs = split_jobs(argv)
    except JobError as e:
        sys.stderr.write("batch.py: %s\n" % e)
        return 2
    # The drawing happens first (matplotlib imported once, here), each job's own stdout dropped.
    C.pyplot()
    for i, job in enumerate(jobs):
        with contextlib.redirect_stdout(io.StringIO()):
            code = run_job(job)
        sys.stdout.write(json.dumps({"job": i, "exit": code}) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
