"""Frequentist coverage of the item-level comparison (issue #41), on benchmarks simulated with a known truth.

Study ``one``: one benchmark of 300 items x 3 runs, continuous scores
y[m, i, r] = mu_m + a_i + b_mi + u_mr + e_mir (item difficulty a ~ N(0, 1), model x item b ~ N(0, 0.5^2), run
shift u ~ N(0, s^2) shared by the items of a run, answer noise e ~ N(0, 1)), true mean difference 0.1. For each
replication, whether the 95% interval of compare_items (runs="samples" and runs="seeds") and the item-clustered
interval cover 0.1, with s = 0 and s = 0.3. Binomial standard error sqrt(.95 .05 / R): 0.007 at R = 1000.

Study ``binary``: the same with binary answers, P(right) = expit(alpha_m + a_i + b_mi) (a ~ N(0, 1.5^2),
b ~ N(0, 0.5^2), alpha_B - alpha_A = 0.25), the truth E expit(alpha_B + a + b) - E expit(alpha_A + a + b) by Monte Carlo
over 4 million items; runs="samples".

Study ``population``: 8 benchmarks of 300 items x 3 runs, each with its own true difference
delta_b ~ N(0.02, 0.02^2) (sds 0.1 for b, 0.2 for e, no run shifts), compared over benchmarks by the hierarchical
model (exact quadrature) on benchmark_scores; whether its 95% interval of delta0 covers 0.02.

Usage: python scripts/items_coverage.py {one,binary,population} [--replications N] [--seed 0]
"""
import argparse
import os
import sys
import time
import warnings

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import pp_corr  # noqa: E402


def benchmark(rng, items=300, runs=3, shift=0.0, difference=0.1, model_item_sd=0.5, noise_sd=1.0):
    a = rng.normal(0, 1, items)
    return {m: mu + a[:, None] + rng.normal(0, model_item_sd, items)[:, None] + rng.normal(0, shift, runs)[None]
            + rng.normal(0, noise_sd, (items, runs)) for m, mu in (("A", 0.0), ("B", difference))}


def one(replications, rng):
    rows = []
    for shift in (0.0, 0.3):
        for k in range(replications):
            y = benchmark(rng, shift=shift)
            row = {"shift": shift}
            for kind in ("samples", "seeds"):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", pp_corr.AssumptionWarning)
                    res = pp_corr.compare_items(y, runs=kind, draws=4000, random_seed=k)
                lo, hi = res.interval()
                row[kind] = lo[0] <= 0.1 <= hi[0]
                row[f"{kind} width"] = hi[0] - lo[0]
            clo, chi = res.clustered_interval()
            row["clustered"], row["clustered width"] = clo[0] <= 0.1 <= chi[0], chi[0] - clo[0]
            rows.append(row)
    table = pd.DataFrame(rows).groupby("shift").mean()
    se = np.sqrt(0.95 * 0.05 / replications)
    print(f"coverage of 95% intervals over {replications} benchmarks (binomial se {se:.3f}):")
    print(table.round(3).to_string())


def binary(replications, rng):
    from scipy.special import expit

    effects = rng.normal(0, 1.5, 4_000_000), rng.normal(0, 0.5, (2, 4_000_000))
    truth = expit(0.25 + effects[0] + effects[1][1]).mean() - expit(effects[0] + effects[1][0]).mean()
    covered, clustered = [], []
    for k in range(replications):
        a = rng.normal(0, 1.5, 300)
        y = {m: (rng.random((300, 3)) < expit(alpha + a + rng.normal(0, 0.5, 300))[:, None]).astype(float)
             for m, alpha in (("A", 0.0), ("B", 0.25))}
        res = pp_corr.compare_items(y, draws=4000, random_seed=k)
        lo, hi = res.interval()
        clo, chi = res.clustered_interval()
        covered.append(lo[0] <= truth <= hi[0])
        clustered.append(clo[0] <= truth <= chi[0])
    print(f"binary, 300 items x 3 runs, truth {truth:.4f}, {replications} benchmarks: coverage {np.mean(covered):.3f} "
          f"(item-clustered {np.mean(clustered):.3f}; binomial se {np.sqrt(0.95 * 0.05 / replications):.3f})")


def population(replications, rng):
    covered, widths, seconds = [], [], []
    for k in range(replications):
        frames = []
        for b in range(8):
            delta = rng.normal(0.02, 0.02)
            y = benchmark(rng, difference=delta, model_item_sd=0.1, noise_sd=0.2)
            frames += [pd.DataFrame({"benchmark": f"b{b}", "item": np.repeat(np.arange(300), 3), "model": m,
                                     "run": np.tile(np.arange(3), 300), "score": v.ravel()}) for m, v in y.items()]
        items = pp_corr.load_items(pd.concat(frames))
        start = time.perf_counter()
        res = pp_corr.hierarchical_test(pp_corr.benchmark_scores(items), algorithms=("A", "B"), random_seed=k)
        seconds.append(time.perf_counter() - start)
        lo, hi = np.quantile(res.delta0, [0.025, 0.975])  # the exact posterior's draws
        covered.append(lo <= 0.02 <= hi)
        widths.append(hi - lo)
        print(f"{k + 1}/{replications}: covered {np.mean(covered):.3f}", file=sys.stderr, flush=True)
    se = np.sqrt(0.95 * 0.05 / replications)
    print(f"hierarchical model over 8 benchmarks, {replications} populations: delta0's 95% interval covers "
          f"{np.mean(covered):.3f} (binomial se {se:.3f}); mean width {np.mean(widths):.4f}; "
          f"{np.median(seconds):.1f} s a fit (median)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("study", choices=["one", "binary", "population"])
    parser.add_argument("--replications", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    study = {"one": one, "binary": binary, "population": population}[args.study]
    study(args.replications, np.random.default_rng(args.seed))


if __name__ == "__main__":
    main()
