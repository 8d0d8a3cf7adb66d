"""PyMC likelihood: logp + gradient of the O(n) closed form vs pm.MvNormal at n = 100 (target >= 20x),
and the wall time of a 4-chain x 1000-draw fit, cold and warm compile cache."""
import os
import subprocess
import sys
import tempfile

from _timing import best_of

import numpy as np
import pymc as pm

from pp_corr.pairwise.distributions import IntraclassNormal

N, RHO = 100, 0.1
x = np.random.default_rng(0).normal(0.01, 0.03, size=N)


def logp_dlogp(closed_form):
    with pm.Model() as model:
        mu = pm.Normal("mu", 0, 1)
        sigma = pm.HalfNormal("sigma", 1)
        if closed_form:
            IntraclassNormal("x", mu, sigma, RHO, group=np.zeros(N, int), observed=x)
        else:
            corr = (1 - RHO) * np.eye(N) + RHO
            pm.MvNormal("x", mu=mu * np.ones(N), cov=sigma**2 * corr, observed=x)
    fn = model.logp_dlogp_function(ravel_inputs=True)
    fn.set_extra_values({})
    point = np.array([0.01, np.log(0.03)])
    return lambda: [fn(point) for _ in range(1000)]


ours = best_of(logp_dlogp(True)) / 1000
mvn = best_of(logp_dlogp(False)) / 1000
print(f"logp+grad at n={N}: closed form {ours * 1e6:.1f} us, MvNormal {mvn * 1e6:.1f} us: "
      f"{mvn / ours:.0f}x faster (target >= 20)")

FIT = """
import os, time
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np
from pp_corr.pairwise.models import correlated_t_model
from pp_corr.sampling import sample
x = np.random.default_rng(0).normal(0.01, 0.03, size=100)
start = time.perf_counter()
sample(correlated_t_model(x, folds=10), draws=1000, tune=1000, chains=4, random_seed=1)
print(time.perf_counter() - start)
"""
with tempfile.TemporaryDirectory() as cache:
    # pytensor compiles through numba, which caches on its own: empty both
    env = {**os.environ, "PYTENSOR_FLAGS": f"compiledir={cache}", "NUMBA_CACHE_DIR": cache}
    cold, warm = (float(subprocess.run([sys.executable, "-c", FIT], env=env, capture_output=True, text=True,
                                       check=True).stdout.split()[-1]) for _ in range(2))
print(f"4 chains x 1000 draws (+1000 tune), n={N}: cold compile cache {cold:.1f} s, warm {warm:.1f} s "
      f"(ratio {cold / warm:.1f})")
