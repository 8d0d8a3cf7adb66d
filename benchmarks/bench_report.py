"""write_report on issue 38's benchmark shape: 16 classifiers x 80 data sets x 10 folds
(pp_corr.testing.messy_benchmark, seed 1, no failed folds), or k synthetic algorithms (``--algorithms K``).

Measured in one run: the report as it is now (each pair's figures only on request) against the same report with
``pair_figures=True`` (three figures a pair, as every report drew them before), wall time and CPU time of this
process (the CPU time holds its ratio on a shared machine), the size of report.html and the number of files.
Targets for 16 x 80: under 2 minutes, under 5 MB of HTML, at most ~60 files.
Before (commit 3179b75, this 2-core machine shared with three other test runs): 761 s, 41.1 MB of HTML, 365 files.
After (same machine, shared): 70 s wall (33 s CPU), 0.32 MB, 5 files; with pair_figures=True 343 s (182 s CPU),
40.7 MB, 365 files: 4.9x the wall time, 129x the HTML. 50 algorithms x 30 data sets: 315 s (111 s CPU), 0.89 MB,
5 files. The CPU time is this process's only.

    python benchmarks/bench_report.py                  # 16 x 80, both reports
    python benchmarks/bench_report.py --algorithms 50 --datasets 30 --skip-pair-figures
"""
import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import _timing  # noqa: F401 (one BLAS thread)

import numpy as np

import pp_corr
from pp_corr.testing import messy_benchmark


def scores_of(algorithms, datasets):
    if algorithms <= 16:
        frame = messy_benchmark(algorithms, datasets, random_seed=1, failed=())
        return pp_corr.load_scores(frame, columns={"dataset": "db"}, format="wide")
    rng = np.random.default_rng(1)  # k algorithms with spread-out skills, 10 folds per data set
    skill = np.linspace(0, 0.08, algorithms)
    level = rng.uniform(0.6, 0.9, (datasets, 1, 1))
    folds = np.clip(level + skill[None, :, None] + rng.normal(0, 0.03, (datasets, algorithms, 10)), 0, 1)
    return pp_corr.load_scores({f"alg{i:02d}": folds[:, i, :] for i in range(algorithms)})


def measure(scores, **options):
    with tempfile.TemporaryDirectory() as directory:
        wall, cpu = time.perf_counter(), time.process_time()
        written = pp_corr.write_report(scores, Path(directory) / "report", progressbar=False, **options)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        size = (Path(directory) / "report" / "report.html").stat().st_size
    return wall, cpu, size, len(written)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", type=int, default=16)
    parser.add_argument("--datasets", type=int, default=80)
    parser.add_argument("--skip-pair-figures", action="store_true", help="only the report as it is now")
    args = parser.parse_args()
    scores = scores_of(args.algorithms, args.datasets)
    print(f"{args.algorithms} algorithms x {args.datasets} data sets, {os.cpu_count()} cores", file=sys.stderr)
    runs = {"now (pair figures on request)": measure(scores, pair_figures=False)}
    if not args.skip_pair_figures:
        runs["with each pair's figures"] = measure(scores, pair_figures=True)
    for name, (wall, cpu, size, files) in runs.items():
        print(f"{name:32s} {wall:7.1f} s wall {cpu:7.1f} s CPU {size / 1e6:6.2f} MB HTML {files:4d} files")
    if len(runs) == 2:
        (now, before) = runs.values()
        print(f"ratio (with pair figures / now): {before[0] / now[0]:.1f}x wall, {before[1] / now[1]:.1f}x CPU, "
              f"{before[2] / now[2]:.0f}x HTML, {before[3] / now[3]:.0f}x files")


if __name__ == "__main__":
    main()
