#!/usr/bin/env bash
# `wmbench publish` of N result folders with charts, timed (BENCHMARKS.md, "Developer loop": the
# charts drawn in one python, issue 44). The N folders are copies of the committed results/*/,
# round-robin, each renamed <name>-c<K> (a folder's name is only its page's name):
#
#   bash scripts/bench-publish.sh [N] [WMBENCH]      # default: 100 folders, build/wmbench
#
# Prints the command's own summary, then `real`, `user` and `sys` of the whole publish (bash's
# `time`), and the same publish again (nothing changed: no chart drawn). Writes only under a
# temporary folder it removes. Runs under macOS's bash 3.2 (no bash-4 features).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
n="${1:-100}"
wmbench="${2:-$root/build/wmbench}"
[[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "bench-publish: N must be a whole number >= 1, got '$n'" >&2; exit 2; }
[[ -x "$wmbench" ]] || { echo "bench-publish: $wmbench is not an executable (build it: bash scripts/build.sh --target wmbench)" >&2; exit 2; }
work="$(mktemp -d "${TMPDIR:-/tmp}/wmbench-bench-publish.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir "$work/in"
folders=()
for d in "$root"/results/*/; do
  [[ -f "$d/summary.json" ]] && folders+=("${d%/}")
done
[[ ${#folders[@]} -gt 0 ]] || { echo "bench-publish: no result folder under $root/results" >&2; exit 2; }
i=0
while ((i < n)); do
  src="${folders[$((i % ${#folders[@]}))]}"
  cp -R "$src" "$work/in/$(basename "$src")-c$((i / ${#folders[@]}))"
  i=$((i + 1))
done
echo "bench-publish: $n folders (copies of ${#folders[@]} committed ones) in $work/in, $wmbench"
echo "== first publish (every chart drawn)"
time "$wmbench" publish "$work/in" --out "$work/site"
echo "== second publish (nothing changed)"
time "$wmbench" publish "$work/in" --out "$work/site"
