"""The hierarchical test of every pair of a 16-classifier benchmark (#37's target: all 120 pairs of 16 algorithms x
81 data sets in under 10 minutes on 2 cores): pp_corr.testing.messy_benchmark (seed 1, one run of 10 folds, ties
exact, near-identical pairs; bench_report.py's benchmark), every pair in one ``hierarchical_tests`` call in this
process, the default method.

Printed: the total wall time and this process's CPU time (its threads included: the CPU time holds its ratio on a
shared machine), the median and largest time a pair, how the pairs were answered, the largest estimated error, the
load average. ``--draws`` also makes each pair's draws (``idata``), as the command line and the report do.

    python benchmarks/bench_hierarchical_all_pairs.py                    # 16 x 81: 120 pairs
    python benchmarks/bench_hierarchical_all_pairs.py --algorithms 6      # 15 pairs, a quick look
"""
import argparse
import collections
import time

from _timing import load  # one BLAS thread
from bench_report import scores_of  # the same benchmark

import numpy as np

import pp_corr
from pp_corr.hierarchical.batch import hierarchical_tests


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", type=int, default=16)
    parser.add_argument("--datasets", type=int, default=81)
    parser.add_argument("--draws", action="store_true", help="make each pair's draws too")
    args = parser.parse_args()
    scores = scores_of(args.algorithms, args.datasets)
    pp_corr.hierarchical_test(scores, algorithms=tuple(scores.algorithm.values[:2]), random_seed=1)  # the kernels
    seconds = []

    def record(line):  # "hierarchical model n/N: B - A, 12.3 s (exact posterior)"
        seconds.append(float(line.split(", ")[-1].split(" s ")[0]))
        print(line, flush=True)

    wall, cpu = time.perf_counter(), time.process_time()
    results = hierarchical_tests(scores, random_seed=1, progressbar=record)
    if args.draws:
        for result in results.values():
            result.idata  # noqa: B018 - made here
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    methods = collections.Counter(result.method if result.converged else "not converged"
                                  for result in results.values())
    errors = [result.attempts[-1].get("max_error", np.nan) for result in results.values()]
    print(f"{args.algorithms} algorithms x {args.datasets} data sets, {len(results)} pairs"
          f"{' with their draws' if args.draws else ''}: {wall:.0f} s wall ({wall / 60:.1f} min; target 10 min for "
          f"16 x 81), {cpu:.0f} s CPU; a pair median {np.median(seconds):.1f} s, max {max(seconds):.1f} s; "
          f"{dict(methods)}; largest estimated error {np.nanmax(errors):.1g} ({load()})")


if __name__ == "__main__":
    main()
