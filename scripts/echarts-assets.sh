#!/usr/bin/env bash
# Fetches echarts' JavaScript (dist/echarts.min.js of the npm package
# `echarts`, pinned below) into chart/assets/, where go:embed puts it into
# the binary so that every chart page works offline. The file is git-ignored:
# third-party code is fetched at build time, never committed.
# Usage: scripts/echarts-assets.sh   (run by `make assets`; needs npm)
set -euo pipefail
version=5.6.0
# sha256 of dist/echarts.min.js in echarts@5.6.0 (npm pack also checks the
# tarball against the registry's integrity hash).
want=bf4a223524e40b77c304bec67e1222cf551f14880cf42c69dc046558e11c07b1
root=$(cd "$(dirname "$0")/.." && pwd)
dest=$root/chart/assets/echarts.min.js

if [ -f "$dest" ] && [ "$(sha256sum "$dest" | cut -d' ' -f1)" = "$want" ]; then
  exit 0
fi
command -v npm >/dev/null || {
  echo "assets: npm is needed to fetch echarts@$version into chart/assets/echarts.min.js" >&2
  echo "assets: install Node.js and npm (Debian: apt-get install npm), then run 'make assets'" >&2
  exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack "echarts@$version" --silent --no-audit --no-fund >/dev/null)
tar -xzf "$tmp/echarts-$version.tgz" -C "$tmp" package/dist/echarts.min.js
got=$(sha256sum "$tmp/package/dist/echarts.min.js" | cut -d' ' -f1)
if [ "$got" != "$want" ]; then
  echo "assets: echarts@$version dist/echarts.min.js has sha256 $got, expected $want" >&2
  exit 1
fi
mkdir -p "$(dirname "$dest")"
mv "$tmp/package/dist/echarts.min.js" "$dest.tmp" && mv "$dest.tmp" "$dest"
echo "assets: chart/assets/echarts.min.js (echarts $version)" >&2
