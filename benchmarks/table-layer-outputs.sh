#!/usr/bin/env bash
# Writes what optimus outputs for a fixed set of inputs into OUTDIR, so that
# two builds can be compared byte for byte (cmp): the testbed pipeline in
# every format and as a pipe, the baselines, a placement with --current, a
# generated 100,000-task workload through solve and place (files and pipes),
# fit on generated metrics, eval, fit suggest, ps-blocks and convert.
# Usage: benchmarks/table-layer-outputs.sh BIN OUTDIR [METRICS_DIR]
# METRICS_DIR holds speed1k.parquet (1,000 jobs x 20 samples) and
# loss10k.parquet (10,000 jobs x 1,000 points) from benchmarks/genmetrics;
# without it the fit-at-scale outputs are skipped.
set -euo pipefail
bin=$1
out=$2
metrics=${3:-}
data=$(cd "$(dirname "$0")/../.." && pwd)/shared/data
mkdir -p "$out"
tb="$out/testbed"

"$bin" datasets export testbed -o "$tb"
"$bin" fit -i "$tb/loss.parquet" --speed "$tb/speed.parquet" --jobs "$tb/jobs.parquet" -o "$out/models.parquet" 2>"$out/fit.stderr"
"$bin" predict -i "$tb/jobs.parquet" --models "$out/models.parquet" -o "$out/predictions.parquet"
for ext in parquet csv arrow arrows; do
  "$bin" solve --cluster "$tb/cluster.parquet" -i "$out/predictions.parquet" -o "$out/allocation.$ext"
  "$bin" place --cluster "$tb/cluster.parquet" -i "$out/allocation.parquet" -o "$out/plan.$ext"
done
"$bin" place --cluster "$tb/cluster.parquet" -i "$out/allocation.parquet" --current "$out/plan.parquet" -o "$out/plan-current.parquet"
"$bin" fit -i "$tb/loss.parquet" --speed "$tb/speed.parquet" --jobs "$tb/jobs.parquet" \
  | "$bin" predict -i "$tb/jobs.parquet" --models /dev/stdin >"$out/predictions-piped.arrows" 2>/dev/null || true
"$bin" predict -i "$tb/jobs.parquet" --models "$out/models.parquet" \
  | "$bin" solve --cluster "$tb/cluster.parquet" \
  | "$bin" place --cluster "$tb/cluster.parquet" >"$out/plan-piped.arrows"
for policy in drf tetris fifo; do
  "$bin" solve --cluster "$tb/cluster.parquet" -i "$out/predictions.parquet" --policy "$policy" -o "$out/allocation-$policy.parquet"
done
for policy in spread pack; do
  "$bin" place --cluster "$tb/cluster.parquet" -i "$out/allocation.parquet" --policy "$policy" -o "$out/plan-$policy.parquet"
done
for t in models predictions allocation plan; do
  "$bin" convert -i "$out/$t.parquet" -o "$out/$t-converted.csv"
  "$bin" convert -i "$out/$t.parquet" --format text >"$out/$t.txt"
done
"$bin" convert -i "$out/plan.csv" -o "$out/plan-from-csv.parquet"
"$bin" fit suggest --jobs "$tb/jobs.parquet" -i "$tb/speed.parquet" -o "$out/suggestions.parquet"
"$bin" datasets export pollux-curves -o "$out/curves"
"$bin" eval convergence -i "$out/curves/loss.parquet" --jobs "$out/curves/jobs.parquet" -o "$out/convergence-eval.parquet"
if [ -f "$data/speed/ps-sync-measured.csv" ]; then
  "$bin" eval speed -i "$data/speed/ps-sync-measured.csv" --key model -o "$out/speed-eval-dl2.parquet"
fi
"$bin" place ps-blocks --model vgg-16 --ps 4 -o "$out/ps-assignment.parquet"
"$bin" place ps-blocks --model resnet-50 --ps 8 --compare -o "$out/ps-balance.parquet"

# A generated workload at 100,000 tasks (benchmarks/solve-place.md).
g="$out/gen"
mkdir -p "$g"
"$bin" datasets generate --tasks 100000 --nodes 16000 --cluster "$g/cluster.parquet" -o "$g/predictions.parquet"
"$bin" solve --cluster "$g/cluster.parquet" -i "$g/predictions.parquet" -o "$g/allocation.parquet"
"$bin" place --cluster "$g/cluster.parquet" -i "$g/allocation.parquet" -o "$g/plan.parquet"
"$bin" place --cluster "$g/cluster.parquet" -i "$g/allocation.parquet" --current "$g/plan.parquet" -o "$g/plan-current.parquet"
"$bin" datasets generate --tasks 100000 --nodes 16000 --cluster "$g/cluster-piped.arrows" \
  | "$bin" solve --cluster "$g/cluster-piped.arrows" \
  | "$bin" place --cluster "$g/cluster-piped.arrows" >"$g/plan-piped.arrows"
"$bin" datasets generate --tasks 100000 --nodes 16000 --running 0 --cluster "$g/cluster-0.csv" -o "$g/predictions-0.csv"
"$bin" solve --cluster "$g/cluster-0.csv" -i "$g/predictions-0.csv" -o "$g/allocation-0.csv"
"$bin" place --cluster "$g/cluster-0.csv" -i "$g/allocation-0.csv" -o "$g/plan-0.arrow"

if [ -n "$metrics" ]; then
  "$bin" fit --speed "$metrics/speed1k.parquet" -o "$out/models-speed1k.parquet"
  "$bin" fit -i "$metrics/loss10k.parquet" -o "$out/models-loss10k.parquet" 2>"$out/fit-loss10k.stderr"
fi
