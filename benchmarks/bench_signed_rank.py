"""The Bayesian signed-rank test's kernel: sum_ij w_i w_j H(z_i + z_j - 2 hi) (and the left region and rope) per
Dirichlet draw, by cumulative sums and positions found once (pp_corr.pairwise.rank_tests.PairSumRegions,
O(n x q)) against the dense quadratic forms it replaced (O(n x q^2), "today's code" below) and a per-draw loop
over them; then the whole test at q = 5,000 (time and peak memory; targets < 10 s and < 1 GB)."""
import resource
import time
import tracemalloc

from _timing import best_of

import numpy as np

from pp_corr import bayesian_signed_rank
from pp_corr.pairwise.rank_tests import PairSumRegions, dirichlet, in_unit, tie_step


def _pair_sums(points, lo, hi):
    """The replaced code's pair sums, bounds and magnitudes (q x q) in the library's unit."""
    points, lo, hi = in_unit(points, lo, hi)
    size = np.abs(points)
    return (points[:, None] + points[None, :], 2 * lo, 2 * hi,
            size[:, None] + size[None, :] + 2 * max(abs(lo), abs(hi)))


def dense_masses(w, points, lo, hi):
    """The replaced code: the three q x q matrices of pair sums and one quadratic form each (einsum)."""
    pair, low, high, magnitude = _pair_sums(points, lo, hi)
    right, left = tie_step(pair, high, magnitude), tie_step(low, pair, magnitude)
    return np.column_stack([np.einsum("ni,ij,nj->n", w, m, w, optimize=True) for m in (left, 1 - left - right, right)])


def loop_masses(w, points, lo, hi):
    """The same per draw, in a Python loop (what an unvectorised implementation does)."""
    pair, low, high, magnitude = _pair_sums(points, lo, hi)
    right, left = tie_step(pair, high, magnitude), tie_step(low, pair, magnitude)
    matrices = (left, 1 - left - right, right)
    return np.array([[row @ m @ row for m in matrices] for row in w])


def kernel_masses(w, points, lo, hi):
    return PairSumRegions(points, lo, hi).masses(w)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    q, n, rope = 54, 50_000, 0.01
    points = np.r_[0.0, rng.normal(0.005, 0.02, q)]   # z0 and q data sets, as with prior_strength > 0
    w = dirichlet(np.random.default_rng(1), np.r_[0.5, np.ones(q)], n)  # each weight's draws side by side
    rows = np.ascontiguousarray(w)  # draw after draw: the layout the dense forms and the loop read fastest
    kernel_masses(w[:10], points, -rope, rope)  # compile (or load the compiled kernel)
    cpu = time.process_time  # single-threaded kernels: CPU time, so that the ratios hold on a shared machine
    new = best_of(lambda: kernel_masses(w, points, -rope, rope), repeat=7, clock=cpu)
    dense = best_of(lambda: dense_masses(rows, points, -rope, rope), repeat=5, clock=cpu)
    loop = best_of(lambda: loop_masses(rows, points, -rope, rope), repeat=1, clock=cpu)
    row_major = best_of(lambda: kernel_masses(rows, points, -rope, rope), repeat=5, clock=cpu)
    error = np.abs(kernel_masses(w, points, -rope, rope) - dense_masses(rows, points, -rope, rope)).max()
    print(f"q = {q} (+ z0), {n:,} draws, rope {rope}, CPU time: kernel {new * 1e3:.1f} ms, dense quadratic forms "
          f"{dense * 1e3:.1f} ms ({dense / new:.1f}x, target >= 5x), per-draw loop {loop * 1e3:.0f} ms "
          f"({loop / new:.0f}x, target >= 100x); max |difference| {error:.1e}; the kernel on weights stored draw "
          f"after draw (copied first) {row_major * 1e3:.1f} ms")
    draws = best_of(lambda: dirichlet(np.random.default_rng(1), np.r_[0.5, np.ones(q)], n), repeat=3)
    whole = best_of(lambda: bayesian_signed_rank(points[1:], rope=rope, random_seed=1), repeat=3)
    print(f"  the whole test: {whole * 1e3:.0f} ms, of which the Dirichlet draws {draws * 1e3:.0f} ms")

    # q = 5,000: only the kernel's way (the dense matrices took 459 s and 4.4 GB)
    q = 5000
    z = rng.normal(0.005, 0.02, q)
    z[:100] = 0.0   # ties, and pair sums exactly on the rope's edge
    z[100:200] = 0.01
    tracemalloc.start()
    start = time.perf_counter()
    res = bayesian_signed_rank(z, rope=rope, draws=50_000, random_seed=2)
    elapsed = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"q = {q:,}, 50,000 draws: {elapsed:.1f} s (target < 10 s), peak allocations {peak / 2**20:.0f} MiB, "
          f"process peak RSS {rss / 2**20:.0f} MiB (target < 1 GB); P(right) = {res.p_right:.4f}")
