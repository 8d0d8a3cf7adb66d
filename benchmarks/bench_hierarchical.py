"""Hierarchical model on uci54 (nbc vs hnb: q = 54, n = 100), 4 chains x 1000 draws after 1000 tuning steps:
wall time cold and warm compile cache and ESS per second. The Stan implementation (baycomp 1.0 with
pystan 3) was measured on this machine kind at 88 s to build and about 150 s to sample; it is not
installed here, so that figure is the baseline (target: at least 20x faster warm)."""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

STAN_SAMPLE_SECONDS = 150.0
UCI54 = Path(__file__).resolve().parents[2] / "shared" / "data" / "uci54" / "uci54_tidy.csv"
FIT = f"""
import os, time, warnings
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import arviz as az, pp_corr
from pp_corr.hierarchical.fit import hierarchical_test
scores = pp_corr.load_scores({str(UCI54)!r}, columns={{"score": "accuracy"}})
start = time.perf_counter()
res = hierarchical_test(scores, algorithms=("nbc", "hnb"), rope=0.01, random_seed=1, sampler=os.environ["SAMPLER"])
elapsed = time.perf_counter() - start
print(elapsed, float(az.ess(res.idata, var_names=["delta0"])["delta0"]))
"""

for sampler in ("pymc", "nutpie"):
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "PYTENSOR_FLAGS": f"compiledir={cache}", "NUMBA_CACHE_DIR": cache, "SAMPLER": sampler}
        runs = [subprocess.run([sys.executable, "-c", FIT], env=env, capture_output=True, text=True, check=True)
                for _ in range(2)]
    (cold, _), (warm, ess) = (map(float, r.stdout.split()[-2:]) for r in runs)
    print(f"{sampler}: cold {cold:.1f} s, warm {warm:.1f} s, ESS(delta0) {ess:.0f} = {ess / warm:.0f}/s; "
          f"vs Stan sampling {STAN_SAMPLE_SECONDS:.0f} s: {STAN_SAMPLE_SECONDS / warm:.0f}x faster warm (target >= 20)")
