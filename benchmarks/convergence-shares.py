#!/usr/bin/env python3
"""What a declared epoch budget alone says of convergence (issue 24).

Usage: convergence-shares.py EVAL.csv JOBS.csv [FRACTION]

EVAL.csv is `optimus eval convergence ... -o EVAL.csv` (any mode: only its
truth and its scored median are used); JOBS.csv the same set's jobs table
as CSV (`optimus convert -i DIR/jobs.parquet -o JOBS.csv`). For the
uncensored curves at FRACTION (default 0.25) observed it prints the median
of |error| / truth of:

  eval          the evaluated prediction (EVAL.csv's epoch_error);
  other         each curve's budget times the median share of the budget
                (true epoch / budget) at which the curves of the other
                families converged: all a leave-one-family-out predictor
                learns from budgets alone;
  own           the same over the other curves of the curve's own family
                (what its family would lend, were it known);
  best          the single share, the same for every curve, that fits
                this set best in hindsight (an oracle, not a predictor).

Every curve of the set with a budget is a member, censored ones at their
end, as eval convergence counts them.
"""
import csv
import statistics
import sys


def main():
    eval_path, jobs_path = sys.argv[1], sys.argv[2]
    fraction = float(sys.argv[3]) if len(sys.argv) > 3 else 0.25
    budget = {}
    for r in csv.DictReader(open(jobs_path, newline="")):
        if r["epoch_budget"]:
            budget[r["job"]] = float(r["epoch_budget"])
    rows = [r for r in csv.DictReader(open(eval_path, newline=""))
            if abs(float(r["fraction"]) - fraction) < 1e-9 and r["job"] in budget]
    members = [(r["model"], int(r["true_epoch"]) / budget[r["job"]]) for r in rows]
    scored = [r for r in rows if r["censored"] == "false" and r["epoch_error"]]
    errs = {"eval": [], "other": [], "own": []}
    for r in scored:
        truth, b = int(r["true_epoch"]), budget[r["job"]]
        errs["eval"].append(abs(float(r["epoch_error"])) / truth)
        other = [s for fam, s in members if fam != r["model"]]
        own = [s for (fam, s), o in zip(members, rows) if fam == r["model"] and o["job"] != r["job"]]
        errs["other"].append(abs(statistics.median(other) * b - truth) / truth)
        if own:
            errs["own"].append(abs(statistics.median(own) * b - truth) / truth)
    best = min((statistics.median(abs(s / 1000 * budget[r["job"]] - int(r["true_epoch"])) / int(r["true_epoch"])
                                  for r in scored), s / 1000) for s in range(300, 1001, 5))
    print(f"{len(scored)} uncensored curves at {fraction:.0%} observed: median |error| / truth "
          f"eval {statistics.median(errs['eval']):.1%}, other {statistics.median(errs['other']):.1%}, "
          f"own {statistics.median(errs['own']):.1%}, best {best[0]:.1%} (share {best[1]:.3f})")


if __name__ == "__main__":
    main()
