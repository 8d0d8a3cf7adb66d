"""Replicability of the tests across data sets (Benavoli et al. 2014, section 4.2, after Bouckaert 2004): draw
subsets of the data sets many times, decide on each, and measure how often the decision comes out the same.

With e_k = 1 when the test decides H1 (B better) on the k-th of K subsets, the replicability is
R = 1 - 2 sum_k (e_k - mean e)^2 / (K - 1): 1 when every subset gives the same answer, about 0.5 for a coin toss.
The one-sided tests, with the loss (l0, l1) = (1, 19), threshold t = 0.95: Wilcoxon signed-rank (p < 0.05), the
Bayesian signed-rank test on a DP with s -> 0, the imprecise DP (H1, H0 or indeterminate) and, beyond the paper, the
Poisson test (P(B better on a majority) > t), which also sees each data set's fold-to-fold variance.
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import xarray as xr
from scipy import stats

from .._args import as_generator, check_count, check_probability_level, check_real
from ..data.scores import mean_differences
from ..pairwise.poisson_binomial import PoissonBinomial
from ..pairwise.ttest import DegenerateWarning, correlated_ttest
from .signed_rank_study import idp_probabilities, idp_weights

TESTS = ("wilcoxon", "dp", "poisson")


def replicability(decided) -> float:
    """R = 1 - 2 sum_k (e_k - mean e)^2 / (K - 1) of the decisions ``decided`` (e_k: True for H1); NaN for fewer
    than two decisions.

    >>> replicability([True, True, False, False])  # as often H1 as H0: 1 - 2 (4 / 4) / 3
    0.33333333333333337
    """
    e = np.asarray(decided, dtype=float).ravel()
    if len(e) < 2:
        return float("nan")
    return float(1 - 2 * np.sum((e - e.mean()) ** 2) / (len(e) - 1))


def one_sided_wilcoxon(z):
    """The one-sided ("greater") Wilcoxon p-value of each row of ``z`` (m, q), as :func:`pp_corr.wilcoxon_test`
    gives it row by row: zeros split, 1 for a row of zeros, scipy's exact or normal method chosen per row (exact
    without ties or zeros for q <= 50), the rows of each method in one vectorised call.

    >>> one_sided_wilcoxon(np.array([[0.02, 0.01, 0.03, -0.01, 0.02, 0.04], [0.0] * 6])).round(4).tolist()
    [0.0469, 1.0]
    """
    z = np.atleast_2d(np.asarray(z, dtype=float))
    pvalue = np.ones(len(z))
    magnitudes = np.sort(np.abs(z), axis=1)
    plain = (magnitudes[:, 0] > 0) & (np.diff(magnitudes, axis=1) > 0).all(axis=1)  # no zeros, no ties
    for rows in (plain, ~plain & z.any(axis=1)):
        if rows.any():
            pvalue[rows] = stats.wilcoxon(z[rows], axis=1, zero_method="zsplit", alternative="greater").pvalue
    return pvalue


def _oriented_pairs(scores, pairs):
    """The pairs (a, b) as given, or every pair with B the algorithm of the higher mean score over the data sets."""
    if pairs is not None:
        return [tuple(str(v) for v in pair) for pair in pairs]
    means = scores.score.mean(["dataset", "run", "fold"])
    names = [str(v) for v in scores.algorithm.values]
    return [(a, b) if means.sel(algorithm=a) <= means.sel(algorithm=b) else (b, a)
            for a, b in itertools.combinations(names, 2)]


def replicability_decisions(scores: xr.Dataset, *, pairs=None, subset_size=15, n_subsets=1000, loss_ratio=19.0,
                            alpha=0.05, draws=5000, random_seed=None) -> xr.Dataset:
    """Each test's decision (B better or not) on ``n_subsets`` random subsets of ``subset_size`` data sets of a
    scores Dataset, for every pair of algorithms: ``pairs`` as (a, b) tuples, or by default every pair with B the
    algorithm of the higher mean score (H1 "B better" is then the claim in question).

    The same subsets serve every pair, and the Bayesian tests use one set of ``draws`` Dirichlet draws for every
    subset, so that their decisions vary with the data sets drawn only. Wilcoxon decides H1 when its one-sided p <
    ``alpha`` (ties split as in :func:`pp_corr.wilcoxon_test`); the DP (s -> 0) and the Poisson test when their
    probability > t = loss_ratio / (1 + loss_ratio); the IDP decides H1 when its lower probability > t, H0 when its
    upper one < t (else ``idp_determinate`` is False). Returns booleans with dims (pair, subset) and the subsets'
    data sets (subset, member); :func:`replicability_table` summarises them.

    >>> from pp_corr import load_scores, example_path
    >>> res = replicability_decisions(load_scores(example_path()), subset_size=3, n_subsets=20, draws=500,
    ...                               random_seed=0)
    >>> res.wilcoxon_h1.dims, res.sizes["pair"]
    (('pair', 'subset'), 6)
    """
    if not isinstance(scores, xr.Dataset):
        raise ValueError(f"scores must be a scores Dataset from load_scores, got {type(scores).__name__}")
    q = scores.sizes["dataset"]
    subset_size = check_count("subset_size", subset_size, minimum=2)
    if subset_size >= q:
        raise ValueError(f"subset_size must be below the number of data sets {q}, got {subset_size}")
    n_subsets, draws = check_count("n_subsets", n_subsets, minimum=2), check_count("draws", draws)
    threshold = check_real("loss_ratio", loss_ratio, low=0, low_open=True)
    threshold = threshold / (1 + threshold)
    alpha = check_probability_level("alpha", alpha)
    rng = as_generator(random_seed)
    members = np.sort(np.argsort(rng.random((n_subsets, q)), axis=1)[:, :subset_size], axis=1)
    weights = idp_weights(rng, draws, subset_size)
    pairs = _oriented_pairs(scores, pairs)
    out = {name: np.empty((len(pairs), n_subsets), dtype=bool)
           for name in ("wilcoxon_h1", "dp_h1", "idp_h1", "idp_determinate", "poisson_h1")}
    for k, pair in enumerate(pairs):
        z = mean_differences(scores, algorithms=pair)[0][members]
        pvalue = one_sided_wilcoxon(z)
        dp, lower, upper = idp_probabilities(z, weights)
        with warnings.catch_warnings():  # data sets whose folds all agree are point masses: no news here
            warnings.simplefilter("ignore", DegenerateWarning)
            per_dataset = correlated_ttest(scores, algorithms=pair)
        majority = PoissonBinomial(per_dataset.p_right[members],
                                   complement=per_dataset.p_not_right[members]).sf(subset_size // 2)
        out["wilcoxon_h1"][k], out["dp_h1"][k], out["poisson_h1"][k] = pvalue < alpha, dp > threshold, \
            majority > threshold
        out["idp_h1"][k], out["idp_determinate"][k] = lower > threshold, (lower > threshold) | (upper < threshold)
    return xr.Dataset({name: (("pair", "subset"), values) for name, values in out.items()} |
                      {"datasets": (("subset", "member"), scores.dataset.values[members].astype(str))},
                      coords={"pair": [f"{b} vs {a}" for a, b in pairs], "a": ("pair", [a for a, _ in pairs]),
                              "b": ("pair", [b for _, b in pairs]), "subset": np.arange(n_subsets)},
                      attrs={"subset_size": subset_size, "n_datasets": q, "threshold": threshold, "alpha": alpha,
                             "draws": draws})


def replicability_table(decisions: xr.Dataset) -> pd.DataFrame:
    """One row per pair: the share of subsets in which each test decides H1 (``<test>_h1``, the IDP's
    ``idp_h1``), the IDP's indeterminate share, the number of IDP-determinate subsets, and the replicability R
    of Wilcoxon, DP and Poisson over all subsets (``R_<test>``), the IDP-determinate ones
    (``R_<test>_determinate``) and the IDP-indeterminate ones (``R_<test>_indeterminate``; NaN with fewer than 2).

    >>> from pp_corr import load_scores, example_path
    >>> table = replicability_table(replicability_decisions(load_scores(example_path()), subset_size=3,
    ...                                                     n_subsets=20, draws=500, random_seed=0))
    >>> list(table.columns[:4]), bool(table.R_wilcoxon.between(0, 1).all())
    (['a', 'b', 'n_subsets', 'wilcoxon_h1'], True)
    """
    rows = []
    for pair in decisions.pair.values:
        sel = decisions.sel(pair=pair)
        determinate = sel.idp_determinate.values
        row = {"a": str(sel.a.values), "b": str(sel.b.values), "n_subsets": sel.sizes["subset"]}
        row |= {f"{test}_h1": float(sel[f"{test}_h1"].mean()) for test in (*TESTS, "idp")}
        row |= {"idp_indeterminate": float(1 - determinate.mean()), "n_determinate": int(determinate.sum())}
        for test in TESTS:
            e = sel[f"{test}_h1"].values
            row |= {f"R_{test}": replicability(e), f"R_{test}_determinate": replicability(e[determinate]),
                    f"R_{test}_indeterminate": replicability(e[~determinate])}
        rows.append(row)
    return pd.DataFrame(rows, index=pd.Index(decisions.pair.values, name="pair"))
