"""Poisson-binomial and rank tests: exact against the paper's Monte Carlo, batches, large q, and the
vectorised Bayesian signed-rank test against a per-draw loop."""
import time

from _timing import best_of

import numpy as np

from pp_corr import PoissonBinomial, bayesian_signed_rank, poisson_binomial_monte_carlo
from pp_corr.pairwise.rank_tests import heaviside

rng = np.random.default_rng(0)

# 1. exact vs the paper's 100,000 coin-flip rounds, q = 50
p = rng.uniform(size=50)
exact_t = best_of(lambda: PoissonBinomial(p))
mc_t = best_of(lambda: poisson_binomial_monte_carlo(p, 100_000, random_seed=1), repeat=3)
exact = PoissonBinomial(p)
mc, _ = poisson_binomial_monte_carlo(p, 100_000, random_seed=1)
err = abs(mc[26:].sum() - exact.sf(25))
print(f"q=50: exact {exact_t * 1e3:.2f} ms, Monte Carlo {mc_t * 1e3:.1f} ms: exact is {mc_t / exact_t:.0f}x faster; "
      f"Monte Carlo error on P(X > q/2) = {err:.1e} (exact has none)")

# 2. a batch of 5000 problems with q = 50
batch = rng.uniform(size=(5000, 50))
batch_t = best_of(lambda: PoissonBinomial(batch).sf(25), repeat=3)
loop_t = best_of(lambda: [PoissonBinomial(row).sf(25) for row in batch[:500]], repeat=1) * 10
print(f"batch 5000 x q=50: {batch_t * 1e3:.1f} ms; one problem at a time: {loop_t * 1e3:.0f} ms "
      f"(ratio {loop_t / batch_t:.0f}x)")

# 3. q = 100,000
big = rng.uniform(size=100_000)
start = time.perf_counter()
tail = PoissonBinomial(big).sf(50_000)
print(f"q=100,000: {time.perf_counter() - start:.1f} s, P(X > q/2) = {tail:.4g}")

# 4. Bayesian signed-rank, 54 data sets, 50,000 draws: vectorised vs a loop over draws
z = rng.normal(0.01, 0.03, size=54)


def per_draw_loop(z, rope=0.01, s=0.5, n=50_000, seed=2):
    r = np.random.default_rng(seed)
    pts = np.concatenate([[0.0], z])
    pair = pts[:, None] + pts[None, :]
    out = np.empty((n, 3))
    for i in range(n):
        w = r.dirichlet(np.concatenate([[s], np.ones(len(z))]))
        right = w @ heaviside(pair - 2 * rope) @ w
        left = w @ heaviside(-pair - 2 * rope) @ w
        out[i] = left, 1 - left - right, right
    return out


vec_t = best_of(lambda: bayesian_signed_rank(z, rope=0.01, random_seed=2), repeat=3)
loop_t = best_of(lambda: per_draw_loop(z), repeat=1)
print(f"signed-rank 54 data sets x 50,000 draws: vectorised {vec_t * 1e3:.0f} ms, per-draw loop {loop_t:.2f} s "
      f"(ratio {loop_t / vec_t:.0f}x)")
