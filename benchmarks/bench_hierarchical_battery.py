"""The hierarchical model's inference on the stress battery (issue #20) and on uci54.

For each case and seed, each setting is fitted and the script prints its convergence (R-hat <= 1.01 and bulk
ESS >= 400 for delta0, sigma0, nu and every delta_i, no divergences), its time, and - when the exact posterior
(pp_corr.hierarchical.exact, deterministic quadrature) is available - how far P(delta0 > 0) and a new data set's
posterior-mean probabilities are from it, in Monte Carlo standard errors of the fit. Settings:

- ``mcmc``: ``hierarchical_test(method="mcmc")`` (first fit, one robust retry when it fails; the default
  ``method="auto"`` is the exact posterior itself);
- ``centered``, ``noncentered``, ``marginal``: one fit of that form with target_accept 0.9 and 1000 tuning steps.

Usage: python benchmarks/bench_hierarchical_battery.py [--seeds 2] [--cases a,b] [--settings mcmc,marginal]
[--no-exact]; the case "uci54" adds two real pairs (nbc vs hnb, j48 vs j48gr) when ../shared has the data.
"""
import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _timing  # noqa: E402,F401  (one BLAS thread per process)

import arviz as az  # noqa: E402
import numpy as np  # noqa: E402
import xarray as xr  # noqa: E402
from scipy import stats  # noqa: E402

import pp_corr  # noqa: E402
from pp_corr.hierarchical.preparation import prepare_hierarchical, prior_limits
from pp_corr.sampling import ConvergenceWarning
from pp_corr.hierarchical.fit import hierarchical_test  # noqa: E402
from pp_corr.hierarchical.stress import STRESS_CASES, stress_scores  # noqa: E402

UCI54 = Path(__file__).resolve().parents[2] / "shared" / "data" / "uci54" / "uci54_tidy.csv"
SINGLE = {"centered": {"form": "centered", "retry": False}, "noncentered": {"form": "noncentered", "retry": False},
          "marginal": {"form": "marginal", "retry": False}, "mcmc": {}}
ROPE = 0.01


def exact_reference(scores, pair):
    """The exact posterior's P(delta0 > 0) and new-data-set probabilities, or None without the module."""
    try:
        from pp_corr.hierarchical.exact import exact_posterior
    except ImportError:
        return None
    data = prepare_hierarchical(scores, None, None, None, None, pair)
    limits = prior_limits(data, {})
    s, (lo, hi) = data.scale, limits["sigma"]
    post = exact_posterior(data.mean / s, data.ss(s), data.n, data.rho, delta0_max=limits["delta0"],
                           sigma0_max=limits["sigma0"], sigma_bounds=np.broadcast_arrays(lo, hi),
                           rope=(-ROPE / s, ROPE / s))
    return {"P(delta0>0)": post.delta0_p_positive, "p_left": post.p_left, "p_rope": post.p_rope,
            "p_right": post.p_right}


def fitted_quantities(res):
    """Per draw (chain, draw): the indicator of delta0 > 0 and a new data set's three probabilities."""
    post = res.idata.posterior
    d0, s0, nu = (post[v].values for v in ("delta0", "sigma0", "nu"))
    left, right = stats.t.cdf((-ROPE - d0) / s0, nu), stats.t.sf((ROPE - d0) / s0, nu)
    return {"P(delta0>0)": (d0 > 0).astype(float), "p_left": left, "p_rope": 1 - left - right, "p_right": right}


def z_scores(res, reference):
    """|fit - exact| / MCSE per quantity (a quantity with no spread in the draws: 0 if equal, else inf)."""
    out = {}
    for name, draws in fitted_quantities(res).items():
        mcse = float(az.mcse(xr.DataArray(draws, dims=("chain", "draw"))))
        gap = abs(draws.mean() - reference[name])
        out[name] = gap / mcse if mcse > 0 else (0.0 if gap < 1e-9 else np.inf)
    return out


def cases(names, seeds):
    for name in (n for n in names if n != "uci54"):
        for seed in range(seeds):
            yield f"{name}/{seed}", stress_scores(name, seed=seed), ("A", "B")
    if UCI54.exists() and "uci54" in names:
        scores = pp_corr.load_scores(UCI54, columns={"score": "accuracy"})
        for pair in (("nbc", "hnb"), ("j48", "j48gr")):
            yield f"uci54 {pair[1]}-{pair[0]}", scores, pair


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--cases", default=",".join(STRESS_CASES))
    parser.add_argument("--settings", default="mcmc")
    parser.add_argument("--no-exact", action="store_true", help="skip the exact posterior (minutes per case)")
    args = parser.parse_args()
    settings = args.settings.split(",")
    tally = {s: [0, 0, 0, 0] for s in settings}  # fits, converged, within 4 MCSE (of compared), compared
    for label, scores, pair in cases(args.cases.split(","), args.seeds):
        reference = None if args.no_exact else exact_reference(scores, pair)
        for setting in settings:
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                res = hierarchical_test(scores, algorithms=pair, rope=ROPE, random_seed=1, method="mcmc",
                                        **SINGLE[setting])
            elapsed = time.perf_counter() - start
            counts = tally[setting]
            counts[0] += 1
            counts[1] += res.converged
            line = (f"{label:24s} {setting:11s} {elapsed:6.1f} s  attempts {len(res.attempts)} ({res.method})  "
                    f"{'converged' if res.converged else 'NOT converged (' + str(len(res.convergence_problems)) + ')'}")
            if reference is not None:
                z = z_scores(res, reference)
                counts[2] += all(v <= 4 for v in z.values())
                counts[3] += 1
                line += "  |fit-exact|/MCSE " + " ".join(f"{k} {v:.1f}" for k, v in z.items())
            print(line, flush=True)
    for setting, (fits, converged, agree, compared) in tally.items():
        print(f"{setting}: {converged}/{fits} converged"
              + (f", {agree}/{compared} within 4 MCSE of the exact posterior" if compared else ""))


if __name__ == "__main__":
    main()
