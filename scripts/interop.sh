#!/usr/bin/env bash
# Interop checks: files optimus writes, read by real readers from npm.
# Usage: scripts/interop.sh BIN
set -euo pipefail
bin=$(cd "$(dirname "${1:-bin/optimus}")" && pwd)/$(basename "${1:-bin/optimus}")
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  if [ "${REQUIRE_INTEROP:-0}" = 1 ]; then
    echo "interop: Node.js and npm are required (REQUIRE_INTEROP=1)" >&2; exit 1
  fi
  echo "interop: skipped (no Node.js; install it and rerun 'make interop')" >&2; exit 0
fi
echo "interop: pending" >&2
