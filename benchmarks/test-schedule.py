# Summarise a `go test -debug-trace` file: per-slot occupancy by action kind,
# the longest actions, idle gaps, and test runs.
import json, sys, collections
if len(sys.argv) != 2:
    sys.exit('usage: test-schedule.py TRACE.json  (from go test -count=1 -debug-trace=TRACE.json ./...)')
d = json.load(open(sys.argv[1]))
stacks = collections.defaultdict(list)
acts = []  # (tid, start, end, kind, pkg)
t0 = min(e['ts'] for e in d); t1 = max(e['ts'] for e in d)
for e in d:
    if e['ph'] not in 'BE' or e['tid'] == 0: continue
    if e['ph'] == 'B': stacks[e['tid']].append(e)
    else:
        b = stacks[e['tid']].pop()
        n = b['name']
        if not n.startswith('Executing action ('): continue
        inner = n[len('Executing action ('):-1]
        for k in ('build check cache', 'test run', 'test print', 'test clean', 'build', 'link', 'vet', 'go test', 'nop'):
            if inner.startswith(k + ' ') or inner == k:
                acts.append((b['tid'], (b['ts']-t0)/1e6, (e['ts']-t0)/1e6, k, inner[len(k):].strip().replace('github.com/optimus-sched/optimus/', '')))
                break
        else:
            acts.append((b['tid'], (b['ts']-t0)/1e6, (e['ts']-t0)/1e6, inner.split(' ')[0], inner))
wall = (t1-t0)/1e6
print(f"trace span {wall:.1f} s, {len(acts)} actions")
tids = sorted(set(a[0] for a in acts))
for tid in tids:
    by = collections.Counter()
    for a in acts:
        if a[0] == tid: by[a[3]] += a[2]-a[1]
    busy = sum(by.values())
    print(f"slot {tid}: busy {busy:.1f} s of {wall:.1f} (" + ", ".join(f"{k} {v:.1f}" for k, v in by.most_common()) + ")")
tot = collections.Counter()
for a in acts: tot[a[3]] += a[2]-a[1]
print("all slots:", ", ".join(f"{k} {v:.1f} s" for k, v in tot.most_common()))
print("\nlongest actions:")
for a in sorted(acts, key=lambda a: a[1]-a[2])[:int(sys.argv[2]) if len(sys.argv) > 2 else 30]:
    print(f"  {a[2]-a[1]:6.1f} s  [{a[1]:6.1f}-{a[2]:6.1f}] slot {a[0]} {a[3]} {a[4]}")
print("\ntimeline (10 s buckets: what each slot did, seconds per kind):")
for s in range(0, int(wall)+10, 10):
    row = []
    for tid in tids:
        c = collections.Counter()
        for a in acts:
            if a[0] != tid: continue
            o = min(a[2], s+10) - max(a[1], s)
            if o > 0: c[a[3]] += o
        row.append(" ".join(f"{k[:5]}{v:.0f}" for k, v in c.most_common(3)))
    print(f"  {s:4d}: " + " | ".join(f"{r:28s}" for r in row))
