#!/usr/bin/env bash
# Side by side, in one call: Pollux's simulator once, then optimus simulate
# three times, per policy, on workload-1, each under /usr/bin/time (wall,
# user, sys seconds), with the load average before and after.
#
#   POLLUX_SIM=DIR OPTIMUS=BIN OUT=DIR [AUTOGRAD=DIR] [PARALLEL=1] speed.sh [POLICY...]
#
# POLLUX_SIM: a directory holding Pollux's simulator (petuum/adaptdl
# simulator/: simulator.py and its modules, traces/, workloads/workload-1.csv);
# OPTIMUS: the optimus binary; OUT: where logs go. AUTOGRAD: a directory
# holding HIPS/autograd's autograd/ package, put first on PYTHONPATH (unset:
# whatever `import autograd` finds, e.g. an older central-difference shim in
# POLLUX_SIM, whose "autograd-shim" lines are kept if it prints them).
# PARALLEL=1 runs the policies at the same time (each still theirs once, then
# ours three times). Policies: tiresias and optimus (default both), the ones
# both simulators run.
set -u
: "${POLLUX_SIM:?set POLLUX_SIM to the directory of Pollux simulator.py}"
: "${OPTIMUS:?set OPTIMUS to the optimus binary}"
: "${OUT:?set OUT to a directory for the logs}"
PYTHON=${PYTHON:-/usr/bin/python3}
AUTOGRAD=${AUTOGRAD:-}
mkdir -p "$OUT"
if [ -n "$AUTOGRAD" ]; then
	[ -f "$AUTOGRAD/autograd/__init__.py" ] || { echo "AUTOGRAD=$AUTOGRAD: no autograd/__init__.py there" >&2; exit 2; }
	export PYTHONPATH="$AUTOGRAD${PYTHONPATH:+:$PYTHONPATH}"
fi
[ $# -gt 0 ] || set -- tiresias optimus

one() {
	local p=$1 log="$OUT/$1.times"
	: >"$log"
	echo "load before $p: $(uptime)" >>"$log"
	echo "autograd: $(cd "$POLLUX_SIM" && "$PYTHON" -c 'import autograd; print(autograd.__file__)' 2>&1)" >>"$log"
	(cd "$POLLUX_SIM" && AUTOGRAD_SHIM_TIME=1 /usr/bin/time -f "pollux $p wall %e user %U sys %S" \
		"$PYTHON" simulator.py workloads/workload-1.csv --policy "$p" >"$OUT/pollux-$p.log" 2>"$OUT/pollux-$p.err")
	grep -h "^pollux $p\|^autograd-shim" "$OUT/pollux-$p.err" >>"$log"
	echo "pollux $p $(grep 'Average JCT' "$OUT/pollux-$p.log" | tail -1)" >>"$log"
	for i in 1 2 3; do
		/usr/bin/time -a -o "$log" -f "optimus $p run $i wall %e user %U sys %S" \
			"$OPTIMUS" simulate --pollux workload-1 --interval 60 --stop-cost 0 --restore-cost 30 \
			--start-cost 30 -q --intervals=false --knowledge oracle --policies "$p" -o "$OUT/optimus-$p.csv"
	done
	echo "optimus $p mean_jct_s $(cut -d, -f8 "$OUT/optimus-$p.csv" | tail -1)" >>"$log"
	echo "load after $p: $(uptime)" >>"$log"
}

echo "start: $(uptime)"
if [ "${PARALLEL:-}" = 1 ]; then
	for p in "$@"; do one "$p" & done
	wait
else
	for p in "$@"; do one "$p"; done
fi
for p in "$@"; do cat "$OUT/$p.times"; done
echo "end: $(uptime)"
