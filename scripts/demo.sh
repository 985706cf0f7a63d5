#!/usr/bin/env bash
# Runs the optimus pipeline over the embedded testbed and writes every table
# into an output folder: fit | predict | solve | place, as an operator would
# run it from cron. Usage: scripts/demo.sh BIN OUTDIR
set -euo pipefail
bin=${1:-bin/optimus}
out=${2:-out}
mkdir -p "$out"
tb="$out/testbed"

"$bin" datasets export testbed -o "$tb"
echo "testbed:     $tb/{cluster,jobs,loss,speed,truth}.parquet"

# Learn each job's convergence and speed models from its own metrics.
"$bin" fit -i "$tb/loss.parquet" --speed "$tb/speed.parquet" --jobs "$tb/jobs.parquet" -o "$out/models.parquet"
echo "models:      $out/models.parquet"

# Predict, decide and place in one pipe (Arrow IPC streams between the steps),
# keeping each intermediate table.
"$bin" predict -i "$tb/jobs.parquet" --models "$out/models.parquet" -o "$out/predictions.parquet"
"$bin" solve --cluster "$tb/cluster.parquet" -i "$out/predictions.parquet" -o "$out/allocation.parquet"
"$bin" place --cluster "$tb/cluster.parquet" -i "$out/allocation.parquet" -o "$out/plan.parquet"
echo "predictions: $out/predictions.parquet"
echo "allocation:  $out/allocation.parquet"
echo "plan:        $out/plan.parquet"

# The same decisions through a pipe, compared with the files above.
"$bin" predict -i "$tb/jobs.parquet" --models "$out/models.parquet" \
  | "$bin" solve --cluster "$tb/cluster.parquet" \
  | "$bin" place --cluster "$tb/cluster.parquet" -o "$out/plan-piped.parquet"
if cmp -s "$out/plan.parquet" "$out/plan-piped.parquet"; then
  echo "piped plan:  identical to the step-by-step one"
else
  echo "demo: the piped plan differs from the step-by-step one ($out/plan-piped.parquet, $out/plan.parquet)" >&2
  exit 1
fi

# The baselines on the same input, for comparison.
for policy in drf tetris fifo; do
  "$bin" solve --cluster "$tb/cluster.parquet" -i "$out/predictions.parquet" --policy "$policy" -o "$out/allocation-$policy.parquet"
done
echo "baselines:   $out/allocation-{drf,tetris,fifo}.parquet"

# CSV copies of the main tables, for a quick look.
for t in models predictions allocation plan; do
  "$bin" convert -i "$out/$t.parquet" -o "$out/$t.csv"
done
echo
echo "What the optimus policy decided (optimus convert --columns picks columns):"
"$bin" convert -i "$out/allocation.parquet" --format text \
  --columns job,progress_steps,remaining_steps_p50,loss_quality,ps,workers,alloc_ps,alloc_workers,alloc_speed,alloc_completion_s,status

# --- charts and report (chart/, docs/charts.md) ---------------------------
# Speed configurations to measure next, the baselines' placement (tetris
# leaves jobs waiting: its plan has null task indices), one page per chart
# kind, and the report of the whole run. Every page works offline.
"$bin" fit suggest --jobs "$tb/jobs.parquet" -i "$tb/speed.parquet" --samples 14 -o "$out/suggestions.parquet"
"$bin" place --cluster "$tb/cluster.parquet" -i "$out/allocation-tetris.parquet" -o "$out/plan-tetris.parquet"
mkdir -p "$out/charts"
"$bin" chart loss -i "$tb/loss.parquet" --models "$out/models.parquet" --predictions "$out/predictions.parquet" -o "$out/charts/loss.html"
"$bin" chart speed -i "$tb/speed.parquet" --models "$out/models.parquet" --suggestions "$out/suggestions.parquet" -o "$out/charts/speed.html"
"$bin" chart allocation -i "$out/allocation.parquet" -i "$out/allocation-drf.parquet" -i "$out/allocation-tetris.parquet" \
  -i "$out/allocation-fifo.parquet" --cluster "$tb/cluster.parquet" -o "$out/charts/allocation.html"
"$bin" chart plan -i "$out/plan.parquet" --cluster "$tb/cluster.parquet" -o "$out/charts/plan.html"
echo
echo "charts:      $out/charts/{loss,speed,allocation,plan}.html"

# --- simulate (issue 10): a small simulation of the testbed-sized workload ---
"$bin" simulate --seeds 1-2 --compare -q --dir "$out/simulate" -o "$out/simulate/comparison.csv"
echo
echo "simulation:  $out/simulate/sim_{summary,comparison,jobs,allocations,utilisation}.parquet"
"$bin" convert -i "$out/simulate/sim_comparison.parquet" --format text \
  --columns policy,knowledge,seeds,mean_jct_s,jct_ratio,makespan_ratio,behind_optimus,restarts

# The simulation's JCT CDF per policy, allocation and utilisation over time
# (chart simulation), then the report of the whole run, the simulation too.
"$bin" chart simulation -i "$out/simulate/sim_jobs.parquet" --allocations "$out/simulate/sim_allocations.parquet" \
  --utilisation "$out/simulate/sim_utilisation.parquet" -o "$out/charts/simulation.html"
"$bin" report --loss "$tb/loss.parquet" --speed "$tb/speed.parquet" --cluster "$tb/cluster.parquet" \
  --models "$out/models.parquet" --suggestions "$out/suggestions.parquet" --predictions "$out/predictions.parquet" \
  --allocation "$out/allocation.parquet" --allocation "$out/allocation-drf.parquet" \
  --allocation "$out/allocation-tetris.parquet" --allocation "$out/allocation-fifo.parquet" \
  --plan "$out/plan.parquet" --simulation "$out/simulate" -o "$out/report.html"
echo
echo "charts:      $out/charts/simulation.html"
echo "report:      $out/report.html (open it in a browser; it needs no network)"
