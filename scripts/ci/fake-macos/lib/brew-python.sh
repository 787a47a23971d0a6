#!/bin/sh
# Stand-in for Homebrew's python@@VERSION@ (scripts/ci/fake-macos, laid down by bin/brew): Debian's
# /usr/bin/python3 under that name. `-m venv DIR` makes a venv whose pip (lib/pip) answers as for
# Python @VERSION@.
v=@VERSION@
lib=@LIB@
case "${1:-}" in --version|-V) echo "Python $v (stand-in: Debian's $(/usr/bin/python3 -V 2>&1))"; exit 0 ;; esac
if [ "${1:-}" = -m ] && [ "${2:-}" = venv ]; then
  shift 2
  exec /usr/bin/python3 "$lib/make_venv.py" "$v" "$@"
fi
exec /usr/bin/python3 "$@"
