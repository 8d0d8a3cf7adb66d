"""The signed-rank loss study in full (15 Deltas x 2 correlations x 1000 runs, 5000 Dirichlet draws per test, on
all local cores; target < 60 s) and the replicability analysis of all 10 uci54 pairs (1000 subsets of 15, 5000
draws; target < 30 s), with the figures the paper reports. The machine's load is printed beside the times, and
the CPU time of a sample of the study's tasks run in this process: on a shared machine the wall time measures the
other users as much as the study."""
import os
import time
from pathlib import Path

import _timing  # noqa: F401  (one BLAS thread)

from pp_corr import load_scores
from pp_corr.studies.replicability import replicability_decisions, replicability_table
from pp_corr.studies.signed_rank_study import (CHUNK, DELTAS, indeterminate_decisions, loss_areas, loss_curves,
                                               signed_rank_chunk, signed_rank_study)

UCI54 = Path(__file__).resolve().parents[2] / "shared" / "data" / "uci54" / "uci54_tidy.csv"

if __name__ == "__main__":  # local Dask worker processes start by spawn and re-import this file
    workers = os.cpu_count()
    signed_rank_chunk(DELTAS, 30, 0.12, 0.0, 5000, 1, 0)  # numba compiles (cached on disk)
    start, cpu = time.perf_counter(), time.process_time()
    for seed in range(4):
        signed_rank_chunk(DELTAS, 30, 0.12, 0.95 * (seed % 2), 5000, CHUNK, seed)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    tasks = 2 * 1000 // CHUNK
    print(f"4 tasks of {CHUNK} runs in this process: {cpu:.2f} s of CPU ({wall:.2f} s wall): the full study's "
          f"{tasks} tasks take {cpu * tasks / 4:.0f} CPU seconds, {cpu * tasks / 4 / workers:.0f} s on {workers} "
          "idle cores")
    print(f"load average before: {os.getloadavg()[0]:.1f} on {workers} cores")
    start = time.perf_counter()
    results = signed_rank_study(workers=workers, random_seed=1, progressbar=False)
    elapsed = time.perf_counter() - start
    print(f"signed-rank study in full: {elapsed:.1f} s on {workers} workers (target < 60 s: {elapsed / 60:.2f} of it); "
          f"load average after: {os.getloadavg()[0]:.1f}")
    curves, areas = loss_curves(results), loss_areas(results)
    share = curves.sel(loss_pair="(1, 19)", delta=0.05)
    for r in results.correlation.values:
        sel = share.sel(correlation=r)
        print(f"  r = {r:g}: IDP indeterminate at Delta = 0.05, (1, 19): {float(sel.indeterminate):.3f}"
              f" (se {float(sel.indeterminate_se):.3f})")
    print(areas.area.round(4).to_dataframe().area.unstack("loss_pair").to_string())
    print(indeterminate_decisions(results).h1.round(3).to_dataframe().h1.unstack("loss_pair").to_string())

    if UCI54.exists():
        scores = load_scores(UCI54, columns={"score": "accuracy"})
        start, cpu = time.perf_counter(), time.process_time()
        table = replicability_table(replicability_decisions(scores, random_seed=0))
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        print(f"replicability of all {len(table)} uci54 pairs (1000 subsets of 15, 5000 draws): {elapsed:.1f} s "
              f"(target < 30 s: {elapsed / 30:.2f} of it), {cpu:.1f} s of CPU; load {os.getloadavg()[0]:.1f}")
    else:
        print(f"uci54 not at {UCI54}: replicability not timed")
