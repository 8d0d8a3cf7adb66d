"""The joint hierarchical model of k algorithms (#16) on uci54: wall time, convergence and the smallest bulk
ESS per second of the population parameters, against the baseline measured in the same run: the pairwise
hierarchical model fitted to each of the k(k-1)/2 pairs (what a user does without the joint model).
Target (#16): under 2 minutes on 2 cores for all 5 classifiers, R-hat <= 1.01, bulk ESS >= 400. The joint model
is fitted twice: the first fit may include Numba's compilation (about 100 s here, once per machine and version),
the second shows the time of every later fit.

Usage: python benchmarks/bench_joint.py [--algorithms nbc,hnb,aode] [--sampler pymc|nutpie] [--draws 1000]
[--form centered|marginal] (one form, no retry; default: joint_test's policy)
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

import pp_corr  # noqa: E402
from pp_corr.sampling import ConvergenceWarning
from pp_corr.hierarchical.fit import hierarchical_test  # noqa: E402
from pp_corr.hierarchical.joint import joint_test  # noqa: E402

UCI54 = Path(__file__).resolve().parents[2] / "shared" / "data" / "uci54" / "uci54_tidy.csv"
parser = argparse.ArgumentParser()
parser.add_argument("--algorithms", default="nbc,hnb,aode,j48,j48gr")
parser.add_argument("--sampler", default="pymc")
parser.add_argument("--draws", type=int, default=None)
parser.add_argument("--form", choices=("centered", "marginal"), default=None)
args = parser.parse_args()
if not UCI54.exists():
    sys.exit(f"uci54 not found at {UCI54}")
scores = pp_corr.load_scores(UCI54, columns={"score": "accuracy"})
algorithms = args.algorithms.split(",")
settings = {"draws": args.draws, "tune": args.draws} if args.draws else {}


def timed(fn, **kwargs):
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        res = fn(scores, random_seed=1, sampler=args.sampler, **settings, **kwargs)
    elapsed = time.perf_counter() - start
    ess = az.ess(res.idata, var_names=["delta0", "sigma0", "nu"])
    smallest = min(float(ess[v].min()) for v in ("delta0", "sigma0", "nu"))
    return res, elapsed, smallest


pairwise_time = 0.0
for a, b in combinations(algorithms, 2):
    res, elapsed, ess = timed(hierarchical_test, algorithms=(a, b))
    pairwise_time += elapsed
    print(f"pairwise {a} vs {b}: {elapsed:.1f} s, converged {res.converged}, min bulk ESS {ess:.0f}", flush=True)
form = {"form": args.form, "retry": False} if args.form else {}
# the first fit compiles the model with Numba unless PyTensor's cache (~/.pytensor) holds it from an earlier run;
# the second finds it there, as every later fit of the same model does
for fit in ("first", "second"):
    res, elapsed, ess = timed(joint_test, algorithms=algorithms, **form)
    print(f"joint, k = {len(algorithms)}, {fit} fit: {elapsed:.1f} s, converged {res.converged} after "
          f"{len(res.attempts)} attempt(s), min bulk ESS of delta0/sigma0/nu {ess:.0f} ({ess / elapsed:.1f}/s); "
          f"{len(res.convergence_problems)} problem(s): {'; '.join(res.convergence_problems[:3])}", flush=True)
print(f"joint / all pairwise fits: {elapsed / pairwise_time:.2f} x the time ({pairwise_time:.1f} s for "
      f"{len(algorithms) * (len(algorithms) - 1) // 2} pairs); target: under 120 s")
print(res.summary(allow_unconverged=True))
