"""The hierarchical test's default answer, the exact posterior by quadrature, against the path it replaced (MCMC with
PyMC's NUTS, a robust retry, then the exact posterior when both fits fail), in the same run:

1. uci54 pairs one at a time, warm (after a first call in this process): the default's time for each of the 10
   pairs to its answer (the summary; the draws are made when first used) and with its draws (``idata``); the old
   path's for ``--old`` of them (the MCMC fits, plus the quadrature where they failed);
2. a tie-heavy simulated benchmark (the stress battery's near-identical pair, 81 data sets x one run of 10 folds):
   the default's time, and the old path's with ``--old``;
3. all 10 uci54 pairs in one call (``hierarchical_tests``): their answers in this process, then with their draws on
   1, 2, 4 and 8 local Dask workers: the speed-up (a local cluster starts at most one worker per core: counts above
   the cores are reported as not measured).

The load average is printed with each figure (the machines have 2 cores). Run:
python benchmarks/bench_hierarchical_default.py [--old N] (default 2: the old path takes minutes a pair).
"""
import argparse
import os
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import load, timed  # noqa: E402 - one BLAS thread

import numpy as np  # noqa: E402

import pp_corr  # noqa: E402
from pp_corr.hierarchical.batch import hierarchical_tests  # noqa: E402
from pp_corr.hierarchical.stress import stress_scores  # noqa: E402
from pp_corr.sampling import ConvergenceWarning  # noqa: E402

UCI54 = Path(__file__).resolve().parents[2] / "shared" / "data" / "uci54" / "uci54_tidy.csv"


def old_path(scores, pair):
    """MCMC with the retry, then the exact posterior if both fits failed: the default before this change."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        seconds, fit = timed(lambda: pp_corr.hierarchical_test(scores, algorithms=pair, method="mcmc", random_seed=1))
    if fit.converged:
        return seconds, "MCMC"
    extra, _ = timed(lambda: pp_corr.hierarchical_test(scores, algorithms=pair, method="exact", random_seed=1))
    return seconds + extra, "MCMC failed, then quadrature"


def answer(scores, pair):
    """The default hierarchical test of ``pair`` with its summary made (the answer a user reads)."""
    result = pp_corr.hierarchical_test(scores, algorithms=pair, random_seed=1)
    result.summary()
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=int, default=2, help="pairs timed on the old path too (default 2)")
    args = parser.parse_args()
    if not UCI54.exists():
        sys.exit(f"skipped: uci54 is not at {UCI54}")
    scores = pp_corr.load_scores(UCI54, columns={"score": "accuracy"})
    pairs = [(a, b) for i, a in enumerate(scores.algorithm.values) for b in scores.algorithm.values[i + 1:]]
    first, _ = timed(lambda: answer(scores, pairs[0]).idata)
    print(f"first call of the process (compiles or loads the kernels): {first:.1f} s ({load()})", flush=True)
    times, with_draws = [], []
    for number, pair in enumerate(pairs):
        seconds, result = timed(lambda p=pair: answer(scores, p))
        drawn, _ = timed(lambda: result.idata)
        times.append(seconds)
        with_draws.append(seconds + drawn)
        line = (f"  {pair[1]} - {pair[0]}: default {seconds:.1f} s, with the draws {seconds + drawn:.1f} s "
                f"(error {result.attempts[-1]['max_error']:.1g})")
        if number < args.old:
            old, how = old_path(scores, pair)
            line += f", old path {old:.1f} s ({how}): {old / seconds:.1f}x"
        print(line + f" ({load()})", flush=True)
    print(f"=> uci54 pairs warm: median {np.median(times):.1f} s, max {max(times):.1f} s (targets 3 and 10 s); "
          f"with the draws median {np.median(with_draws):.1f} s, max {max(with_draws):.1f} s")

    stress = stress_scores({"n_datasets": 81, "runs": 1}, seed=3)
    seconds, result = timed(lambda: answer(stress, ("A", "B")))
    line = f"tie-heavy, 81 data sets x 10 folds: default {seconds:.1f} s, new data set P(rope) " \
           f"{result.new_dataset().p_rope:.3f}"
    if args.old:
        old, how = old_path(stress, ("A", "B"))
        line += f"; old path {old:.1f} s ({how}): {old / seconds:.1f}x"
    print(line + f" ({load()})", flush=True)

    seconds, _ = timed(lambda: [r.summary() for r in hierarchical_tests(scores, random_seed=1,
                                                                         progressbar=False).values()])
    print(f"all 10 uci54 pairs in one call, in this process, the answers (no draws): {seconds:.1f} s (target 30 s) "
          f"({load()})", flush=True)
    single = None
    for workers in (1, 2, 4, 8):  # a local cluster starts at most one worker per core
        started = min(workers, os.cpu_count() or 1)  # as pp_corr.execution.local_workers
        if started < workers:
            print(f"all 10 uci54 pairs in one call, {workers} local workers: not measured, this machine has "
                  f"{started} cores (a local cluster starts {started})", flush=True)
            continue
        seconds, _ = timed(lambda w=workers: [r.idata for r in hierarchical_tests(
            scores, workers=w, random_seed=1, progressbar=False).values()])  # a Dask task makes its pair's draws
        single = single or seconds
        print(f"all 10 uci54 pairs in one call with their draws, {workers} local worker(s): {seconds:.1f} s, "
              f"speed-up {single / seconds:.2f}x ({load()})", flush=True)


if __name__ == "__main__":
    main()
