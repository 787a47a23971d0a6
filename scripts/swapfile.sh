#!/usr/bin/env bash
# Makes or removes a swapfile for the real-swap tests (Linux, root).
#   scripts/swapfile.sh on  [SIZE_MiB] [PATH]   # default 4096 MiB at /var/tmp/wmbench.swap
#   scripts/swapfile.sh off [PATH]
#   scripts/swapfile.sh status
# `on` does nothing when swap is already active (prints what is there). `off` removes only the
# file this script made.
set -euo pipefail
cmd=${1:-status}
default_path=/var/tmp/wmbench.swap
case "$cmd" in
  on)
    size=${2:-4096}
    path=${3:-$default_path}
    if [ "$(id -u)" != 0 ]; then echo "swapfile.sh: needs root to make swap" >&2; exit 1; fi
    if [ -n "$(swapon --noheadings --show=NAME 2>/dev/null)" ]; then
      echo "swapfile.sh: swap already active:"; swapon --show; exit 0
    fi
    rm -f "$path"
    # dd rather than fallocate: swapon refuses files with holes/unwritten extents on some filesystems.
    dd if=/dev/zero of="$path" bs=1M count="$size" status=none
    chmod 600 "$path"
    mkswap "$path" >/dev/null
    if ! swapon "$path"; then rm -f "$path"; echo "swapfile.sh: swapon failed (filesystem without swap support?)" >&2; exit 1; fi
    echo "swapfile.sh: ${size} MiB of swap at $path"
    ;;
  off)
    path=${2:-$default_path}
    if [ -f "$path" ]; then
      swapoff "$path" 2>/dev/null || true
      rm -f "$path"
      echo "swapfile.sh: removed $path"
    fi
    ;;
  status)
    swapon --show || true
    ;;
  *)
    echo "usage: $0 on [SIZE_MiB] [PATH] | off [PATH] | status" >&2; exit 2;;
esac
