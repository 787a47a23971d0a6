#!/usr/bin/env python3
"""Fails when a C++ test names something only Linux has outside the platform helpers (issue 28).

    python3 scripts/lint-tests-portable.py [ROOT]      # run by .ci/run; exit 0 clean, 1 findings

A real Mac runs the same tests as Linux, but it has no /proc, no /sys, no /bin/true (only
/usr/bin/true), no setsid(1), no cgroups, and it does not enforce RLIMIT_AS. The simulated Mac of
CI runs on a Linux kernel, so it cannot see a test that reaches them fail; this lint can. A test
file (tests/**/*.cpp, *.h) may name them only:

  - through the helpers, tests/integration/platform_util.h and proc_util.h (not checked here:
    each of their answers has a macOS branch, or says why it cannot run);
  - inside a test that skips off Linux before it: WMBT_LINUX_ONLY("why"), WMBT_SKIP_IF(reason)
    (a helper's reason, such as address_space_limit_unusable()), or `#ifndef __linux__` /
    `#if !defined(__linux__)` followed by GTEST_SKIP();
  - on a line that chooses by a helper's answer (`kLinux`, `address_space_limit_unusable()`);
  - in code compiled only on Linux (`#ifdef __linux__`, `#if defined(__linux__)`, the `#else` of
    `#ifdef __APPLE__` or of `#ifndef __linux__`);
  - on a line that ends with `// portable: WHY` (data that is never opened or run, e.g. a
    machine.json value or an error text handed to a fake probe).

Comments are not code: a comment may name anything. What is looked for, in code (strings
included): `/proc`, `/sys/`, `/bin/true`, `setsid`, `RLIMIT_AS`; and `cgroup` in a string literal
(an expected "in its cgroup", a cgroup path). Also a file name that is not UTF-8: a string literal
whose bytes (escapes decoded) are not valid UTF-8 and that builds a path (it holds a '/', or it is
appended to one: `"/" + "\xff"`). APFS, every Mac's file system, refuses such a name
("Illegal byte sequence", issue 42); the helper non_utf8_names_unusable(dir) of platform_util.h
is the skip (WMBT_SKIP_IF). Non-UTF-8 text that is not a file name (JSON, a child's line) is fine.
"""
import os
import re
import sys

HELPERS = {"tests/integration/platform_util.h", "tests/integration/proc_util.h"}
CODE_NAMES = [
    (re.compile(r"/proc\b"), "/proc"),
    (re.compile(r"/sys/"), "/sys"),
    (re.compile(r"/bin/true\b"), "/bin/true"),
    (re.compile(r"(?:(?<![A-Za-z0-9_])|(?<=\\[nt]))setsid\b"), "setsid"),
    (re.compile(r"\bRLIMIT_AS\b"), "RLIMIT_AS"),
]
STRING_NAMES = [(re.compile(r"cgroup"), "cgroup")]
LINE_GATES = re.compile(r"\bkLinux\b|\baddress_space_limit_unusable\s*\(")
TEST_GATES = re.compile(r"\bWMBT_LINUX_ONLY\s*\(|\bWMBT_SKIP_IF\s*\(")
TEST_START = re.compile(r"^\s*(TEST|TEST_F|TEST_P)\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)")
PORTABLE = re.compile(r"//\s*portable:\s*\S")
STRING_LIT = re.compile(r'(?<![A-Za-z0-9_])"((?:[^"\\\n]|\\.)*)"')
SIMPLE_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "a": 7, "b": 8, "f": 12, "v": 11, "\\": 92, "'": 39, '"': 34, "?": 63}


def literal_bytes(body):
    """The bytes of a C++ narrow string literal's body (escapes decoded; the source is UTF-8)."""
    out, i = bytearray(), 0
    while i < len(body):
        c = body[i]
        if c != "\\" or i + 1 >= len(body):
            out += c.encode("utf-8"); i += 1
            continue
        e = body[i + 1]
        m = re.match(r"x([0-9A-Fa-f]+)", body[i + 1:]) if e == "x" else re.match(r"[0-7]{1,3}", body[i + 1:])
        if m:
            out.append(int(m.group(1) if e == "x" else m.group(0), 16 if e == "x" else 8) & 0xFF)
            i += 1 + len(m.group(0))
        else:
            out.append(SIMPLE_ESCAPES.get(e, ord(e) & 0xFF)); i += 2
    return bytes(out)


def non_utf8_path(code_line):
    """True when the line builds a file name that is not UTF-8 (see the module's text)."""
    def bad(b):
        try:
            b.decode("utf-8")
            return False
        except UnicodeDecodeError:
            return True
    for m in STRING_LIT.finditer(code_line):
        b = literal_bytes(m.group(1))
        if bad(b) and (b"/" in b or re.search(r'"/"\s*\+\s*$', code_line[:m.start()])):
            return True
    return False


def split_code(text):
    """(code, strings): the text with comments blanked, and the text with comments and string
    literals' contents blanked (for brace matching). Newlines are kept, so lines line up."""
    code, bare = [], []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            code.append(" " * (j - i)); bare.append(" " * (j - i)); i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank = re.sub(r"[^\n]", " ", text[i:j])
            code.append(blank); bare.append(blank); i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            k = text.find("(", i + 2)
            delim = text[i + 2:k]
            end = text.find(")" + delim + '"', k)
            end = n if end < 0 else end + len(delim) + 2
            lit = text[i:end]
            code.append(lit); bare.append(re.sub(r"[^\n]", " ", lit)); i = end
        elif c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            lit = text[i:j]
            code.append(lit); bare.append(c + " " * max(0, len(lit) - 2) + (c if len(lit) > 1 else "")); i = j
        else:
            code.append(c); bare.append(c); i += 1
    return "".join(code), "".join(bare)


def linux_only_lines(lines):
    """The set of 0-based line numbers compiled only on Linux, by the preprocessor conditions."""
    out, stack = set(), []  # stack of (kind, in_else): kind "linux", "notlinux" or "other"
    for no, line in enumerate(lines):
        s = line.strip()
        m = re.match(r"#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)", s)
        if m:
            d, cond = m.group(1), m.group(2).strip()
            if d in ("if", "ifdef", "ifndef"):
                if (d == "ifdef" and cond == "__linux__") or (d == "if" and re.fullmatch(r"defined\s*\(?\s*__linux__\s*\)?", cond)):
                    stack.append(["linux", False])
                elif (d == "ifndef" and cond == "__linux__") or (d == "if" and re.fullmatch(r"!\s*defined\s*\(?\s*__linux__\s*\)?", cond)) \
                        or (d == "ifdef" and cond == "__APPLE__") or (d == "if" and re.fullmatch(r"defined\s*\(?\s*__APPLE__\s*\)?", cond)):
                    stack.append(["notlinux", False])
                else:
                    stack.append(["other", False])
            elif d in ("else", "elif") and stack:
                stack[-1][1] = True
            elif d == "endif" and stack:
                stack.pop()
            continue
        if any((k == "linux" and not e) or (k == "notlinux" and e) for k, e in stack):
            out.add(no)
    return out


def tests_in(bare):
    """[(first_line, last_line, "Suite.Name", body_start_offset, body_end_offset)] by brace matching."""
    found = []
    offs = [0]
    for line in bare.split("\n"):
        offs.append(offs[-1] + len(line) + 1)
    for no, line in enumerate(bare.split("\n")):
        m = TEST_START.match(line)
        if not m:
            continue
        start = bare.find("{", offs[no] + m.end())
        if start < 0:
            continue
        depth, j = 0, start
        while j < len(bare):
            if bare[j] == "{":
                depth += 1
            elif bare[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        last = bare.count("\n", 0, j)
        found.append((no, last, f"{m.group(2)}.{m.group(3)}", start, j))
    return found


def skip_before(raw_lines, code_lines, first, upto):
    """The test (lines first..upto) skips off Linux at or before line `upto`."""
    for k in range(first, upto + 1):
        if TEST_GATES.search(code_lines[k]):
            return True
        if re.match(r"\s*#\s*(ifndef\s+__linux__|if\s+!\s*defined\s*\(?\s*__linux__)", raw_lines[k]):
            for k2 in range(k + 1, min(k + 4, len(code_lines))):
                if "GTEST_SKIP" in code_lines[k2]:
                    return True
    return False


def lint_file(root, rel):
    text = open(os.path.join(root, rel), encoding="utf-8", errors="replace").read()
    code, bare = split_code(text)
    raw_lines, code_lines, bare_lines = text.split("\n"), code.split("\n"), bare.split("\n")
    linux_only = linux_only_lines(raw_lines)
    tests = tests_in(bare)
    problems = []
    for no, cl in enumerate(code_lines):
        hits = [name for rx, name in CODE_NAMES if rx.search(cl)]
        strings_only = "".join(a if a != b else " " for a, b in zip(cl, bare_lines[no]))
        hits += [name for rx, name in STRING_NAMES if rx.search(strings_only)]
        if non_utf8_path(cl):
            hits.append("a file name that is not UTF-8 (APFS refuses it)")
        if not hits or no in linux_only or LINE_GATES.search(cl) or PORTABLE.search(raw_lines[no]):
            continue
        test = next((t for t in tests if t[0] <= no <= t[1]), None)
        if test and skip_before(raw_lines, code_lines, test[0], no):
            continue
        where = f"in TEST({test[2].replace('.', ', ')})" if test else "outside any test"
        fix = ("skip off Linux first (WMBT_LINUX_ONLY(\"why\") or WMBT_SKIP_IF(a helper's reason, e.g. "
               "non_utf8_names_unusable(dir))) or reach it "
               "through tests/integration/platform_util.h" if test else
               "move it into tests/integration/platform_util.h with a macOS answer, or compile it only on Linux")
        problems.append(f"{rel}:{no + 1}: names {', '.join(dict.fromkeys(hits))} (not on a Mac) {where}: {fix}")
    return problems


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    files = []
    for d, _, names in os.walk(os.path.join(root, "tests")):
        for f in names:
            if f.endswith((".cpp", ".h")):
                rel = os.path.relpath(os.path.join(d, f), root)
                if rel not in HELPERS:
                    files.append(rel)
    problems = []
    for rel in sorted(files):
        problems += lint_file(root, rel)
    for p in problems:
        print(p)
    if problems:
        print(f"lint-tests-portable: {len(problems)} Linux-only name(s) in tests outside the helpers "
              "(tests/integration/platform_util.h says how)", file=sys.stderr)
        return 1
    print(f"lint-tests-portable: {len(files)} test files, no Linux-only name outside the helpers or a Linux-only skip")
    return 0


if __name__ == "__main__":
    sys.exit(main())
