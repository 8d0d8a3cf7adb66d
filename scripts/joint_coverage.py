"""Frequentist coverage of the joint hierarchical model (issue #16): k = 4 algorithms, q = 30 data sets simulated
from the model with known population differences, many replications.

Each replication draws the data sets' true differences from a multivariate Student-t population (delta0, Sigma0,
nu), each data set's covariance Sigma_i (sds uniform, correlation 0.3), and runs x folds correlated fold
differences with the intraclass correlation rho = 1 / folds; then fits the joint model (marginal form, the default)
and records whether each 90% central interval covers the truth: the three coordinates of delta0 and the six
pairwise population differences. With R replications the coverage has binomial standard error
sqrt(0.9 * 0.1 / R) (0.03 at R = 100). It also records P(best) of the true best algorithm.

The model is compiled once (nutpie, ``pp_corr.sampling.RefittableModel``) and refitted to each replication's
statistics (and the sampler's fixed maps made from them), starting near them as joint_test does (in the compiled
model's orders of the coordinates): the priors are fixed for all replications (``scale`` and ``bounds`` given), so
every fit is the same model.

Usage: python scripts/joint_coverage.py [--replications 100] [--seed 0] [--draws 1000] [--output FILE.csv]
"""
import argparse
import os
import sys
import time
from itertools import combinations

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import arviz as az  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from pp_corr.hierarchical.fit import CHECKED  # noqa: E402
from pp_corr.hierarchical.joint import (FORMS, _data_values, _limits, _orders, prepare_joint, _start,  # noqa: E402
                                        joint_model)
from pp_corr.sampling import RefittableModel  # noqa: E402

ALGORITHMS = ["A", "B", "C", "D"]
DELTA0 = np.array([0.010, 0.020, -0.005])  # B, C, D minus A: C is best
SIGMA0 = np.array([0.010, 0.012, 0.008])
CORR0 = 0.5
NU = 8.0
SD_RANGE = (0.02, 0.05)
CORR_I = 0.3
FOLDS, RUNS, Q = 10, 3, 30
SCALE = 0.03
BOUNDS = {"delta0": 10.0, "sigma0": 100.0, "sigma": (0.01, 100.0)}  # in units of SCALE
LEVEL = 0.90


def correlation(m, r):
    return (1 - r) * np.eye(m) + r * np.ones((m, m))


def simulate(rng) -> np.ndarray:
    """(Q, RUNS * FOLDS, k) scores: reference A at 0.8 plus the simulated differences."""
    m = len(DELTA0)
    cov0 = np.outer(SIGMA0, SIGMA0) * correlation(m, CORR0)
    z = rng.multivariate_normal(np.zeros(m), cov0, size=Q)
    delta = DELTA0 + z / np.sqrt(rng.gamma(NU / 2, 2 / NU, size=(Q, 1)))
    rho = 1 / FOLDS
    n = RUNS * FOLDS
    scores = np.empty((Q, n, m + 1))
    for i in range(Q):
        sd = rng.uniform(*SD_RANGE, size=m)
        root = np.linalg.cholesky(np.outer(sd, sd) * correlation(m, CORR_I))
        shared = root @ rng.standard_normal(m)  # the part common to all folds: correlation rho
        own = rng.standard_normal((n, m)) @ root.T
        diff = delta[i] + np.sqrt(rho) * shared + np.sqrt(1 - rho) * own
        scores[i, :, 0] = 0.8
        scores[i, :, 1:] = 0.8 + diff
    return scores


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--form", choices=FORMS, default="marginal")
    parser.add_argument("--output", help="per-replication results as CSV")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    first = simulate(rng)
    model = joint_model(first, algorithms=ALGORITHMS, folds=FOLDS, scale=SCALE, bounds=BOUNDS, form=args.form)
    data = prepare_joint(first, ALGORITHMS, folds=FOLDS, scale=SCALE)
    orders = _orders(data)  # the compiled model's: each replication starts in them
    initial = _start(data, _limits(data, BOUNDS), args.form, orders)
    refit = RefittableModel(model, {name: np.shape(value) for name, value in initial.items()}, sampler="nutpie")
    print(f"compiled in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    levels = np.concatenate([[0.0], DELTA0])
    pairs = list(combinations(range(len(ALGORITHMS)), 2))
    best = int(np.argmax(levels))
    rows = []
    for rep in range(args.replications):
        t0 = time.perf_counter()
        data = prepare_joint(simulate(rng), ALGORITHMS, folds=FOLDS, scale=SCALE)
        idata = refit.fit(_data_values(data, orders),
                          initvals=_start(data, _limits(data, BOUNDS), args.form, orders), draws=args.draws,
                          tune=args.draws, chains=4, random_seed=args.seed * 100_003 + rep)
        post = idata.posterior
        checked = [v for v in CHECKED if v in post]  # the marginal form draws delta afterwards: not checked here
        ess, rhat = az.ess(idata, var_names=checked), az.rhat(idata, var_names=checked)
        d0 = post["delta0"].values.reshape(-1, len(DELTA0))
        d0 = np.concatenate([np.zeros((len(d0), 1)), d0], axis=1)
        row = {"replication": rep, "seconds": time.perf_counter() - t0,
               "divergences": int(idata.sample_stats["diverging"].sum()),
               "max_rhat": max(float(rhat[v].max()) for v in rhat.data_vars),
               "min_ess": min(float(ess[v].min()) for v in ess.data_vars)}
        for a, b in pairs:
            diff = d0[:, b] - d0[:, a]
            lo, hi = np.quantile(diff, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
            row[f"covers {ALGORITHMS[b]}-{ALGORITHMS[a]}"] = lo <= levels[b] - levels[a] <= hi
        shares = (d0 == d0.max(axis=1, keepdims=True)).mean(axis=0)
        row["P(true best)"] = shares[best]
        row["true best ranked first"] = int(np.argmax(shares)) == best
        rows.append(row)
        if args.output:  # after every replication, so a stopped run keeps what it measured
            pd.DataFrame(rows).to_csv(args.output, index=False)
        print(f"replication {rep + 1}/{args.replications}: {row['seconds']:.0f} s, R-hat {row['max_rhat']:.3f}, "
              f"ESS {row['min_ess']:.0f}, P(true best) {row['P(true best)']:.2f}", file=sys.stderr, flush=True)
    table = pd.DataFrame(rows)
    r = len(table)
    converged = (table.max_rhat <= 1.01) & (table.min_ess >= 400) & (table.divergences == 0)
    print(f"{r} replications, k = {len(ALGORITHMS)}, q = {Q}, {RUNS} x {FOLDS}-fold; {int(converged.sum())} "
          f"converged; median fit {table.seconds.median():.0f} s (compile once: "
          f"{time.perf_counter() - start - table.seconds.sum():.0f} s)")
    print(f"coverage of the {LEVEL:.0%} intervals (binomial se {np.sqrt(LEVEL * (1 - LEVEL) / r):.3f}):")
    for column in [c for c in table.columns if c.startswith("covers")]:
        print(f"  {column[7:]:>5}: {table[column].mean():.3f}")
    print(f"P(true best = {ALGORITHMS[best]}): mean {table['P(true best)'].mean():.3f}, ranked first in "
          f"{table['true best ranked first'].mean():.2f} of the replications")


if __name__ == "__main__":
    main()
