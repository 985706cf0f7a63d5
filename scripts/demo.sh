#!/usr/bin/env bash
# Runs the optimus pipeline over the embedded testbed and writes every
# table into an output folder. Usage: scripts/demo.sh BIN OUTDIR
set -euo pipefail
bin=${1:-bin/optimus}
out=${2:-out}
mkdir -p "$out"

"$bin" datasets export testbed -o "$out/testbed"
echo "testbed tables in $out/testbed: $(cd "$out/testbed" && echo *.parquet)"

# Each table also as CSV, for a quick look.
for t in "$out"/testbed/*.parquet; do
  "$bin" convert -i "$t" -o "$out/$(basename "${t%.parquet}").csv"
done
echo "CSV copies in $out/"
