"""The report's settings: the data's shape and design, rho, rope, priors, level, seed and the versions used."""
from __future__ import annotations

import platform
from importlib.metadata import PackageNotFoundError, version

import numpy as np

from .document import Details, Table

PACKAGES = ("pp_corr", "numpy", "scipy", "pymc", "arviz")


def _versions() -> str:
    found = []
    for package in PACKAGES:
        try:
            found.append(f"{package} {version(package)}")
        except PackageNotFoundError:
            found.append(f"{package} (not installed)")
    return ", ".join(found + [f"Python {platform.python_version()}"])


def _design(scores):
    """Per data set: the number of runs and of folds per run that hold scores."""
    held = np.isfinite(scores.score)
    runs = held.any(["algorithm", "fold"]).sum("run").values
    folds = held.any(["algorithm", "run"]).sum("fold").values
    return runs, folds


def _spread(values, unit="") -> str:
    lo, hi = int(values.min()), int(values.max())
    return f"{lo}{unit}" if lo == hi else f"{lo} to {hi}{unit}"


def _rho_words(scores) -> str:
    rho = scores.rho.values
    _, folds = _design(scores)
    if np.allclose(rho, rho[0], rtol=1e-9, atol=0):
        how = " = 1/folds" if np.allclose(rho, 1 / folds, rtol=1e-9, atol=0) else ""
        return f"{rho[0]:.4g} on every data set{how} (Nadeau-Bengio heuristic: n_test / (n_test + n_train))"
    return (f"{rho.min():.4g} to {rho.max():.4g} across data sets, median {np.median(rho):.4g} (Nadeau-Bengio "
            "heuristic: n_test / (n_test + n_train); per data set below)")


def settings_table(scores, order, settings, ranking=None, signed_rank=None) -> Table:
    """The table of the report's settings: the data's shape and design, rho, the rope, priors, level, seed, the
    versions used (``ranking`` and ``signed_rank`` add their draws when the report has them)."""
    runs, folds = _design(scores)
    q = scores.sizes["dataset"]
    prior = settings["prior"]
    rows = [("Data", f"{len(order)} algorithms, {q} data set{'s' * (q != 1)}, {_spread(runs)} "
                     f"run{'s' * bool(runs.max() != 1)} x {_spread(folds)} folds"),
            ("Algorithms (best average rank first)", ", ".join(order)),
            ("Scores", str(scores.attrs.get("score_sense", "as given (higher is better)"))),
            ("rho (correlation of the folds)", _rho_words(scores)),
            ("Rope", f"[{settings['rope'][0]:g}, {settings['rope'][1]:g}] in the scores' units"),
            ("Decision level", f"{settings['level']:g} (alpha = {settings['alpha']:g})"),
            ("Prior of the correlated t-test", "matching (P(B better) = 1 - p of the corrected t-test)"
             if prior.is_matching else repr(prior))]
    if ranking is not None:
        pl = ranking.settings
        dirichlet = f"{pl['prior'][0]:g}" if len(set(pl["prior"])) == 1 else ", ".join(f"{v:g}" for v in pl["prior"])
        rows += [("Plackett-Luce", f"Dirichlet({dirichlet}) prior, tie rule {pl['ties']!r}, "
                                   f"{pl['chains']} chains x {pl['draws']} draws ({pl['tune']} tuning)"),
                 ("Bayesian signed-rank test", f"{signed_rank.method}, {len(signed_rank.samples)} draws per pair")]
    if settings["hierarchical"] or settings["joint"]:
        rows.append(("Hierarchical models", f"default priors, sampler {settings['sampler']!r}, method "
                                            f"{settings['method']!r} (pairwise), convergence: R-hat <= 1.01, "
                                            "bulk ESS >= 400, no divergences"))
    rows += [("Random seed", str(settings["random_seed"])), ("Versions", _versions())]
    return Table("ppcorr-settings", "Settings of the comparison", ("Setting", "Value"), tuple(rows), (False, False),
                 widths=(0.3, 0.62))


def dataset_details(scores):
    """The data sets' design and rho, on demand (Markdown and HTML only).

    >>> import pp_corr
    >>> details, = dataset_details(pp_corr.load_scores(pp_corr.example_path()))
    >>> details.summary
    'The 4 data sets: runs, folds and rho'
    """
    runs, folds = _design(scores)
    rows = tuple((str(d), str(r), str(f), f"{rho:.4g}") for d, r, f, rho in
                 zip(scores.dataset.values, runs, folds, scores.rho.values))
    table = Table("ppcorr-datasets", "The data sets", ("Data set", "Runs", "Folds", "rho"), rows,
                  (False, True, True, True), in_latex=False)
    return (Details(f"The {len(rows)} data sets: runs, folds and rho", (table,)),)
