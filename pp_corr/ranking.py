"""Bayesian Plackett-Luce ranking of k algorithms on q data sets (Calvo, Ceberio, Lozano 2018, as scmamp's
``bPlackettLuceModel``).

The model. On each data set the algorithms are ranked by their mean score over runs and folds (1 = best).
A ranking pi (pi(1) the best) has the Plackett-Luce probability

    P(pi | w) = prod_{r=1..k} w_pi(r) / sum_{s >= r} w_pi(s),

with the weights w on the simplex and a Dirichlet(alpha) prior (alpha = 1: uniform on the simplex). Read as
an exponential race (algorithm a finishes at an Exp(w_a) time, the ranking is the order of finishing):

- w_a = P(a is ranked first on a new data set);
- P(a before b | w) = w_a / (w_a + w_b), whatever the other algorithms;
- so the expected rank of a given w is exactly 1 + sum_{b != a} w_b / (w_a + w_b) (the rank is one plus the
  number of algorithms before it): no enumeration of the k! rankings and no Monte Carlo over rankings. The
  posterior averages of these per-draw values carry only the Monte Carlo error of the posterior draws,
  reported as MCSE.

The likelihood. Summed over the data sets, log P = q sum_a log w_a - sum_{i, r} log T_ir, with the tails
T_ir = sum_{s >= r} w_pi_i(s) of data set i's ranking pi_i: each is the sum of w over a set of algorithms, so the
log-likelihood is q sum_a log w_a - sum_S c_S log w(S) over the distinct sets S, c_S counting how often each
occurs. The tails are summed directly (a 0/1 matrix times w): positive weights on the simplex, with no
cancellation or overflow, so no log-sum-exp is needed.

Partial rankings. Where some algorithms have no score on a data set, it ranks those it has, and that ranking's
probability is the same product over its own algorithms: the choices among the algorithms present. This is the
probability, under the full model, of every full ranking that orders the present ones that way (a race among all k
algorithms, watched only for those present, is a race among them), so an absent cell is marginalised, not
imputed; the likelihood is sum_a n_a log w_a - sum_S c_S log w(S), n_a the number of data sets where a is ranked.
Every algorithm keeps its weight, expected rank and P(ranked before) - an algorithm ranked on few data sets has a
wider posterior.

Ties. Near-identical algorithms tie exactly on real benchmarks (on uci54, j48 and j48gr on 15 of 54 data
sets; on scmamp's integer-valued example, 297 of 300 instances hold a tie). The default rule
(``ties="average"``) reads a tie as evidence that the tied algorithms did equally well: a data set's
log-likelihood is the average of log P(pi | w) over the rankings pi that order its tied algorithms in every
possible way (each tied group's orders equally weighted, the groups' order kept). With two algorithms a tie
counts half a win for each, as the rank tests count it, and the posterior of w_1 is exactly
Beta(alpha_1 + wins + ties/2, alpha_2 + losses + ties/2). For a tied group G above the set R of algorithms
ranked below it, the average is sum_{a in G} log w_a - sum_{A subset of G, A not empty} log w(R + A) /
C(|G|, |A|) (the last m places of a uniformly random order of G hold a uniformly random m-subset of G), so a tie costs
2^|G| sets, not |G|! rankings, and no seed. It is the expected log-likelihood of ``ties="random"``, which
breaks each tie once uniformly at random (seeded), as scmamp's ``bPlackettLuceModel`` does; the average
removes the dependence on that draw (on scmamp's example, P(FrogCOL first) moves by 0.01 between seeds).
Treating a tie as an unobserved order instead (summing the probabilities of its orders) would make a data set
where all algorithms tie carry no information, and two algorithms that always tie would never be found
alike. Two mean scores tie when they differ by at most 4 ulps of the scores' magnitude (as in
:func:`pp_corr.data.scores.mean_differences`: the means are summed exactly), and ties chain (a ties b and b ties
c: one group of three).

Inference: NUTS on PyMC's Dirichlet (its simplex transform: w = softmax(y, -sum y) of k - 1 free coordinates
y). In y the log posterior is concave, linear terms less log-sum-exps with non-negative counts (each data set
contributes k tails, its average under ties too), so the chains mix quickly: on uci54 the bulk ESS of w is about
3500 of 4000 draws.
Convergence policy: R-hat <= 1.01 and bulk ESS >= 400 for every w_a, and no divergences
(:func:`pp_corr.sampling.diagnose`); a failing fit warns and says so in its summary.
"""
from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import arviz as az
import numpy as np
import pandas as pd
import pymc as pm
import pytensor
import pytensor.tensor as pt
import xarray as xr

from ._args import as_generator, check_count, check_flag, check_probability_level, check_real
from .results import Result, python_values
from .sampling import ConvergenceWarning, diagnose, sample

TIES = ("average", "random")
MISSING = ("partial", "error", "drop")
MAX_TIED = 16  # the average tie rule sums over the 2^|G| subsets of a tied group G: at most 65,535
TIE_ULPS = 4  # mean scores this many ulps of their magnitude apart tie (as in scores.mean_differences)


def dataset_ranks(scores, *, higher_is_better=True, missing="partial") -> pd.DataFrame:
    """Each algorithm's rank on each data set by its mean score (1 = best; tied algorithms share their
    average rank), a ``(q, k)`` DataFrame (rows data sets, columns algorithms).

    ``scores`` is a scores Dataset (:func:`pp_corr.load_scores`: means over runs and folds, absent runs left
    out) or a DataFrame of per-data-set scores (rows data sets, columns algorithms). A Dataset's ``score`` is
    higher-is-better already (``load_scores(..., higher_is_better=False)`` negated the losses), so
    ``higher_is_better=False`` is for a DataFrame of losses or a Dataset loaded as it was written. Ties are
    described in the module's docstring. Where an algorithm has no score on a data set (NaN), by default
    (``missing="partial"``) the data set ranks the algorithms it has, and the absent one's rank is NaN;
    ``missing="drop"`` leaves such data sets out, with a warning naming them; ``missing="error"`` refuses them.

    >>> frame = pd.DataFrame({"A": [0.9, 0.7, 0.8], "B": [0.8, 0.7, 0.9], "C": [0.1, 0.2, None]},
    ...                      index=["d1", "d2", "d3"])
    >>> dataset_ranks(frame).to_numpy().tolist()
    [[1.0, 2.0, 3.0], [1.5, 1.5, 3.0], [2.0, 1.0, nan]]
    """
    if missing not in MISSING:
        raise ValueError(f"missing must be one of {MISSING}, got {missing!r}")
    means, scale, datasets, algorithms = _means(scores, higher_is_better)
    absent = np.isnan(means)
    if absent.any() and missing != "partial":
        rows = np.flatnonzero(absent.any(axis=1))
        named = {datasets[i]: [algorithms[j] for j in np.flatnonzero(absent[i])] for i in rows}
        if missing == "error":
            shown = "; ".join(f"data set {d!r} lacks {a}" for d, a in list(named.items())[:5])
            raise ValueError(f"scores: {shown}{' ...' if len(named) > 5 else ''} ({len(named)} data set(s) in "
                             "all): give every algorithm a score on every data set, or missing='drop'")
        if len(rows) == len(datasets):
            raise ValueError("scores: every data set lacks some algorithm, so missing='drop' leaves nothing")
        warnings.warn(f"missing='drop': left out {len(rows)} data set(s) where an algorithm has no score: "
                      f"{list(named)}", UserWarning, stacklevel=2)
        keep = ~absent.any(axis=1)
        means, scale, datasets = means[keep], scale[keep], [d for d, k in zip(datasets, keep) if k]
    ranks = np.full(means.shape, np.nan)
    for row, row_scale, out in zip(means, scale, ranks):
        present = ~np.isnan(row)
        out[present] = _tied_ranks(row[present], row_scale[present])
    return pd.DataFrame(ranks, index=pd.Index(datasets, name="dataset"),
                        columns=pd.Index(algorithms, name="algorithm"))


def order_by_ranking(scores, *, higher_is_better=True) -> list[str]:
    """The algorithms of ``scores``, best first by their average rank over the data sets (:func:`dataset_ranks`:
    ties share their average rank), the frequentist analogue of the Plackett-Luce expected rank: no sampling,
    the same order every time. Algorithms with equal average ranks keep the order of ``scores``; data sets where
    an algorithm has no score are left out (a partial ranking's ranks are not on the same scale). ``scores`` and
    ``higher_is_better`` are those of :func:`dataset_ranks`.

    >>> frame = pd.DataFrame({"A": [0.7, 0.7, 0.9], "B": [0.8, 0.9, 0.8], "C": [0.6, 0.7, 0.5]})
    >>> order_by_ranking(frame), order_by_ranking(frame, higher_is_better=False)
    (['B', 'A', 'C'], ['C', 'A', 'B'])
    """
    with warnings.catch_warnings():  # an order needs no warning about the data sets it leaves out
        warnings.filterwarnings("ignore", message="missing='drop'", category=UserWarning)
        mean_ranks = dataset_ranks(scores, higher_is_better=higher_is_better, missing="drop").mean()
    return [str(name) for name in mean_ranks.index[np.argsort(mean_ranks.to_numpy(), kind="stable")]]


def plackett_luce_model(rankings, *, prior=1.0, algorithms=None, ties="average", random_seed=None) -> pm.Model:
    """The Bayesian Plackett-Luce model of ``rankings`` as a ``pm.Model`` (add variables under ``with model:``).

    ``rankings`` is ``(q, k)``: row i ranks the k algorithms on data set i, lower is better and equal values
    tie (ranks 1..k, average ranks such as 2.5, or a DataFrame from :func:`dataset_ranks`, whose columns name
    the algorithms); NaN marks an algorithm absent from a data set, whose row is then a partial ranking of
    the others (the module's docstring). ``prior`` is the Dirichlet's alpha: one positive number, k of them, or a
    mapping ``{algorithm: alpha}``. ``ties`` is ``"average"`` or ``"random"`` (seeded by ``random_seed``; see the
    module's docstring). The model has the weights ``w`` (dims ``algorithm``) and the log-likelihood as the
    potential ``log_likelihood``.

    >>> model = plackett_luce_model([[1, 2, 3], [2, 1, 3], [1, 2.5, 2.5], [2, np.nan, 1]], algorithms=["a", "b", "c"])
    >>> model.named_vars_to_dims["w"], [p.name for p in model.potentials]
    (('algorithm',), ['log_likelihood'])
    """
    ranks, algorithms = _check_rankings(rankings, algorithms)
    if ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}, got {ties!r}")
    alpha = _check_prior(prior, algorithms)
    if ties == "random":
        ranks = _break_ties(ranks, as_generator(random_seed))
    sets, counts = _tail_sets(ranks)
    with pm.Model(coords={"algorithm": algorithms}) as model:
        w = pm.Dirichlet("w", a=pytensor.shared(alpha, name="alpha"), dims="algorithm")
        pm.Potential("log_likelihood", _log_likelihood(w, (~np.isnan(ranks)).sum(axis=0), sets, counts))
    return model


@dataclass(frozen=True)
class PlackettLuceResult(Result):
    """Posterior of the Plackett-Luce weights and what follows from them (see the module's docstring). Its
    :meth:`decision` names the algorithm whose weight is the largest with probability above 1 - alpha (``p_best``),
    else ``"none"`` (also when the fit did not converge).

    ``ranks`` holds the observed ranks (:func:`dataset_ranks`; NaN where an algorithm is absent),
    ``convergence_problems`` what :func:`pp_corr.sampling.diagnose` found (empty: converged), ``settings`` the
    prior, tie rule and sampler settings.
    """

    idata: object
    ranks: pd.DataFrame
    convergence_problems: tuple[str, ...]
    settings: dict

    @property
    def converged(self) -> bool:
        return not self.convergence_problems

    @property
    def algorithms(self) -> list[str]:
        return [str(a) for a in self.idata.posterior["w"].algorithm.values]

    @property
    def weights(self) -> np.ndarray:
        """The posterior draws of w, ``(chains * draws, k)``."""
        return self.idata.posterior["w"].transpose("chain", "draw", "algorithm").values.reshape(-1, self.k)

    @property
    def k(self) -> int:
        return self.idata.posterior.sizes["algorithm"]

    def _per_draw(self) -> xr.Dataset:
        """Per posterior draw: P(a before b), a's expected rank, a's rank in the most probable ranking."""
        w = self.idata.posterior["w"].transpose("chain", "draw", "algorithm")
        values = w.values
        before = values[..., :, None] / (values[..., :, None] + values[..., None, :])  # [a, b]: a before b
        expected_rank = 0.5 + before.sum(axis=-2)  # 1 + sum_{b != a} P(b before a); the diagonal holds 1/2
        mode_rank = np.argsort(np.argsort(-values, axis=-1), axis=-1) + 1.0
        best = (mode_rank == 1).astype(float)
        dims = ("chain", "draw", "algorithm")
        return xr.Dataset({"w": w, "expected_rank": (dims, expected_rank), "mode_rank": (dims, mode_rank),
                           "best": (dims, best), "before": (dims + ("other",), before)},
                          coords={"chain": w.chain.values, "draw": w.draw.values, "algorithm": self.algorithms,
                                  "other": self.algorithms})

    def to_frame(self, *, confidence_level=0.95) -> pd.DataFrame:
        """One row per algorithm, best expected rank first: ``expected_rank`` (its posterior mean and MCSE),
        ``p_first`` = P(ranked first on a new data set) = E[w_a] (MCSE, and the equal-tailed credible interval
        ``w_lower``, ``w_upper`` of w_a), ``p_best`` = P(w_a is the largest weight), ``mode_rank`` (the
        posterior mean of a's rank in the most probable ranking, scmamp's ``expected.mode.rank``),
        ``observed_mean_rank`` (its mean rank over the data sets where it is ranked, ties averaged) and
        ``n_datasets`` (how many those are).

        >>> res = plackett_luce(pd.DataFrame({"A": [0.9, 0.8, 0.7], "B": [0.8, 0.7, 0.75]}), draws=500, tune=300,
        ...                     chains=2, random_seed=0)
        >>> list(res.to_frame().columns[:4]), res.to_frame().index.tolist()
        (['expected_rank', 'expected_rank_mcse', 'p_first', 'p_first_mcse'], ['A', 'B'])
        """
        check_probability_level("confidence_level", confidence_level)
        draws = self._per_draw()
        means = draws[["expected_rank", "w", "best", "mode_rank"]].mean(("chain", "draw"))
        mcse = az.mcse(draws[["expected_rank", "w"]])
        tail = (1 - confidence_level) / 2
        interval = draws["w"].quantile([tail, 1 - tail], dim=("chain", "draw"))
        frame = pd.DataFrame({"expected_rank": means["expected_rank"].values,
                              "expected_rank_mcse": mcse["expected_rank"].values,
                              "p_first": means["w"].values, "p_first_mcse": mcse["w"].values,
                              "w_lower": interval.values[0], "w_upper": interval.values[1],
                              "p_best": means["best"].values, "mode_rank": means["mode_rank"].values,
                              "observed_mean_rank": self.ranks[self.algorithms].mean().values,
                              "n_datasets": self.ranks[self.algorithms].notna().sum().values},
                             index=pd.Index(self.algorithms, name="algorithm"))
        frame.attrs["confidence_level"] = confidence_level
        return frame.sort_values("expected_rank", kind="stable")

    def before(self) -> pd.DataFrame:
        """P(row ranked before column) on a new data set, E[w_row / (w_row + w_col)], best expected rank first
        (the diagonal is NaN).

        >>> res = plackett_luce(pd.DataFrame({"A": [0.9, 0.8, 0.7], "B": [0.8, 0.7, 0.75]}), draws=500, tune=300,
        ...                     chains=2, random_seed=0)
        >>> table = res.before()
        >>> round(float(table.loc["A", "B"] + table.loc["B", "A"]), 12)
        1.0
        """
        before = self._per_draw()["before"].mean(("chain", "draw")).values
        np.fill_diagonal(before, np.nan)
        order = self.to_frame().index
        frame = pd.DataFrame(before, index=pd.Index(self.algorithms, name="before"),
                             columns=pd.Index(self.algorithms, name="after"))
        return frame.loc[order, order]

    def _decide(self, alpha) -> str:
        return self._verdict(alpha) if self.converged else "none"

    def _verdict(self, alpha) -> str:
        """The algorithm whose weight is the largest with probability above 1 - alpha (converged or not), or
        "none"."""
        p_best = self.to_frame()["p_best"]
        return str(p_best.idxmax()) if p_best.max() > 1 - alpha else "none"

    def to_dict(self, *, confidence_level=0.95) -> dict:
        """Plain Python values (NaN as None): the settings, the decision at 0.05, convergence and one record per
        algorithm as in :meth:`to_frame`.

        >>> res = plackett_luce(pd.DataFrame({"A": [0.9, 0.8, 0.7], "B": [0.8, 0.7, 0.75]}), draws=500, tune=300,
        ...                     chains=2, random_seed=0)
        >>> record = res.to_dict(); record["decision"], record["ranking"][0]["algorithm"]
        ('none', 'A')
        """
        frame = self.to_frame(confidence_level=confidence_level)
        return python_values({"test": "Plackett-Luce", "settings": dict(self.settings),
                              "confidence_level": confidence_level, "decision": self.decision(),
                              "converged": self.converged, "convergence_problems": list(self.convergence_problems),
                              "ranking": frame.reset_index().to_dict(orient="records")})

    def summary(self, *, alpha=None) -> str:
        """The ranking in words and a table (the ``repr``), and the decision at ``alpha`` (default 0.05); an
        unconverged fit says so first.

        >>> res = plackett_luce(pd.DataFrame({"A": [0.9, 0.8, 0.7], "B": [0.8, 0.7, 0.75]}), draws=500, tune=300,
        ...                     chains=2, random_seed=0)
        >>> res.summary().splitlines()[0]
        'Plackett-Luce ranking of 2 algorithms on 3 data sets (prior Dirichlet(1), ties: average, 0 data sets tied)'
        """
        prior = self.settings["prior"]
        shown = f"{prior[0]:g}" if len(set(prior)) == 1 else ", ".join(f"{a:g}" for a in prior)
        rows = [row[~np.isnan(row)] for row in self.ranks.to_numpy()]
        tied = int(sum(len(set(row)) < len(row) for row in rows))
        lines = [f"Plackett-Luce ranking of {self.k} algorithms on {len(self.ranks)} data sets "
                 f"(prior Dirichlet({shown}), ties: {self.settings['ties']}, {tied} data sets tied)"]
        partial = {str(d): [a for a, r in zip(self.ranks.columns, row) if np.isnan(r)]
                   for d, row in zip(self.ranks.index, self.ranks.to_numpy()) if np.isnan(row).any()}
        if partial:
            shown_gaps = "; ".join(f"{d} lacks {', '.join(a)}" for d, a in list(partial.items())[:5])
            lines.append(f"  {len(partial)} data set{'s' * (len(partial) != 1)} rank only the algorithms they have "
                         f"(partial rankings): {shown_gaps}{' ...' if len(partial) > 5 else ''}")
        if not self.converged:
            lines.append(f"  NOT CONVERGED ({len(self.convergence_problems)} problem(s)): "
                         + "; ".join(self.convergence_problems[:4]))
        frame = self.to_frame()
        top = frame.index[0]
        lines.append(f"  {top} has the best expected rank ({frame.expected_rank.iloc[0]:.2f}); it is ranked first on "
                     f"a new data set with probability {frame.p_first.iloc[0]:.3f} and has the largest weight "
                     f"with probability {frame.p_best.iloc[0]:.3f}")
        shown_frame = frame.drop(columns=["expected_rank_mcse", "p_first_mcse"])
        lines += ["  " + line for line in shown_frame.to_string(float_format=lambda v: f"{v:.3f}").splitlines()]
        alpha = self._alpha(alpha)
        lines.append(f"  decision at alpha = {alpha:g}: {self._verdict(alpha)} (the largest weight with probability "
                     f"above {1 - alpha:g}, else none)")
        return "\n".join(lines)

    def __repr__(self):
        return self.summary()


def plackett_luce(scores, *, higher_is_better=True, prior=1.0, ties="average", missing="partial", draws=1000,
                  tune=1000, chains=4, random_seed=None, sampler="pymc", progressbar=False) -> PlackettLuceResult:
    """Rank the algorithms of ``scores`` with the Bayesian Plackett-Luce model (see the module's docstring).

    ``scores``, ``higher_is_better`` and ``missing`` are those of :func:`dataset_ranks`; ``prior`` and
    ``ties`` those of :func:`plackett_luce_model`. ``draws``, ``tune`` (per chain) and ``chains`` are whole
    numbers >= 1 and ``sampler`` is ``"pymc"`` or ``"nutpie"``; one ``random_seed`` seeds the tie-breaks
    and the sampler. A fit that fails the convergence policy warns (``ConvergenceWarning``).

    >>> frame = pd.DataFrame({"A": [0.9, 0.8, 0.7, 0.9], "B": [0.8, 0.7, 0.75, 0.6], "C": [0.7, 0.6, 0.6, 0.6]})
    >>> res = plackett_luce(frame, draws=500, tune=300, chains=2, random_seed=1)
    >>> res.to_frame().index.tolist(), res.weights.shape
    (['A', 'B', 'C'], (1000, 3))
    """
    draws, tune, chains = (check_count(name, value) for name, value in
                           (("draws", draws), ("tune", tune), ("chains", chains)))
    if sampler not in ("pymc", "nutpie"):
        raise ValueError(f"sampler must be 'pymc' or 'nutpie', got {sampler!r}")
    ranks = dataset_ranks(scores, higher_is_better=higher_is_better, missing=missing)
    rng = as_generator(random_seed)
    model = plackett_luce_model(ranks, prior=prior, ties=ties, random_seed=rng)
    seed = int(rng.integers(2**31))
    idata = sample(model, draws=draws, tune=tune, chains=chains, random_seed=seed, sampler=sampler,
                   progressbar=progressbar)
    problems = tuple(diagnose(idata, ["w"]))
    if problems:
        warnings.warn(f"the Plackett-Luce fit did not converge: {'; '.join(problems[:4])}", ConvergenceWarning,
                      stacklevel=2)
    alpha = _check_prior(prior, list(ranks.columns))
    settings = {"prior": tuple(float(a) for a in alpha), "ties": ties, "draws": draws, "tune": tune,
                "chains": chains, "sampler": sampler, "random_seed": random_seed}
    return PlackettLuceResult(idata, ranks, problems, settings)


def _means(scores, higher_is_better):
    """Per-data-set mean scores (q, k), higher is better, NaN where absent; their magnitudes; the names."""
    check_flag("higher_is_better", higher_is_better)
    if isinstance(scores, xr.Dataset):
        if "score" not in scores or set(scores.score.dims) != {"dataset", "algorithm", "run", "fold"}:
            raise TypeError("scores must be a scores Dataset (pp_corr.load_scores) or a DataFrame of per-data-set "
                            "scores (rows data sets, columns algorithms)")
        if not higher_is_better and scores.attrs.get("higher_is_better") is False:
            raise ValueError("higher_is_better=False, but these scores were loaded with higher_is_better=False and "
                             "are negated already: leave higher_is_better at True")
        values = scores.score.transpose("dataset", "algorithm", "run", "fold").values
        values = values.reshape(values.shape[0], values.shape[1], -1)
        datasets = [str(d) for d in scores.dataset.values]
        algorithms = [str(a) for a in scores.algorithm.values]
        means, scale = np.full(values.shape[:2], np.nan), np.full(values.shape[:2], np.nan)
        for (i, j), _ in np.ndenumerate(means):
            cell = values[i, j][~np.isnan(values[i, j])].tolist()
            if cell:
                if not np.isfinite(cell).all():
                    raise ValueError(f"scores: data set {datasets[i]!r}, algorithm {algorithms[j]!r} has a score "
                                     "that is inf")
                means[i, j] = _exact_mean(cell)
                scale[i, j] = _exact_mean([abs(v) for v in cell])
    elif isinstance(scores, pd.DataFrame):
        datasets = [str(d) for d in scores.index]
        algorithms = [str(a) for a in scores.columns]
        try:
            means = scores.to_numpy(dtype=float)
        except (TypeError, ValueError) as err:
            raise TypeError(f"scores must hold numbers: {err}") from None
        if np.isinf(means).any():
            i, j = np.argwhere(np.isinf(means))[0]
            raise ValueError(f"scores: data set {datasets[i]!r}, algorithm {algorithms[j]!r} is inf")
        scale = np.abs(means)
    else:
        raise TypeError("scores must be a scores Dataset (pp_corr.load_scores) or a DataFrame of per-data-set "
                        f"scores (rows data sets, columns algorithms), got {type(scores).__name__}")
    if len(algorithms) < 2:
        raise ValueError(f"scores hold {len(algorithms)} algorithm(s) {algorithms}: rank at least two")
    if not datasets:
        raise ValueError("scores hold no data set")
    for what, names in (("data set", datasets), ("algorithm", algorithms)):
        repeated = pd.Index(names)[pd.Index(names).duplicated()]
        if len(repeated):
            raise ValueError(f"scores: two {what}s are named {repeated[0]!r}")
    return (means if higher_is_better else -means), scale, datasets, algorithms


def _exact_mean(values) -> float:
    try:
        return math.fsum(values) / len(values)
    except OverflowError:  # an intermediate sum beyond the float range: sum the values scaled by 2^-e
        exponent = max(math.frexp(v)[1] for v in values)
        return math.ldexp(math.fsum(math.ldexp(v, -exponent) for v in values) / len(values), exponent)


def _tied_ranks(means, scale) -> np.ndarray:
    """Ranks of one data set's means (1 = highest), ties (within TIE_ULPS ulps, chained) sharing their average."""
    order = np.argsort(-means, kind="stable")
    ranks = np.empty(len(means))
    start = 0
    for stop in range(1, len(order) + 1):
        if stop < len(order):
            hi, lo = order[stop - 1], order[stop]
            close = means[hi] - means[lo] <= TIE_ULPS * np.finfo(float).eps * max(scale[hi], scale[lo])
            if close:
                continue
        ranks[order[start:stop]] = (start + 1 + stop) / 2
        start = stop
    return ranks


def _check_rankings(rankings, algorithms):
    if isinstance(rankings, pd.DataFrame):
        algorithms = [str(a) for a in rankings.columns] if algorithms is None else algorithms
        rankings = rankings.to_numpy()
    try:
        ranks = np.asarray(rankings, dtype=float)
    except (TypeError, ValueError) as err:
        raise TypeError(f"rankings must be a (q, k) array of numbers: {err}") from None
    if ranks.ndim != 2 or ranks.shape[0] < 1:
        raise ValueError(f"rankings must be a (q, k) array with q >= 1 data sets, got shape {ranks.shape}")
    if ranks.shape[1] < 2:
        raise ValueError(f"rankings rank {ranks.shape[1]} algorithm(s): rank at least two")
    if np.isinf(ranks).any():
        i, j = np.argwhere(np.isinf(ranks))[0]
        raise ValueError(f"rankings hold inf (row {i}, column {j}): a rank is a number, or NaN where the algorithm "
                         "is absent")
    k = ranks.shape[1]
    algorithms = [f"A{j + 1}" for j in range(k)] if algorithms is None else [str(a) for a in algorithms]
    if len(algorithms) != k or len(set(algorithms)) != k:
        raise ValueError(f"algorithms must be {k} distinct names (one per column of rankings), got {algorithms}")
    return ranks, algorithms


def _check_prior(prior, algorithms) -> np.ndarray:
    k = len(algorithms)
    if isinstance(prior, Mapping):
        unknown = sorted(set(map(str, prior)) - set(algorithms))
        missing = [a for a in algorithms if a not in {str(key) for key in prior}]
        if unknown or missing:
            raise ValueError(f"prior must give alpha for exactly the algorithms {algorithms}: "
                             f"unknown {unknown}, missing {missing}")
        by_name = {str(key): value for key, value in prior.items()}
        prior = [by_name[a] for a in algorithms]
    if np.ndim(prior) == 0:
        return np.full(k, check_real("prior", prior, low=0, low_open=True))
    if np.shape(prior) != (k,):
        raise ValueError(f"prior must be one positive number, {k} of them or a mapping {{algorithm: alpha}}, "
                         f"got shape {np.shape(prior)}")
    return np.array([check_real(f"prior[{a!r}]", v, low=0, low_open=True) for a, v in zip(algorithms, prior)])


def _break_ties(ranks, rng) -> np.ndarray:
    """Each row's ties broken uniformly at random: ranks 1..k (1..the number present), the tied groups' order
    kept, absent algorithms (NaN) left absent."""
    broken = np.full_like(ranks, np.nan)
    for i, row in enumerate(ranks):
        values = np.unique(row[~np.isnan(row)])
        order = np.concatenate([rng.permutation(np.flatnonzero(row == value)) for value in values] + [[]]).astype(int)
        broken[i, order] = np.arange(1, len(order) + 1)
    return broken


def _tail_sets(ranks):
    """The sets S of algorithms whose summed weights w(S) the log-likelihood's tails take, as 0/1 rows
    ``(n_sets, k)``, and their counts c_S (fractions under ties: see the module's docstring); a partial ranking's
    sets hold only its algorithms. Sets of all the algorithms (w(S) = 1) are left out."""
    k = ranks.shape[1]
    counts = {}
    for i, row in enumerate(ranks):
        below = np.zeros(k, dtype=bool)  # R: the algorithms ranked below the current group
        for value in np.unique(row[~np.isnan(row)])[::-1]:  # groups from the worst up
            group = np.flatnonzero(row == value)
            if len(group) > MAX_TIED:
                raise ValueError(f"rankings: row {i} ties {len(group)} algorithms; ties='average' sums over the "
                                 f"2^{len(group)} subsets of a tie, at most {MAX_TIED} algorithms: use ties='random'")
            for size in range(1, len(group) + 1):
                for subset in itertools.combinations(group, size):
                    members = below.copy()
                    members[list(subset)] = True
                    key = members.tobytes()
                    counts[key] = counts.get(key, 0.0) + 1 / math.comb(len(group), size)
            below[group] = True
    whole = np.ones(k, dtype=bool).tobytes()
    counts.pop(whole, None)
    sets = np.array([np.frombuffer(key, dtype=bool) for key in counts], dtype=float).reshape(-1, k)
    return sets, np.array(list(counts.values()))


def _log_likelihood(w, ranked, sets, counts):
    """sum_a n_a log w_a - sum_S c_S log w(S) in PyTensor, n_a = ``ranked`` (k,) the number of rankings holding
    algorithm a (q for complete rankings). The data enter as shared variables, so a new data set with as many
    algorithms reuses the compiled function."""
    sets, counts, ranked = (pytensor.shared(np.asarray(value, dtype=float), name=name) for value, name in
                            ((sets, "tail_sets"), (counts, "tail_counts"), (ranked, "ranked_counts")))
    return pt.dot(ranked, pt.log(w)) - pt.dot(counts, pt.log(pt.dot(sets, w)))
