#!/usr/bin/env python3
"""The CLI's solve then place at 100,000 tasks, binaries alternating (issue 25).

Usage: benchmarks/pairs.py DIR ROUNDS BIN... [--bench BENCH.test]

DIR holds cli.sh's inputs (c100k.parquet, p100k.parquet; make them with
cli.sh or `optimus datasets generate --tasks 100000 --nodes 16000 --seed 1
--running 0.3`). Each round runs every BIN's solve then place through
Parquet files, in turn, forward on even rounds and backward on odd ones,
and then, with --bench, BENCH.test's BenchmarkPlan at the same size
(`go test -c ./benchmarks`; 3 plans in process). It times each pair with
a monotonic clock (wall) and the children's user + sys time (cpu), and
prints each BIN's medians, the median of its per-round ratios to the
first BIN, and with --bench, its per-round ratio to the in-process plan.
Ratios within a round compare runs seconds apart, which a busy host
moves together; so they, not the medians, are the figures to record.
Every BIN's outputs are compared byte for byte with the first's.
"""
import filecmp, os, resource, statistics as st, subprocess, sys, time

args = sys.argv[1:]
bench = None
if '--bench' in args:
    i = args.index('--bench')
    bench = os.path.realpath(args[i + 1])
    del args[i:i + 2]
if len(args) < 3:
    sys.exit(__doc__)
d, rounds, bins = args[0], int(args[1]), [os.path.realpath(b) for b in args[2:]]
benchdir = os.path.dirname(os.path.realpath(__file__))
os.chdir(d)
os.makedirs('r', exist_ok=True)


def pair(b):
    n = os.path.basename(b)
    r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    for argv in (['solve', '--cluster', 'c100k.parquet', '-i', 'p100k.parquet', '-o', f'r/a-{n}.parquet'],
                 ['place', '--cluster', 'c100k.parquet', '-i', f'r/a-{n}.parquet', '-o', f'r/plan-{n}.parquet']):
        subprocess.run([b] + argv, check=True, stderr=subprocess.DEVNULL)
    t1, r1 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    return (t1 - t0) * 1e3, (r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime) * 1e3


def plan():
    out = subprocess.run([bench, '-test.run', '^$', '-test.bench', 'Plan$/^running=0.3/tasks=100000/',
                          '-test.cpu', '2', '-test.benchtime', '3x'],
                         cwd=benchdir, check=True, capture_output=True, text=True).stdout
    f = [l for l in out.splitlines() if l.startswith('Benchmark')][0].split()
    return float(f[2]) / 1e6, float(f[4])  # ns/op, cpu-ms/op


res, inproc = {b: [] for b in bins}, []
for i in range(rounds):
    for b in bins if i % 2 == 0 else bins[::-1]:
        res[b].append(pair(b))
    if bench:
        inproc.append(plan())
base = bins[0]
for b in bins:
    w, c = [x[0] for x in res[b]], [x[1] for x in res[b]]
    rw = [x[0] / y[0] for x, y in zip(res[b], res[base])]
    rc = [x[1] / y[1] for x, y in zip(res[b], res[base])]
    print(f'{os.path.basename(b)}: wall median {st.median(w):.1f} ms (min {min(w):.1f}), cpu median {st.median(c):.1f} ms;'
          f' per-round ratio to {os.path.basename(base)}: wall {st.median(rw):.3f} cpu {st.median(rc):.3f}')
if bench:
    w, c = [x[0] for x in inproc], [x[1] for x in inproc]
    print(f'in-process plan ({os.path.basename(bench)}): wall median {st.median(w):.1f} ms (min {min(w):.1f}), cpu median {st.median(c):.1f} ms')
    for b in bins:
        rw = sorted(x[0] / y[0] for x, y in zip(res[b], inproc))
        print(f'{os.path.basename(b)} / in-process wall, per round: median {st.median(rw):.2f}, range {rw[0]:.2f}-{rw[-1]:.2f}')
for b in bins[1:]:
    n, m = os.path.basename(base), os.path.basename(b)
    same = all(filecmp.cmp(f'r/{k}-{n}.parquet', f'r/{k}-{m}.parquet', shallow=False) for k in ('a', 'plan'))
    print(f'{"same bytes" if same else "OUTPUTS DIFFER"}: {n} {m}')
