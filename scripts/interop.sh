#!/usr/bin/env bash
# Interop checks: files optimus writes, read by real readers from npm
# (DuckDB, Apache Arrow JS, hyparquet; see interop/check.mjs).
# Usage: scripts/interop.sh BIN
# Without Node.js (18 or later) and npm the checks are skipped with a notice,
# unless REQUIRE_INTEROP=1 (as .ci/run sets), when that is an error.
set -euo pipefail
bin=$(cd "$(dirname "${1:-bin/optimus}")" && pwd)/$(basename "${1:-bin/optimus}")
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/test-status.sh"

missing() {
  if [ "${REQUIRE_INTEROP:-0}" = 1 ]; then
    echo "interop: $1 (REQUIRE_INTEROP=1)" >&2; exit 1
  fi
  test_status "interop: skipped ($1)"
  echo "interop: skipped ($1; rerun 'make interop' once it is installed)" >&2; exit 0
}
command -v node >/dev/null && command -v npm >/dev/null || missing "Node.js and npm are required"
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 18 ] || missing "Node.js 18 or later is required, found $(node --version)"
[ -x "$bin" ] || { echo "interop: no optimus binary at $bin (run 'make build')" >&2; exit 1; }

# The exact versions of package-lock.json, installed when it changed.
"$root/scripts/npm-ci.sh" "$root/interop"
cd "$root/interop"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
node check.mjs "$bin" | tee "$log"
test_status "interop: ran ($(tail -n 1 "$log" | sed 's/^interop: //'))"
