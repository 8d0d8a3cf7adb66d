"""The Nadeau & Bengio simulation study in full (pp_corr.studies.nadeau_bengio_study.CONFIGURATIONS, REPETITIONS: 4000
data sets per regression configuration, 500 per classification one, J = 15, M = 10, R = 15) on all local cores,
with its wall time and the workers' CPU time (what two idle cores would need is about half the CPU time), the sizes
at 0.05 with standard errors, the political ratios and rho against rho0.

    python benchmarks/bench_nadeau_bengio.py [--output results.nc] [--workers 2] [--quick]
"""
import argparse
import os
import time

import _timing  # noqa: F401  (one BLAS thread per process)
import pandas as pd

from pp_corr.execution import dask_client
from pp_corr.studies.nadeau_bengio import PROCEDURE_NAMES
from pp_corr.studies.nadeau_bengio_study import REDUCED, nadeau_bengio_study, study_summary

if __name__ == "__main__":  # local Dask worker processes start by spawn and re-import this file
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", help="save the per-repetition results (netCDF)")
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    parser.add_argument("--quick", action="store_true", help="the tests' reduced configuration instead")
    args = parser.parse_args()
    with dask_client(workers=args.workers) as client:
        cpu_before = sum(client.run(time.process_time).values())
        start = time.perf_counter()
        results = nadeau_bengio_study(random_seed=2003, scheduler=client, progressbar=False,
                                      **(REDUCED if args.quick else {}))
        elapsed = time.perf_counter() - start
        cpu = sum(client.run(time.process_time).values()) - cpu_before
    print(f"{'reduced' if args.quick else 'full'} study: {elapsed:.0f} s on {args.workers} local worker(s), "
          f"{cpu:.0f} s of worker CPU; repetitions per configuration {results.repetitions.values.tolist()}")
    if args.output:
        results.to_netcdf(args.output)
    summary = study_summary(results)
    with pd.option_context("display.width", 250, "display.max_columns", None, "display.max_colwidth", 40):
        for name, se in (("size", "size_se"), ("political_ratio", "political_ratio_se")):
            table = (summary[name].to_pandas().T.map("{:.3f}".format) + " (" +
                     summary[se].to_pandas().T.map("{:.3f}".format) + ")")
            table.index = [PROCEDURE_NAMES[p] for p in table.index]
            print(f"\n{name} (standard error), columns: configurations")
            for k, config in enumerate(table.columns):
                print(f"  c{k}: {config}")
            table.columns = [f"c{k}" for k in range(len(table.columns))]
            print(table)
        print("\nrho (standard error) against rho0 = n2/n")
        print(summary[["rho", "rho_se", "rho0"]].to_dataframe().round(4))
        print("\ntrue mu (training on n1; standard error for problem 2)")
        print(summary[["target", "target_se"]].sel(procedure="resampled_t").to_dataframe().drop(
            columns="procedure").round(5))
