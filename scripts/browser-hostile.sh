#!/usr/bin/env bash
# Browser check of the pages optimus writes from hostile names: the testbed
# and the simulate testbed with every job, node and model renamed to a
# payload (go-echarts' __f__ function marker, a name ending in it, <img
# onerror>, </script><script>, quotes and backslashes, U+2028/U+2029, a
# long name, control and bidi characters; interop/browser/hostile.mjs
# rename), through fit, predict, solve, place and simulate, drawn by every
# chart kind and the report, an allocation whose policy label (its
# file name) is markup, and a plan of 99 jobs on 80 nodes (datasets
# generate, solve, place), every job and node a payload, whose grid shows
# 30 jobs at a time. Each page is loaded in headless Chromium and must
# run nothing and draw every chart, on load and with its tooltips shown,
# the paged grid window by window (hostile.mjs check). Three broken copies
# must fail the same check: one without its Content-Security-Policy and
# with an inline handler (it runs), one with its policy and an inline
# script (the policy refuses it), and a paged grid whose slider will not
# narrow to 30 jobs and whose tooltips leave out the names.
# Usage: scripts/browser-hostile.sh BIN
# With HOSTILE_OUT=DIR the pages are drawn into DIR and kept, with a stamp of
# BIN, this script and hostile.mjs: a later run with the same three checks
# them again without drawing them anew (make test passes $(OUT)/hostile).
# Without Node.js 18+, npm or Chromium the check is skipped with a notice,
# unless REQUIRE_INTEROP=1.
set -euo pipefail
bin=$(cd "$(dirname "${1:-bin/optimus}")" && pwd)/$(basename "${1:-bin/optimus}")
root=$(cd "$(dirname "$0")/.." && pwd)
chromium=${CHROMIUM:-/usr/bin/chromium}

. "$root/scripts/test-status.sh"

missing() {
  if [ "${REQUIRE_INTEROP:-0}" = 1 ]; then
    echo "browser-hostile: $1 (REQUIRE_INTEROP=1)" >&2; exit 1
  fi
  test_status "browser-hostile: skipped ($1)"
  echo "browser-hostile: skipped ($1)" >&2; exit 0
}
command -v node >/dev/null && command -v npm >/dev/null || missing "Node.js and npm are required"
[ "$(node -p 'process.versions.node.split(".")[0]')" -ge 18 ] || missing "Node.js 18 or later is required"
[ -x "$chromium" ] || missing "Chromium is required at $chromium"
[ -x "$bin" ] || { echo "browser-hostile: no optimus binary at $bin (run 'make build')" >&2; exit 1; }

hostile_out=
if [ -n "${HOSTILE_OUT:-}" ]; then mkdir -p "$HOSTILE_OUT" && hostile_out=$(cd "$HOSTILE_OUT" && pwd); fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root/interop/browser"
"$root/scripts/npm-ci.sh" "$root/interop/browser"
export CHROMIUM="$chromium"
o() { "$bin" "$@" -q; }

pages=$tmp/pages
stamp=
if [ -n "$hostile_out" ]; then
  pages=$hostile_out/pages
  stamp=$(cat "$bin" "$root/scripts/browser-hostile.sh" hostile.mjs | sha256sum | cut -d' ' -f1)
fi
if [ -n "$stamp" ] && [ "$stamp" = "$(cat "$hostile_out/.stamp" 2>/dev/null)" ]; then
  echo "browser-hostile: $pages is current (drawn by this $bin, script and hostile.mjs)"
else # draw the pages, down to the matching fi
[ -z "$stamp" ] || rm -rf "$hostile_out/.stamp" "$pages"

# The tables as CSV, every name a payload.
for ds in testbed simulate-testbed; do
  o datasets export "$ds" -o "$tmp/$ds"
  for f in "$tmp/$ds"/*.parquet; do o convert -i "$f" --format csv > "${f%.parquet}.csv"; done
  mkdir "$tmp/$ds-hostile"
  node hostile.mjs rename "$tmp/$ds-hostile" "$tmp/$ds"/*.csv
done
tb=$tmp/testbed-hostile st=$tmp/simulate-testbed-hostile out=$tmp/out
mkdir "$out"
o fit -i "$tb/loss.csv" --speed "$tb/speed.csv" --jobs "$tb/jobs.csv" -o "$out/models.parquet"
o fit suggest --jobs "$tb/jobs.csv" -i "$tb/speed.csv" --samples 14 -o "$out/suggestions.parquet"
o predict -i "$tb/jobs.csv" --models "$out/models.parquet" -o "$out/predictions.parquet"
o solve --cluster "$tb/cluster.csv" -i "$out/predictions.parquet" -o "$out/allocation.parquet"
o solve --cluster "$tb/cluster.csv" -i "$out/predictions.parquet" --policy tetris -o "$out/allocation-tetris.parquet"
o place --cluster "$tb/cluster.csv" -i "$out/allocation.parquet" -o "$out/plan.parquet"
# A policy label is the file's name when alloc_policy is null.
o convert -i "$out/allocation-tetris.parquet" --format csv \
  | awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "alloc_policy") c = i } NR > 1 && c { $c = "" } { print }' \
  > "$out/p<img src=x onerror=document.body.dataset.policy=1>.csv"
o simulate --cluster "$st/cluster.csv" --workload "$st/workload.csv" --profiles "$st/profiles.csv" \
  --profile-speeds "$st/profile_speeds.csv" --seeds 1 --dir "$out/sim" -o "$out/sim/summary.csv"
# More than 60 jobs, so that the plan's grid pages them (30 at a time).
big=$tmp/big
mkdir "$big" "$big-hostile"
o datasets generate --tasks 600 --nodes 80 --cluster "$big/cluster.csv" -o "$big/predictions.parquet"
o solve --cluster "$big/cluster.csv" -i "$big/predictions.parquet" -o "$big/allocation.parquet"
o place --cluster "$big/cluster.csv" -i "$big/allocation.parquet" -o "$big/plan.csv"
node hostile.mjs rename "$big-hostile" "$big/plan.csv" "$big/cluster.csv"

mkdir "$pages"
o chart loss -i "$tb/loss.csv" --models "$out/models.parquet" --predictions "$out/predictions.parquet" -o "$pages/loss.html"
o chart speed -i "$tb/speed.csv" --models "$out/models.parquet" --suggestions "$out/suggestions.parquet" -o "$pages/speed.html"
o chart allocation -i "$out/allocation.parquet" -i "$out/p<img src=x onerror=document.body.dataset.policy=1>.csv" \
  --cluster "$tb/cluster.csv" -o "$pages/allocation.html"
o chart plan -i "$out/plan.parquet" --cluster "$tb/cluster.csv" -o "$pages/plan.html"
o chart simulation -i "$out/sim/sim_jobs.parquet" --allocations "$out/sim/sim_allocations.parquet" \
  --utilisation "$out/sim/sim_utilisation.parquet" -o "$pages/simulation.html"
o report --loss "$tb/loss.csv" --speed "$tb/speed.csv" --cluster "$tb/cluster.csv" --models "$out/models.parquet" \
  --suggestions "$out/suggestions.parquet" --predictions "$out/predictions.parquet" --allocation "$out/allocation.parquet" \
  --allocation "$out/allocation-tetris.parquet" --plan "$out/plan.parquet" --simulation "$out/sim" -o "$pages/report.html"
o chart plan -i "$big-hostile/plan.csv" --cluster "$big-hostile/cluster.csv" -o "$pages/plan-paged.html"
[ -z "$stamp" ] || echo "$stamp" > "$hostile_out/.stamp"
fi
node hostile.mjs check "$pages"/*.html | tee "$tmp/check.log"
grep -q "^ok   plan-paged.html: .*paged through plan_1: 4 windows of 30 of 99 jobs" "$tmp/check.log" || {
  echo "browser-hostile: the paged plan grid was not paged through window by window" >&2; exit 1; }

# The negative controls: the check must see a handler that runs, and the
# policy must refuse an inline script.
sed -e '/http-equiv="Content-Security-Policy"/d' -e 's#<body>#<body><img src=x onerror="document.body.dataset.control=1">#' \
  "$pages/plan.html" > "$tmp/no-csp.html"
sed 's#<body>#<body><script>document.body.dataset.control=1</script>#' "$pages/plan.html" > "$tmp/inline.html"
# The paged grid, its jobs' slider unable to narrow below 60 jobs and its
# tooltip formatter the cell label's ("2P 3W", no names): the windows and
# the names in the tooltips must be missed.
sed -e 's#"orient":"vertical",#"orient":"vertical","minValueSpan":60,#' -e 's#"tooltip.formatter":"planCellTooltip"#"tooltip.formatter":"planCellLabel"#' \
  "$pages/plan-paged.html" > "$tmp/paged-broken.html"
# All in one run of the check (one Chromium): each page must fail, for its
# own reason.
node hostile.mjs check "$tmp/no-csp.html" "$tmp/inline.html" "$tmp/paged-broken.html" > "$tmp/controls.log" || true
sed -n '/^FAIL no-csp.html/,/^[^ ]/p' "$tmp/controls.log" > "$tmp/no-csp.log"
sed -n '/^FAIL inline.html/,/^[^ ]/p' "$tmp/controls.log" > "$tmp/inline.log"
sed -n '/^FAIL paged-broken.html/,/^[^ ]/p' "$tmp/controls.log" > "$tmp/paged-broken.log"
grep -q "dataset has control" "$tmp/no-csp.log" && grep -q "CSP violation: script-src" "$tmp/inline.log" &&
  grep -q "moved to jobs [0-9]*-[0-9]*, the axis shows" "$tmp/paged-broken.log" && grep -q "does not show .* as text" "$tmp/paged-broken.log" || {
  cat "$tmp/controls.log" >&2; echo "browser-hostile: the check passed a broken page, or failed it for the wrong reasons; it cannot be trusted" >&2; exit 1; }
echo "browser-hostile: an inline handler without the policy is caught; the policy refuses an inline script; a grid that will not page, or tooltips without the names, are caught"
test_status "browser-hostile: ran (7 pages of hostile names, 3 broken copies caught)"
