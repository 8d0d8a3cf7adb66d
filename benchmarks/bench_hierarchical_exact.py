"""The exact (quadrature) posterior of the hierarchical model (#20): its time and values on uci54 (nbc vs aode,
q = 54, 10 runs of 10-fold CV) in the unit the hierarchical test uses, its own error estimate (against a grid
half as fine), the time of 4000 independent draws from it (exact_draws) beside that of the computation without
the error estimate (wall and processor time: other load on the machine inflates the first) and how far the
draws' means are from the exact posterior's, in Monte Carlo standard errors; and its time for simulated
comparisons of q = 50 and q = 200 data sets. With --refine it also repeats uci54 on a grid twice as fine in
every direction (several minutes) and prints the largest change."""
import sys
import time
from pathlib import Path

import _timing  # noqa: F401  (one BLAS thread)
import numpy as np
from scipy import special

import pp_corr
from pp_corr.hierarchical.exact import DATASET_FIELDS, SUMMARY_FIELDS, ExactGrid, exact_posterior
from pp_corr.hierarchical.exact.draws import draw
from pp_corr.hierarchical.exact.posterior import solve

UCI54 = Path(__file__).resolve().parents[2] / "shared" / "data" / "uci54" / "uci54_tidy.csv"


def model_inputs(x, folds):
    """The hierarchical test's unit and bounds for fold differences x (q, n): s = the median of the data sets' sds,
    D = max |x| / s, U = 1000 max(sd(xbar / s), 1e-3), sigma_i in (0.01, 1000 max(1, sd_i / s)), rho = 1 / folds."""
    sd = x.std(axis=1, ddof=1)
    s = np.median(sd)
    xbar = x.mean(axis=1) / s
    ss = ((x - x.mean(axis=1, keepdims=True)) ** 2).sum(axis=1) / s**2
    bounds = dict(delta0_max=np.abs(x).max() / s, sigma0_max=1000 * max(np.std(xbar, ddof=1), 1e-3),
                  sigma_bounds=(0.01, 1000 * np.maximum(1, sd / s)))
    return s, (xbar, ss, x.shape[1], 1 / folds), bounds


def show(post, s):
    print("  " + ", ".join(f"{name}={getattr(post, name):.4f}" for name in SUMMARY_FIELDS))
    print(f"  delta0 in units of the scores: mean {post.delta0_mean * s:.5f}, 95% [{post.delta0_q025 * s:.5f}, "
          f"{post.delta0_q975 * s:.5f}]")
    print(f"  P(#{{delta_i > 0}} = j) mode j = {int(np.argmax(post.positive_count))} of {len(post.delta_mean)}")


def largest_gap(post, draws):
    """The largest |mean over the draws - exact| / MCSE over P(delta0 > 0), a new data set's three probabilities,
    nu's mean and every delta_i's mean and P(delta_i > 0)."""
    d0, s0, nu, delta = (draws[name] for name in ("delta0", "sigma0", "nu", "delta"))
    left, right = special.stdtr(nu, (post.rope[0] - d0) / s0), special.stdtr(nu, (d0 - post.rope[1]) / s0)
    pairs = [(d0 > 0, post.delta0_p_positive), (left, post.p_left), (1 - left - right, post.p_rope),
             (right, post.p_right), (nu, post.nu_mean)]
    pairs += [(delta[:, i], post.delta_mean[i]) for i in range(delta.shape[1])]
    pairs += [(delta[:, i] > 0, post.delta_p_positive[i]) for i in range(delta.shape[1])]
    gaps = [abs(np.mean(v) - e) / (np.std(v) / np.sqrt(len(v))) for v, e in pairs if np.std(v) > 0]
    return max(gaps)


scores = pp_corr.load_scores(UCI54, columns={"score": "accuracy"})
x = pp_corr.differences(scores, "nbc", "aode").values.reshape(scores.sizes["dataset"], -1)
s, data, bounds = model_inputs(x, folds=10)
print(f"uci54 nbc vs aode: q = {x.shape[0]}, n = {x.shape[1]}, s = {s:.5f}, D = {bounds['delta0_max']:.2f}, "
      f"U = {bounds['sigma0_max']:.1f}, rope 0.01 = {0.01 / s:.4f} s, "
      f"{int(np.sum(data[1] == 0))} data sets with all differences equal")
start = time.perf_counter()
post = exact_posterior(*data, **bounds, rope=0.01 / s)
elapsed = time.perf_counter() - start
print(f"exact posterior with its error estimate: {elapsed:.1f} s, {len(post.sigma0_grid)} sigma0 nodes, "
      f"{post.nodes} (sigma0, delta0, nu) points; largest change of a probability on a grid half as fine: "
      f"{post.max_error:.1e}")
show(post, s)

# the split between the computation and the draws needs the package's inner steps (exact_draws does both)
fast = ExactGrid(error_estimate=False)
start, cpu = time.perf_counter(), time.process_time()
alone, problem, run = solve(*data, bounds["delta0_max"], bounds["sigma0_max"], bounds["sigma_bounds"], (0.5, 5.0),
                             (0.05, 0.15), post.rope, fast)
solved, solved_cpu = time.perf_counter() - start, time.process_time() - cpu
start, cpu = time.perf_counter(), time.process_time()
draws = draw(problem, *run, 4000, np.random.default_rng(20))
drawn, drawn_cpu = time.perf_counter() - start, time.process_time() - cpu
print(f"without the error estimate: {solved:.1f} s ({solved_cpu:.1f} s of processor time); 4000 draws: "
      f"{drawn:.1f} s ({drawn_cpu:.1f} s, {100 * drawn_cpu / solved_cpu:.0f}% more); largest distance of a draws' "
      f"mean from the exact value: {largest_gap(alone, draws):.1f} MCSE")

if "--refine" in sys.argv:
    start = time.perf_counter()
    finer = exact_posterior(*data, **bounds, rope=0.01 / s, grid=ExactGrid().scaled(2))
    change = max(np.max(np.abs(np.asarray(getattr(post, name)) - getattr(finer, name)))
                 for name in SUMMARY_FIELDS + DATASET_FIELDS if "p_" in name or "win" in name)
    print(f"grid twice as fine: {time.perf_counter() - start:.1f} s; largest change of a probability {change:.1e}")
    show(finer, s)

rng = np.random.default_rng(20)
for q in (50, 200):
    # simulated: mean differences of spread 0.02 around 0.01, per-fold sds 0.01-0.05, 10 runs of 10 folds
    means = rng.normal(0.01, 0.02, q)
    sds = rng.uniform(0.01, 0.05, q)
    x = means[:, None] + sds[:, None] * rng.standard_normal((q, 100))
    s, data, bounds = model_inputs(x, folds=10)
    start = time.perf_counter()
    post = exact_posterior(*data, **bounds, rope=0.01 / s, grid=ExactGrid(error_estimate=False))
    print(f"simulated q = {q}: {time.perf_counter() - start:.1f} s without the error estimate, "
          f"{len(post.sigma0_grid)} sigma0 nodes")
    show(post, s)
