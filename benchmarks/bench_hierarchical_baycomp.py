"""Cross-check of the hierarchical model against baycomp's HierarchicalTest (PyStan 3), on uci54 nbc vs hnb.

baycomp is never a dependency: install it in a separate environment and point BAYCOMP_PYTHON at its interpreter,

    python3.12 -m venv /tmp/bcenv && /tmp/bcenv/bin/pip install baycomp pystan
    BAYCOMP_PYTHON=/tmp/bcenv/bin/python .venv/bin/python benchmarks/bench_hierarchical_baycomp.py

Both fit the hierarchical model of Corani et al. 2017 with the current prior bounds and give, per posterior draw, the
probabilities (nbc better, rope, hnb better) on a new data set; the script compares their posterior means with
the Monte Carlo standard errors of both, and the wall times (baycomp: Stan build + sampling, cold).
"""
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

import _timing  # noqa: F401  (BLAS thread variables before numpy)

import arviz as az
import numpy as np

from pp_corr import differences, hierarchical_test, load_scores

UCI54 = Path(__file__).resolve().parents[2] / "shared" / "data" / "uci54" / "uci54_tidy.csv"
PAIR, ROPE, DRAWS = ("nbc", "hnb"), 0.01, 1000
BAYCOMP_SCRIPT = """
import json, sys, time
import numpy as np
from baycomp.multiple import HierarchicalTest
data = np.load("scores.npz")
start = time.perf_counter()
samples = HierarchicalTest.sample(data["a"], data["b"], {rope}, runs=10, lower_alpha=0.5, upper_alpha=5,
                                  lower_beta=0.05, upper_beta=0.15, chains=4, nsamples={draws})
np.save("samples.npy", samples)
json.dump({{"seconds": time.perf_counter() - start}}, open("time.json", "w"))
"""


def mean_and_mcse(draws_by_chain):
    """Posterior mean and its Monte Carlo standard error, (chains, draws) array."""
    return float(draws_by_chain.mean()), float(az.mcse(draws_by_chain))


def run_baycomp(python, a, b):
    with tempfile.TemporaryDirectory() as tmp:  # baycomp caches a pickle in its working directory
        np.savez(Path(tmp) / "scores.npz", a=a, b=b)
        subprocess.run([python, "-c", BAYCOMP_SCRIPT.format(rope=ROPE, draws=DRAWS)], cwd=tmp, check=True,
                       capture_output=True)
        samples = np.load(Path(tmp) / "samples.npy")
        seconds = json.loads((Path(tmp) / "time.json").read_text())["seconds"]
    return samples, seconds


if __name__ == "__main__":
    python = os.environ.get("BAYCOMP_PYTHON")
    if not python:
        print("skipped: set BAYCOMP_PYTHON to an interpreter with baycomp and pystan (see the docstring)")
        raise SystemExit(0)
    scores = load_scores(UCI54, columns={"score": "accuracy"})
    a = scores.score.sel(algorithm=PAIR[0]).values.reshape(54, -1)
    b = a + differences(scores, *PAIR).values.reshape(54, -1)
    ours_t = []
    for seed in (1, 2):  # cold, then warm (PyTensor's compile cache)
        start = time.perf_counter()
        ours = hierarchical_test(scores, algorithms=PAIR, rope=ROPE, draws=DRAWS, random_seed=seed, sampler="nutpie")
        ours_t.append(time.perf_counter() - start)
    (theirs, cold_t), (_, warm_t) = (run_baycomp(python, a, b) for _ in range(2))  # warm: httpstan's cached build
    ours_samples = ours.new_dataset().samples.reshape(4, DRAWS, 3)
    theirs_samples = theirs.reshape(4, -1, 3)  # as PyStan returns them; only the MCSE depends on the order
    print(f"uci54 {PAIR[1]} - {PAIR[0]}, rope {ROPE}, 4 chains x {DRAWS} draws; a new data set:")
    print(f"{'':>14} {'pp_corr':>18} {'baycomp':>18} {'z':>6}")
    for k, name in enumerate((f"P({PAIR[0]} better)", "P(rope)", f"P({PAIR[1]} better)")):
        (m1, e1), (m2, e2) = mean_and_mcse(ours_samples[..., k]), mean_and_mcse(theirs_samples[..., k])
        print(f"{name:>14} {m1:9.4f} ± {e1:.4f} {m2:9.4f} ± {e2:.4f} {(m1 - m2) / np.hypot(e1, e2):6.2f}")
    print(f"wall time, cold: pp_corr (nutpie) {ours_t[0]:.1f} s, baycomp (Stan build + sampling) {cold_t:.1f} s: "
          f"{cold_t / ours_t[0]:.0f}x")
    print(f"wall time, warm: pp_corr (nutpie) {ours_t[1]:.1f} s, baycomp (cached build, sampling) {warm_t:.1f} s: "
          f"{warm_t / ours_t[1]:.0f}x")
