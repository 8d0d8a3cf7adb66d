"""The joint model on uci54 with 10% of its (data set, algorithm) cells removed at random (#38; the suite's
``uci54_gappy``: seed 38, 27 of 270 cells, 24 data sets with gaps), against the complete data fitted in the same run:
wall time of a first fit (it compiles the model unless PyTensor's cache holds it) and a second, convergence, and
every pair's answers and the ranking, gappy minus complete, each difference with its Monte Carlo standard error
(ArviZ's, of the per-draw quantity in each fit, added in quadrature) and the complete fit's posterior sd.

Where cells are missing the data differ, so the answers may move by a fraction of their posterior sd (the removed
cells' information), not only by Monte Carlo error: ``z`` is the difference over its MCSE, ``shift`` over the sd.

Usage: python benchmarks/bench_joint_gappy.py [--sampler nutpie|pymc] [--draws 1000] [--fits 2] [--seed 1] [--no-retry]
"""
import argparse
import sys
import time
import warnings
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _timing  # noqa: E402,F401  (one BLAS thread)

import arviz as az  # noqa: E402
import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

import pp_corr  # noqa: E402
from pp_corr.hierarchical.fit import CHECKED  # noqa: E402
from pp_corr.hierarchical.joint import joint_test  # noqa: E402
from pp_corr.sampling import ConvergenceWarning  # noqa: E402
from pp_corr.testing import remove_cells  # noqa: E402

UCI54 = Path(__file__).resolve().parents[2] / "shared" / "data" / "uci54" / "uci54_tidy.csv"
parser = argparse.ArgumentParser()
parser.add_argument("--sampler", default="nutpie")
parser.add_argument("--draws", type=int, default=None)
parser.add_argument("--fits", type=int, default=2, help="fits of each data (the first may compile)")
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--no-retry", action="store_true", help="the first attempt only (the policy's retry is long)")
args = parser.parse_args()
if not UCI54.exists():
    sys.exit(f"uci54 not found at {UCI54}")
complete = pp_corr.load_scores(UCI54, columns={"score": "accuracy"})
gappy, kept = remove_cells(complete, 0.1, random_seed=38)
settings = {"draws": args.draws, "tune": args.draws} if args.draws else {}
settings["retry"] = not args.no_retry


def fit(scores, label):
    for number in range(args.fits):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            warnings.simplefilter("ignore", UserWarning)  # the gaps, named by the loader and the model
            res = joint_test(scores, random_seed=args.seed, sampler=args.sampler, **settings)
        elapsed = time.perf_counter() - start
        ess, rhat = az.ess(res.idata, var_names=list(CHECKED)), az.rhat(res.idata, var_names=list(CHECKED))
        stats_ = res.idata.sample_stats
        steps = stats_["n_steps"].values.mean() if "n_steps" in stats_ else float("nan")
        print(f"{label}, fit {number + 1}: {elapsed:.1f} s, converged {res.converged} after {len(res.attempts)} "
              f"attempt(s); smallest bulk ESS {min(float(ess[v].min()) for v in CHECKED):.0f} "
              f"({', '.join(f'{v} {float(ess[v].min()):.0f}' for v in CHECKED)}), largest R-hat "
              f"{max(float(rhat[v].max()) for v in CHECKED):.4f} "
              f"({', '.join(f'{v} {float(rhat[v].max()):.4f}' for v in CHECKED)}), "
              f"divergences {int(stats_['diverging'].sum())}, "
              f"mean leapfrog steps {steps:.1f}", flush=True)
    return res, elapsed


def per_draw(res):
    """Per pair, the per-draw quantities (chain, draw) whose means :meth:`JointResult.pairs` reports; per
    algorithm, its rank in the population (1 = best)."""
    post, lo, hi = res.idata.posterior, *res.rope
    chains, draws = post.sizes["chain"], post.sizes["draw"]
    levels = res._levels().reshape(chains, draws, -1)
    cov0, nu = res._sigma0_full()
    cov0, nu = cov0.reshape(chains, draws, *cov0.shape[1:]), nu.reshape(chains, draws)
    pairs = {}
    for i, j in combinations(range(len(res.algorithms)), 2):
        diff = levels[..., j] - levels[..., i]
        scale = np.sqrt(np.maximum(cov0[..., i, i] + cov0[..., j, j] - 2 * cov0[..., i, j], 1e-300))
        left, right = stats.t.cdf((lo - diff) / scale, nu), stats.t.sf((hi - diff) / scale, nu)
        pairs[res.algorithms[i], res.algorithms[j]] = {
            "delta0": diff, "P(delta0>0)": (diff > 0).astype(float), "P(a better)": left,
            "P(rope)": np.clip(1 - left - right, 0, 1), "P(b better)": right}
    ranks = (-levels).argsort(axis=-1).argsort(axis=-1) + 1.0
    return pairs, {a: ranks[..., j] for j, a in enumerate(res.algorithms)}


def mcse(values):
    return float(az.mcse(az.from_dict({"posterior": {"v": values}}))["v"])


(full, full_time), (gap, gap_time) = fit(complete, "complete"), fit(gappy, "gappy")
print(f"gappy / complete time (last fits): {gap_time / full_time:.2f}; {int((~kept).sum())} cells removed, "
      f"{len(gap.data.absent)} data sets with gaps, {len(gap.data.datasets)} of {len(full.data.datasets)} data sets "
      "kept")
assert full.algorithms == gap.algorithms
(full_pairs, full_ranks), (gap_pairs, gap_ranks) = per_draw(full), per_draw(gap)
largest = (0.0, "")
print(f"{'pair':>14} {'quantity':>12} {'complete':>9} {'gappy':>9} {'diff':>9} {'MCSE':>8} {'z':>6} {'sd':>8} "
      f"{'shift':>6}")
for pair, quantities in full_pairs.items():
    for name, values in quantities.items():
        a, b = values.mean(), gap_pairs[pair][name].mean()
        se, sd = np.hypot(mcse(values), mcse(gap_pairs[pair][name])), values.std()
        z = (b - a) / se if se > 0 else 0.0
        largest = max(largest, (abs(z), f"{pair} {name}"))
        print(f"{'-'.join(pair):>14} {name:>12} {a:9.4f} {b:9.4f} {b - a:+9.4f} {se:8.4f} {z:+6.1f} {sd:8.4f} "
              f"{(b - a) / sd if sd > 0 else 0:+6.2f}")
print(f"largest |z|: {largest[0]:.1f} ({largest[1]})")
for name, ranks in (("complete", full_ranks), ("gappy", gap_ranks)):
    order = sorted(ranks, key=lambda a: ranks[a].mean())
    print(f"expected ranks, {name}: " + ", ".join(f"{a} {ranks[a].mean():.3f} +- {mcse(ranks[a]):.3f}"
                                                  for a in order))
verdicts = {}
for name, res in (("complete", full), ("gappy", gap)):
    table = res.pairs()
    verdicts[name] = [("a", "rope", "b")[int(np.argmax(row))] for row in table[["p_left", "p_rope", "p_right"]].values]
    print(f"{name}: ranking {list(res.ranking().index)}; new data set's largest region per pair {verdicts[name]}")
print(f"same ranking: {list(full.ranking().index) == list(gap.ranking().index)}; "
      f"same verdicts: {verdicts['complete'] == verdicts['gappy']}")
