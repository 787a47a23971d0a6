#!/usr/bin/env bash
# A simulated Mac, end to end: the README's two commands, `bash scripts/main.sh` and
# `bash scripts/test.sh`, take their Darwin branches on Linux with stand-in macOS tools first on
# PATH (scripts/ci/fake-macos: uname, sw_vers, sysctl, xcode-select, brew, the Command Line Tools'
# python3 3.9, a Homebrew python whose venv pip lays down a torch whose CMake config is Debian's
# libtorch). Under GNU bash 3.2 (macOS's /bin/bash is 3.2.57) and under bash 5: `bash` on PATH is
# the shell under test, so every script the two commands start runs under it too.
#
#   bash scripts/ci-simulated-mac.sh
#
# Steps, in a copy of the checkout (tracked and untracked files, not the ignored ones: a fresh
# clone) under build-simmac/ (removed at the end; WMBENCH_SIM_KEEP=1 keeps it):
#   1. bash 3.2 (bash 5 without it): main.sh on the fresh copy (Homebrew formulae, the venv, torch
#                and matplotlib from pip, configure with the real cmake, build wmbench and
#                wmbench-fill, the run);
#   2. (none since 2026-12-05: step 1 under the other bash, which doubled its minute and a half);
#   3. bash 3.2: test.sh (it builds the rest), running the tests whose outcome depends on what the
#                Darwin set-up made (WMBENCH_SIM_TESTS, a ctest -R regex): every test that starts
#                the set-up's venv python (the Python child's tests, the charts that `wmbench run`
#                and `history --plot` draw, one class of the chart tests). The rest, the unit suite
#                too, would run the same binaries on the same kernel as .ci/run's stage 1, which runs them;
#   4. bash 5:   test.sh with two unit tests (every line of the script runs; only ctest's selection
#                is smaller, to keep CI short; the whole suite runs under bash 5 in .ci/run's stage 1);
#   5. bash 3.2: set-up checks that must bite: a Homebrew python that pip has no torch for
#                (python@3.15, as Homebrew's moving `python3` now is) is passed over for the next
#                formula of WMBENCH_PYTHON_FORMULAE; macOS 13 is refused;
#   6. bash 3.2: the set-up's refusals (issue 28): Rosetta, an Intel Homebrew in /usr/local, an
#                unaccepted Xcode licence are refused; an Intel Mac is told it has no MPS; a python3
#                with torch that fits is taken, one whose libtorch is x86_64 or that lacks matplotlib
#                is passed over for the venv; cross-macos.sh, lint-workflows.sh and gpu-run.sh say
#                they are for Linux (exit 2) instead of failing on mapfile.
# After each main.sh: a result folder that `wmbench check` accepts, the build configured against
# the venv's torch (build/.torch-prefix), and the set-up's words for the Darwin path. After
# test.sh: the Python child's tests and the chart test use the venv's python.
# Without ../shared/tools/bash-3.2/bash (or WMBENCH_BASH32) the bash 3.2 steps are skipped and it
# says so; step 1 runs under bash 5 then, and step 4 runs.
# ccache, when installed, is used (CCACHE_BASEDIR = the checkout, CCACHE_NOHASHDIR=1), so that a
# build of the checkout made with ccache before makes this build mostly cache hits.
#
# What it cannot prove (see scripts/ci/fake-macos/README.md): Apple clang, the SDK, Metal and MPS,
# BSD userland flags, the real Homebrew and pip, a real torch 2.x wheel. ci.yml's macOS job runs the
# same commands on GitHub's Macs.
# shellcheck disable=SC2016  # the single-quoted $BASH_VERSION and BASH_VERSINFO are for the other bash
set -euo pipefail

say() { printf 'simulated-mac: %s\n' "$*"; }
die() { printf 'simulated-mac: FAILED: %s\n' "$*" >&2; exit 1; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash32="${WMBENCH_BASH32:-$root/../shared/tools/bash-3.2/bash}"
bash5="$(command -v bash)"
start=$(date +%s)

have32=0
if [[ -x "$bash32" ]] && "$bash32" -c '[[ "${BASH_VERSINFO[0]}" == 3 ]]' 2>/dev/null; then
  have32=1
  say "bash 3.2: $bash32 ($("$bash32" -c 'echo "$BASH_VERSION"'))"
else
  say "SKIPPED under bash 3.2: no GNU bash 3.2 at $bash32 (set WMBENCH_BASH32); only the bash 5 steps run"
fi
say "bash 5: $bash5 ($("$bash5" -c 'echo "$BASH_VERSION"'))"

command -v git >/dev/null 2>&1 || die "git is needed to copy the checkout"
sim="$root/build-simmac"
rm -rf "$sim"
mkdir -p "$sim/src" "$sim/logs"
keep="${WMBENCH_SIM_KEEP:-0}"
cleanup() { if [[ "$keep" != 1 ]]; then rm -rf "$sim"; else say "kept $sim"; fi; }
trap cleanup EXIT

# The copy: what a fresh clone of this working tree has (committed or not), no build folders.
(cd "$root" && git ls-files -z --cached --others --exclude-standard) |
  (cd "$root" && tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -C "$sim/src" -xf -
src="$sim/src"
[[ -f "$src/scripts/main.sh" && -x "$src/scripts/ci/fake-macos/bin/uname" ]] || die "the copy of the checkout in $src is incomplete"

# One folder per shell with `bash` in it, first on PATH, then the stand-in macOS tools.
mkdir -p "$sim/bash5" "$sim/bash32"
ln -s "$bash5" "$sim/bash5/bash"
if ((have32)); then ln -s "$bash32" "$sim/bash32/bash"; fi
fake="$src/scripts/ci/fake-macos/bin"

# A clean environment for the scripts: nothing of this machine's wmbench settings leaks in.
unset WMBENCH_PYTHON WMBENCH_TORCH_PYTHON WMBENCH_VENV WMBENCH_BUILD_DIR WMBENCH_SANITIZE WMBENCH_TORCH \
  WMBENCH_PYTHON_FORMULAE WMBENCH_PYTHON_CHILD GITHUB_ENV FAKE_MACOS_VERSION FAKE_MACOS_NO_CLT 2>/dev/null || true
export FAKE_BREW_PREFIX="$sim/homebrew" HOMEBREW_NO_AUTO_UPDATE=1
if command -v ccache >/dev/null 2>&1 && [[ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]]; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache
fi
if [[ "${CMAKE_CXX_COMPILER_LAUNCHER:-}" == *ccache* ]]; then
  # The copy's paths relative to its build folder are the checkout's: cache hits across the two.
  export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
fi

step_no=0
# run_step NAME SHELL(5|32) LOG COMMAND...: runs COMMAND in the copy with that shell as `bash`,
# output to the terminal and to logs/LOG; fails the whole stage when it fails.
run_step() {
  local name="$1" shell="$2" log="$sim/logs/$3" t0 rc
  shift 3
  step_no=$((step_no + 1))
  t0=$(date +%s)
  say "== step $step_no: $name (bash $shell)"
  set +e
  (cd "$src" && PATH="$sim/bash$shell:$fake:$PATH" "$@") 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  [[ "$rc" == 0 ]] || die "step $step_no ($name, bash $shell) exited $rc; its output is above"
  say "step $step_no done in $(( $(date +%s) - t0 )) s"
}
# must_say LOG TEXT WHAT: the log contains TEXT (a fixed string), or the stage fails.
must_say() { grep -qF -- "$2" "$sim/logs/$1" || die "$3: logs/$1 lacks \"$2\""; }

# check_main LOG: after main.sh: the Darwin set-up ran, the build is against the venv's torch, and
# one more result folder exists and passes `wmbench check`.
check_main() {
  local log="$1" n dirs newest
  must_say "$log" "setup-macos: macOS 15.5" "the Darwin set-up did not run"
  must_say "$log" "setup-macos: libtorch: pip's torch 2.11.0+standin" "the set-up did not use pip's torch in the venv"
  must_say "$log" "build: built --target wmbench --target wmbench-fill" "main.sh did not build only wmbench and wmbench-fill"
  [[ "$(cat "$src/build/.torch-prefix")" == "$src/.venv/lib/"*"/site-packages/torch/share/cmake;$FAKE_BREW_PREFIX" ]] ||
    die "build/.torch-prefix is '$(cat "$src/build/.torch-prefix")', not the venv's torch and the Homebrew prefix"
  grep -q "^Torch_DIR:PATH=$src/.venv/lib/.*/site-packages/torch/share/cmake/Torch$" "$src/build/CMakeCache.txt" ||
    die "the build did not find Torch through build/.torch-prefix: $(grep '^Torch_DIR' "$src/build/CMakeCache.txt")"
  dirs=$(find "$src/results" -mindepth 1 -maxdepth 1 -type d -newer "$sim/logs/.stamp" | sort)
  n=$(printf '%s' "$dirs" | grep -c . || true)
  [[ "$n" == 1 ]] || die "main.sh made $n result folders in results/, not 1: $dirs"
  newest="$dirs"
  "$src/build/wmbench" check "$newest" >/dev/null || die "wmbench check refused $newest"
  say "main.sh made $(basename "$newest"), which wmbench check accepts"
  # Moved out of results/: the tests read the committed folders there (History tests compare them).
  # Each step's run in its own folder: two steps make folders of the same name (the -2 after a
  # committed folder of the same date), and mv refuses to move a folder over a non-empty one.
  mkdir -p "$sim/runs/$log"
  mv "$newest" "$sim/runs/$log/" || die "could not move $newest out of results/"
}
fresh_setup() { rm -rf "$src/.venv" "$FAKE_BREW_PREFIX"; }

# 1: main.sh, from scratch, under the bash a Mac runs `bash scripts/main.sh` with: 3.2 (/bin/bash),
# or bash 5 where no 3.2 is here. Once: it ran under both until 2026-12-05 (each a set-up from
# scratch, a build and the main job, about 80 s), and bash 5 still runs the Darwin set-up in step 4's
# test.sh (issue 44).
main_shell=5
if ((have32)); then main_shell=32; fi
fresh_setup
touch "$sim/logs/.stamp"; sleep 1
run_step "main.sh on a fresh copy" "$main_shell" main.log bash scripts/main.sh
must_say main.log "setup-macos: installing with Homebrew: cmake ninja cli11 nlohmann-json google-benchmark googletest fmt" "the set-up did not install the Homebrew formulae"
must_say main.log "setup-macos: making a virtual environment $src/.venv with $FAKE_BREW_PREFIX/opt/python@3.13/bin/python3.13" "the venv was not made with Homebrew's python@3.13"
check_main main.log

# 3 and 4: test.sh.
check_tests_use_venv() {
  local paths="$src/build/tests/test_paths.cpp"  # the tests' paths, generated by tests/CMakeLists.txt
  grep -qF "kTorchPython = \"$src/.venv/bin/python\";" "$paths" ||
    die "the Python child's tests do not use the venv's python: $(grep -F 'kTorchPython' "$paths" 2>/dev/null || echo "no $paths")"
  # Read whole, then searched: `ctest ... | grep -q` fails under pipefail once grep stops reading early.
  local listing
  listing="$(cd "$src/build" && ctest -N -V -R '^plots\.')" || die "ctest -N could not list the chart tests"
  grep -qF "$src/.venv/bin/python" <<<"$listing" || die "the chart tests (plots.*) do not use the venv's python"
}
# The tests whose outcome depends on the Darwin set-up: those that start the venv's python
# (the unit suite's binary is the one stage 1 runs, on this same kernel: it starts no python of the
# set-up's; the unit tests named Python* are still taken by the word) (WMBENCH_TORCH_PYTHON: the Python child; WMBENCH_PYTHON and the run's charts). The
# other integration tests run the same binaries as .ci/run's stage 1 on this same kernel, and the
# machine-alone ones (*Exclusive: real swap, a memory cgroup) a Mac skips; stage 1 runs them all.
# The releases tests (integration.Releases*) match "Python" by name only: they make their own envs
# from Debian's python3 and python3-torch, which the simulated Mac's stand-in python3 is not, so
# they are left out here (stage 1 runs them, stage 2 their refusals; on a real Mac they are unverified).
venv_tests="${WMBENCH_SIM_TESTS:-Conformance|Python|PyTorch|RunChild|CompareChildren|RunCharts|HistoryPlot|^plots\.TableTest\$}"
# Out of it: the machine-alone tests, the releases (stage 1 runs them), and three native-child tests
# that "PyTorch" in their names selects but that never start a python (76 s of this step's test time
# on the 2-core VM, fresh-clone CI of 0177a29, 2026-12-04).
venv_tests_not='Exclusive|^integration\.Releases|^integration\.Scenarios\.MpsCiOnTheModelStopsByPyTorch|^integration\.Runner\.ARealCpuAllocationFailureIsStoppedByPyTorch|^integration\.FillChild\.CpuAllocationFailureIsReportedLikePyTorch'
if ((have32)); then
  run_step "test.sh, the tests that start the venv's python" 32 test-bash32.log \
    bash scripts/test.sh -R "$venv_tests" -E "$venv_tests_not"
  check_tests_use_venv
  must_say test-bash32.log "100% tests passed" "test.sh under bash 3.2 did not pass every test it ran"
  # The selection must keep finding the tests that use the venv (a rename would empty it silently).
  for t in integration.Conformance.HelloOnly integration.CompareChildren. plots.TableTest \
           integration.CommandChild.ARealPyTorchCpuAllocationFailureUnderAnAddressSpaceLimitIsPyTorch; do
    must_say test-bash32.log "$t" "the selection WMBENCH_SIM_TESTS no longer runs $t"
  done
fi
run_step "test.sh, two unit tests" 5 test-bash5.log bash scripts/test.sh -R '^unit\.(MetalDevice|ChildEnvironment)\.'
check_tests_use_venv
must_say test-bash5.log "100% tests passed" "test.sh under bash 5 did not pass the tests it ran"

# 5: set-up checks that must bite (bash 3.2 where there is one).
sh_for_checks=5
if ((have32)); then sh_for_checks=32; fi
rm -rf "$src/.venv"
run_step "set-up passes over a Python that pip has no torch for" "$sh_for_checks" fallback.log \
  env WMBENCH_PYTHON_FORMULAE="python@3.15 python@3.12" bash scripts/setup.sh
must_say fallback.log "pip has no torch as scripts/requirements-macos.txt asks for Python 3.15" "python@3.15 was not refused by pip's answer"
must_say fallback.log "making a virtual environment $src/.venv with $FAKE_BREW_PREFIX/opt/python@3.12/bin/python3.12" "the set-up did not fall back to python@3.12"
step_no=$((step_no + 1))
say "== step $step_no: set-up refuses macOS 13 (bash $sh_for_checks)"
set +e
(cd "$src" && PATH="$sim/bash$sh_for_checks:$fake:$PATH" FAKE_MACOS_VERSION=13.6.1 bash scripts/setup.sh) >"$sim/logs/macos13.log" 2>&1
rc=$?
set -e
cat "$sim/logs/macos13.log"
[[ "$rc" != 0 ]] || die "setup.sh accepted macOS 13.6.1"
must_say macos13.log "wmbench needs macOS 14 or newer" "the refusal of macOS 13 does not say why"

# 6: the set-up's refusals (issue 28), each with the stand-in that makes the case: sysctl (Rosetta),
# brew --prefix (an Intel Homebrew), uname -m (an Intel Mac), xcrun (the Xcode licence), lipo and a
# python3 whose torch lacks matplotlib or is built for another architecture (falls back to the venv).
# setup_case NAME LOG WANT(0 ok|1 refused) TEXT [VAR=VALUE...]: setup.sh with those variables.
setup_case() {
  local name="$1" log="$2" want="$3" text="$4" rc
  shift 4
  step_no=$((step_no + 1))
  say "== step $step_no: set-up: $name (bash $sh_for_checks)"
  set +e
  (cd "$src" && env PATH="$sim/bash$sh_for_checks:${case_path:-}$fake:$PATH" "$@" bash scripts/setup.sh) >"$sim/logs/$log" 2>&1
  rc=$?
  set -e
  cat "$sim/logs/$log"
  if [[ "$want" == 0 ]]; then
    [[ "$rc" == 0 ]] || die "set-up failed on: $name (exit $rc)"
  else
    [[ "$rc" != 0 ]] || die "set-up accepted: $name"
  fi
  must_say "$log" "$text" "set-up: $name"
}
case_path=""
setup_case "refuses a shell under Rosetta" rosetta.log 1 "this shell runs under Rosetta (uname -m says x86_64" \
  FAKE_MACOS_TRANSLATED=1 FAKE_MACOS_UNAME_M=x86_64
setup_case "refuses an Intel Homebrew (/usr/local) on Apple silicon" intel-brew.log 1 \
  "the Homebrew here is the Intel one in /usr/local" FAKE_BREW_SAYS_PREFIX=/usr/local
setup_case "refuses an unaccepted Xcode licence" xcode-licence.log 1 "the Xcode licence has not been accepted" \
  FAKE_MACOS_XCODE_LICENSE=unaccepted
setup_case "says plainly that an Intel Mac has no MPS" intel-mac.log 0 "this is an Intel Mac (x86_64): it has no MPS" \
  FAKE_MACOS_UNAME_M=x86_64 FAKE_MACOS_LIBTORCH_ARCHS=x86_64
# A python3 on PATH that imports the venv's torch (2.11.0+standin, its CMake files, matplotlib).
mkdir -p "$sim/py-fits" "$sim/py-no-charts/hide/matplotlib"
printf '#!/bin/sh\nexec "%s/.venv/bin/python" "$@"\n' "$src" > "$sim/py-fits/python3"
printf 'raise ImportError("stand-in: this python has no matplotlib")\n' > "$sim/py-no-charts/hide/matplotlib/__init__.py"
printf '#!/bin/sh\nPYTHONPATH="%s" exec "%s/.venv/bin/python" "$@"\n' "$sim/py-no-charts/hide" "$src" > "$sim/py-no-charts/python3"
chmod 755 "$sim/py-fits/python3" "$sim/py-no-charts/python3"
case_path="$sim/py-fits:"
setup_case "takes a python3 whose torch fits (the control)" py-fits.log 0 \
  "setup-macos: libtorch: the PyTorch 2.11.0+standin"
must_say py-fits.log "that $sim/py-fits/python3 imports" "the set-up did not take the python3 whose torch fits"
setup_case "passes over a python3 whose libtorch is x86_64 on arm64" py-arch.log 0 \
  "but its libtorch is built for x86_64, this Mac is arm64 (it cannot link); using pip torch in" FAKE_MACOS_LIBTORCH_ARCHS=x86_64
must_say py-arch.log "setup-macos: libtorch: pip's torch 2.11.0+standin" "the set-up did not fall back to the venv"
case_path="$sim/py-no-charts:"
setup_case "passes over a python3 whose torch lacks matplotlib" py-charts.log 0 \
  "but it does not import matplotlib (the charts need it); using pip torch in"
must_say py-charts.log "setup-macos: libtorch: pip's torch 2.11.0+standin" "the set-up did not fall back to the venv"
case_path=""
# The Linux-only scripts say so on a Mac (not `mapfile: command not found`).
for s in cross-macos lint-workflows gpu-run; do
  step_no=$((step_no + 1))
  say "== step $step_no: scripts/$s.sh says it is for Linux (bash $sh_for_checks)"
  set +e
  (cd "$src" && PATH="$sim/bash$sh_for_checks:$fake:$PATH" bash "scripts/$s.sh" /tmp/unused) >"$sim/logs/$s.log" 2>&1
  rc=$?
  set -e
  cat "$sim/logs/$s.log"
  [[ "$rc" == 2 ]] || die "scripts/$s.sh on the simulated Mac exited $rc, not 2"
  must_say "$s.log" "$s: this script runs on Linux only" "scripts/$s.sh on a Mac"
done

say "all steps passed in $(( $(date +%s) - start )) s (bash 3.2: $( ((have32)) && echo ran || echo SKIPPED))"
