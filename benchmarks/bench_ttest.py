"""Vectorised correlated t-test on 100,000 data sets x 100 folds (80 MB) against the memory-bandwidth floor.

Floor: one numpy pass computing the mean and the variance of the same array (what any t-test must at least do);
target ratio <= 2. Also printed: the ratio against a single read of the array (np.add.reduce), the hardware's
limit, and the parts of the test (statistics, probabilities, default data-set names)."""
from _timing import best_of

import numpy as np

from pp_corr import correlated_ttest
from pp_corr.pairwise.intraclass import SufficientStats

Q, N = 100_000, 100
x = np.random.default_rng(0).normal(0.01, 0.05, size=(Q, N))

read = best_of(lambda: np.add.reduce(x, axis=None))
baseline = best_of(lambda: (x.mean(axis=1), x.var(axis=1)))
statistics = best_of(lambda: SufficientStats.from_samples(x, 0.1))
names = best_of(lambda: tuple(f"D{i + 1}" for i in range(Q)))
ours = best_of(lambda: correlated_ttest(x, rho=0.1, rope=0.01))
print(f"one read {read * 1e3:.1f} ms; mean+var pass {baseline * 1e3:.1f} ms; correlated_ttest {ours * 1e3:.1f} ms "
      f"(statistics {statistics * 1e3:.1f} ms, data-set names {names * 1e3:.1f} ms)")
print(f"ratio against mean+var {ours / baseline:.2f} (target <= 2); against one read {ours / read:.1f}")
