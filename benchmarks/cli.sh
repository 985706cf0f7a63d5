#!/usr/bin/env bash
# The CLI's solve then place through Parquet files at 100,000 tasks on 16,000
# nodes (issue 25), the binaries side by side in one call (session 6's cli.sh,
# kept here):
#   each round runs every binary's pair forward, then each bench binary's
#   BenchmarkPlan (the same plan in process: 30% running, 100k tasks,
#   -test.cpu 2, 3 plans), then the pairs backward.
# Usage: benchmarks/cli.sh DIR ROUNDS BIN... [-- BENCH.test...]
#   DIR holds c100k.parquet and p100k.parquet (made when missing, by the first
#   BIN: datasets generate --tasks 100000 --nodes 16000 --seed 1 --running 0.3)
#   and the outputs r/a-NAME.parquet and r/plan-NAME.parquet, NAME a binary's
#   file name; BENCH.test are `go test -c ./benchmarks` binaries.
# Prints one line per run: "sp NAME wall user sys maxrss_kb", the benchmark
# lines prefixed with their binary's name, and `uptime` at each round's start
# and at the end; then checks that every binary wrote the same allocation and
# plan bytes as the first.
set -euo pipefail
dir=$1 rounds=$2; shift 2
bins=() benches=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do bins+=("$(realpath "$1")"); shift; done
[ $# -gt 0 ] && shift
for b in "$@"; do benches+=("$(realpath "$b")"); done
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir/r"
cd "$dir"
[ -f p100k.parquet ] || "${bins[0]}" datasets generate --tasks 100000 --nodes 16000 --seed 1 --running 0.3 \
  --cluster c100k.parquet -o p100k.parquet 2>/dev/null
sp() { # sp BIN: solve then place, the outputs named after BIN
  local n; n=$(basename "$1")
  /usr/bin/time -f "sp $n %e %U %S %M" -o r/time.txt bash -c \
    "'$1' solve --cluster c100k.parquet -i p100k.parquet -o r/a-$n.parquet 2>/dev/null &&
     '$1' place --cluster c100k.parquet -i r/a-$n.parquet -o r/plan-$n.parquet 2>/dev/null"
  cat r/time.txt
}
for _ in $(seq "$rounds"); do
  uptime
  for b in "${bins[@]}"; do sp "$b"; done
  for t in "${benches[@]}"; do
    (cd "$root/benchmarks" && "$t" -test.run '^$' -test.bench 'Plan$/^running=0.3/tasks=100000/' \
      -test.cpu 2 -test.benchtime 3x | grep Benchmark | sed "s/^/$(basename "$t") /")
  done
  for ((i = ${#bins[@]} - 1; i >= 0; i--)); do sp "${bins[i]}"; done
done
uptime
first=$(basename "${bins[0]}")
for b in "${bins[@]:1}"; do
  n=$(basename "$b")
  cmp "r/a-$first.parquet" "r/a-$n.parquet" && cmp "r/plan-$first.parquet" "r/plan-$n.parquet" &&
    echo "same bytes: $first $n"
done
