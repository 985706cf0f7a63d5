#!/usr/bin/env bash
# Prints the closing line of `make test`: which suites ran and which were
# skipped and why, so that a green run cannot hide a skipped suite.
# Usage: scripts/test-summary.sh STATUS
# STATUS holds the lines the check scripts recorded ("interop: ran (...)",
# "browser: skipped (...)"; scripts/test-status.sh); vet, gofmt and go test
# ran when make got this far. The Kubernetes tests find their servers as
# executor/kubernetes/ktest does: $OPTIMUS_KUBE_APISERVER and $OPTIMUS_ETCD,
# else tools/k8s/bin (under CI=true they fail instead of skipping); the
# shared-data tests find shared/data as the metrics tests do.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
status=$1

ran=("vet" "gofmt" "go test ./...")
skipped=()
api=${OPTIMUS_KUBE_APISERVER:-$root/tools/k8s/bin/kube-apiserver}
etcd=${OPTIMUS_ETCD:-$root/tools/k8s/bin/etcd}
if [ -x "$api" ] && [ -x "$etcd" ]; then
  ran[2]="go test ./... (the Kubernetes tests, the README's cron job among them, against $(basename "$api"))"
else
  skipped+=("kubernetes (no kube-apiserver/etcd at $api, $etcd: make k8s-build)")
fi
# The tests on measured data (metrics' TensorBoard files, the Philly trace)
# look for shared/data next to the repository, or $OPTIMUS_SHARED_DATA, and
# skip without it.
shared=${OPTIMUS_SHARED_DATA:-}
if [ -z "$shared" ]; then
  dir=$root
  while [ "$dir" != / ]; do
    if [ -d "$dir/shared/data/tfevents" ]; then shared=$dir/shared/data; break; fi
    dir=$(dirname "$dir")
  done
fi
if [ -n "$shared" ] && [ -d "$shared/tfevents" ]; then
  ran+=("shared-data tests ($shared)")
else
  skipped+=("shared-data tests (no shared/data/tfevents next to the repository and no \$OPTIMUS_SHARED_DATA: the tests on measured TensorBoard files skip)")
fi
for check in interop browser notebook; do
  line=$(grep "^$check: " "$status" 2>/dev/null | tail -n 1 || true)
  case $line in
    "$check: ran "*) ran+=("$check ${line#"$check: ran "}") ;;
    "$check: skipped "*) skipped+=("$check ${line#"$check: skipped "}") ;;
    *) skipped+=("$check (it recorded nothing: see its output above)") ;;
  esac
done
join() { local IFS=';'; echo "$*" | sed 's/;/; /g'; }
if [ ${#skipped[@]} -eq 0 ]; then
  echo "make test: ran ${#ran[@]} suites, skipped none: $(join "${ran[@]}")"
else
  echo "make test: ran ${#ran[@]} suites: $(join "${ran[@]}"); SKIPPED ${#skipped[@]}: $(join "${skipped[@]}")"
fi
