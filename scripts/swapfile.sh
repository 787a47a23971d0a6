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
    size=${2-4096}
    path=${3:-$default_path}
    case "$size" in
      ''|*[!0-9]*|????????*) echo "swapfile.sh: SIZE_MiB '$size': allowed is a whole number of MiB, at most 7 digits" >&2; exit 2;;
    esac
    if [ "$(id -u)" != 0 ]; then echo "swapfile.sh: needs root to make swap" >&2; exit 1; fi
    if [ -n "$(swapon --noheadings --show=NAME 2>/dev/null)" ]; then
      echo "swapfile.sh: swap already active:"; swapon --show; exit 0
    fi
    rm -f "$path"
    free_mib=$(df -Pk "$(dirname "$path")" 2>/dev/null | awk 'NR == 2 { print int($4 / 1024) }')
    if [ -n "$free_mib" ] && [ "$((10#$size))" -gt "$free_mib" ]; then
      echo "swapfile.sh: ${size} MiB do not fit in $(dirname "$path") (${free_mib} MiB free)" >&2; exit 1
    fi
    # fallocate first: no block is written (dd took about 2 s of CPU per GiB here, and CI makes a
    # swapfile in four stages). Where swapon refuses such a file (btrfs, older XFS: "swapfile has
    # holes"), dd writes every block instead.
    enable() { chmod 600 "$path" && mkswap "$path" >/dev/null && swapon "$path"; }
    how="fallocate"
    if ! { fallocate -l "$((10#$size * 1048576))" "$path" && enable; } 2>/dev/null; then
      rm -f "$path"
      how="dd"
      if ! dd if=/dev/zero of="$path" bs=1M count="$size" status=none; then
        rm -f "$path"; echo "swapfile.sh: could not write ${size} MiB at $path" >&2; exit 1
      fi
      if ! enable; then rm -f "$path"; echo "swapfile.sh: swapon failed (filesystem without swap support?)" >&2; exit 1; fi
    fi
    echo "swapfile.sh: ${size} MiB of swap at $path ($how)"
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
