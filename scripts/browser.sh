#!/usr/bin/env bash
# Browser check of the HTML pages optimus writes: the demo pipeline's pages
# (scripts/demo.sh draws every chart kind and the report) and two more drawn
# here (an empty table; fitted and oracle runs of one seed), each loaded in
# headless Chromium from file:// with no network (interop/browser/check.mjs,
# playwright-core from npm driving Debian's /usr/bin/chromium). A
# deliberately broken copy of a page must fail the same check, so that the
# check is known to be able to fail.
# Usage: scripts/browser.sh BIN [SHOTDIR]   (SHOTDIR keeps the screenshots)
# With DEMO_OUT=DIR it checks the demo's outputs in DIR, which must come from
# this BIN (make test passes the demo's out/, made or found current there);
# without it the demo runs into a temporary folder first.
# Without Node.js 18+, npm or Chromium the check is skipped with a notice,
# unless REQUIRE_INTEROP=1 (as .ci/run sets), when that is an error.
set -euo pipefail
bin=$(cd "$(dirname "${1:-bin/optimus}")" && pwd)/$(basename "${1:-bin/optimus}")
shots=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
chromium=${CHROMIUM:-/usr/bin/chromium}
. "$root/scripts/test-status.sh"

missing() {
  if [ "${REQUIRE_INTEROP:-0}" = 1 ]; then
    echo "browser: $1 (REQUIRE_INTEROP=1)" >&2; exit 1
  fi
  test_status "browser: skipped ($1)"
  echo "browser: skipped ($1; rerun 'make browser' once it is installed)" >&2; exit 0
}
command -v node >/dev/null && command -v npm >/dev/null || missing "Node.js and npm are required"
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 18 ] || missing "Node.js 18 or later is required, found $(node --version)"
[ -x "$chromium" ] || missing "Chromium is required at $chromium (Debian: apt-get install chromium)"
# echarts measures every label's line height as the width of a CJK character; without a font
# that has one, heights come out about a third too small and overlaps go unseen.
if command -v fc-list >/dev/null && ! fc-list ':charset=56fd' | grep -q .; then
  missing "a font with CJK characters is required for echarts' label heights (Debian: apt-get install fonts-wqy-microhei)"
fi
[ -x "$bin" ] || { echo "browser: no optimus binary at $bin (run 'make build')" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${DEMO_OUT:-}" ]; then
  out=$(cd "$DEMO_OUT" && pwd)
else
  out=$tmp/out
  "$root/scripts/demo.sh" "$bin" "$out" >/dev/null
fi
[ -f "$out/report.html" ] || { echo "browser: no report.html in $out (run scripts/demo.sh $bin $out)" >&2; exit 1; }

"$root/scripts/npm-ci.sh" "$root/interop/browser"
cd "$root/interop/browser"
export CHROMIUM="$chromium"
# Pages drawn here go to $extra, never into the demo's charts folder: with
# DEMO_OUT, $DEMO_OUT/browser-pages, kept with a stamp of BIN and this
# script and drawn again only when one changed (as browser-hostile.sh
# keeps its pages); else $tmp/charts.
extra=$tmp/charts stamp=
if [ -n "${DEMO_OUT:-}" ]; then
  extra=$out/browser-pages
  stamp=$(cat "$bin" "$root/scripts/browser.sh" | sha256sum | cut -d' ' -f1)
fi
if [ -n "$stamp" ] && [ "$stamp" = "$(cat "$extra/.stamp" 2>/dev/null)" ]; then
  echo "browser: $extra is current (drawn by this $bin and script)"
else
rm -rf "$extra" && mkdir -p "$extra"
# A page of an empty table, which says so and draws nothing.
printf 'job,step,value\n' > "$tmp/empty-loss.csv"
"$bin" chart loss -i "$tmp/empty-loss.csv" -o "$extra/empty-loss.html"
grep -q "is empty (0 rows)" "$extra/empty-loss.html"
# --- simulation chart: fitted and oracle runs (solid, dashed) of one seed
# picked with --seed, beside the demo's fitted-only simulation.html.
"$bin" simulate --seeds 1-2 --knowledge fitted,oracle -q --dir "$tmp/sim-knowledge" -o "$tmp/sim-knowledge/summary.csv"
"$bin" chart simulation -i "$tmp/sim-knowledge/sim_jobs.parquet" --allocations "$tmp/sim-knowledge/sim_allocations.parquet" \
  --utilisation "$tmp/sim-knowledge/sim_utilisation.parquet" --seed 2 -o "$extra/simulation-knowledge.html"
[ -z "$stamp" ] || echo "$stamp" > "$extra/.stamp"
fi
pages=("$out"/charts/*.html "$extra"/*.html "$out/report.html")

# The negative control: a page that fetches a script from the network and
# throws must fail, checked by the same run of check.mjs (one Chromium).
# (Without its Content-Security-Policy, which would refuse both before they
# run; scripts/browser-hostile.sh checks the policy.)
sed -e '/http-equiv="Content-Security-Policy"/d' -e 's#</head>#<script src="https://cdn.example.invalid/echarts.min.js"></script><script>throw new Error("deliberate")</script></head>#' \
  "$out/charts/plan.html" > "$tmp/broken.html"
node check.mjs ${shots:+--screenshots "$shots"} --json "$tmp/browser.json" --must-fail "$tmp/broken.html" "${pages[@]}" | tee "$tmp/check.log"
grep -q "must fail: request left the page" "$tmp/check.log" && grep -q "must fail: .*deliberate" "$tmp/check.log" || {
  echo "browser: the broken page failed for the wrong reasons" >&2; exit 1; }
echo "browser: a broken page (network request, script error) is caught"
# The report holds every kind's charts: no text over text or cut off, no
# bar under 2 px, no slider beyond its chart, at 800 and 1400 px.
node overlap.mjs "$out/report.html" "$extra/simulation-knowledge.html"
test_status "browser: ran (${#pages[@]} pages passed, a broken page caught)"
