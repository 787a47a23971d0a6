#!/usr/bin/env bash
# Installs what wmbench needs to build and test, only what is missing.
#   Debian/Ubuntu: apt packages (libtorch-dev is libtorch 1.13 CPU on Debian 12; python3-torch is the
#   same torch for /usr/bin/python3, which runs the Python fill child's conformance tests).
#   macOS: scripts/setup-macos.sh (Homebrew, and a libtorch with MPS).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [[ "$(uname -s)" == Darwin ]]; then
  exec bash "$here/setup-macos.sh"
fi

pkgs=(cmake ninja-build g++ git pkg-config libtorch-dev libcli11-dev nlohmann-json3-dev libfmt-dev
      libgtest-dev libgmock-dev libbenchmark-dev python3 python3-matplotlib python3-torch python3-pip python3-venv util-linux ccache)
# The tests only (scripts/test.sh sets it): Debian's chromium opens the site `wmbench publish` makes
# (tests/browser/test_site.py); fonts-liberation, its recommended fonts, for a readable screenshot.
if [[ "${WMBENCH_SETUP_BROWSER:-0}" == 1 ]]; then
  pkgs+=(chromium fonts-liberation)
fi
if [[ "${WMBENCH_SETUP_FUZZ:-0}" == 1 ]]; then
  pkgs+=(clang libclang-rt-dev)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if ! command -v apt-get >/dev/null; then
    echo "setup: missing ${missing[*]} and no apt-get here; install them with your package manager" >&2
    exit 1
  fi
  sudo=""
  [[ "$(id -u)" == 0 ]] || sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "setup: all packages present"
