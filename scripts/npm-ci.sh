#!/usr/bin/env bash
# Installs the npm packages of DIR's package-lock.json into DIR/node_modules
# (npm ci: exactly the locked versions), unless they are there already from
# the same package.json, package-lock.json and Node.js: a stamp of those
# (DIR/node_modules/.optimus-npm-ci) says so. npm ci first removes
# node_modules, the stamp with it, and the stamp is written only after it
# succeeded, so a failed or partial install is never taken for a good one.
# Usage: scripts/npm-ci.sh DIR   (run by scripts/interop.sh and scripts/browser.sh)
set -euo pipefail
dir=$1
stamp=$dir/node_modules/.optimus-npm-ci
want="node $(node --version) $(cat "$dir/package.json" "$dir/package-lock.json" | sha256sum | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >&2
echo "$want" > "$stamp"
