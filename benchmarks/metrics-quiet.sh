#!/bin/sh
# Issue 19's measurement (benchmarks/metrics.md): event files of 10,000 jobs x
# 10,000 scalar points (4.3 GB) read from the page cache on 2 cores, with
# `cat FILES > /dev/null` timed in the same run. Run from the repository root on
# a quiet machine. The first run writes the inputs (4.3 GB of event files; about
# 30 s of writing on a quiet 2-core machine, 1,000 x 10,000 took 2.9 s at load 3)
# and reads them once; the next three are the figures (GB/s is the target's;
# of-cat is the reading's speed over cat's). Needs about 6 GB free under
# $OPTIMUS_METRICS_BENCH_DIR; OPTIMUS_METRICS_BENCH=100x10000 makes it a smoke test.
set -eu
dir=${OPTIMUS_METRICS_BENCH_DIR:-/var/tmp/optimus-metrics-bench}
export OPTIMUS_METRICS_BENCH=${OPTIMUS_METRICS_BENCH:-10000x10000} OPTIMUS_METRICS_BENCH_DIR="$dir" GOMAXPROCS=2
go test -c -o "$dir.test" ./metrics
cd metrics
"$dir.test" -test.run '^$' -test.bench ReadEvents -test.benchtime 1x -test.timeout 60m
uptime
"$dir.test" -test.run '^$' -test.bench ReadEvents -test.benchtime 1x -test.count 3 -test.timeout 60m
uptime
rm -rf "$dir" "$dir.test"
