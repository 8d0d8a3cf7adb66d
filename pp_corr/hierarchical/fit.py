"""Fitting the hierarchical model (:mod:`pp_corr.hierarchical.model`) and what a fit gives: :func:`hierarchical_test`
and its :class:`HierarchicalResult`.

By default (``method="auto"``) the posterior is computed exactly, by deterministic quadrature
(:mod:`pp_corr.hierarchical.exact`), for the variants that have it (either population with the uniform delta0
and nu's Gamma hyperpriors); the other variants, and ``method="mcmc"``, are sampled. Convergence policy of MCMC: R-hat
<= 1.01 and bulk ESS >= 400 for delta0, sigma0, nu and every delta_i, no divergences; one retry with the robust
settings (:data:`ROBUST`, for what the caller did not set: the marginal form, longer warm-up, smaller steps); a fit
that fails them says ``converged = False`` and gives no verdict.
"""
from __future__ import annotations

import sys
import textwrap
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import partial

import arviz as az
import numpy as np
import pandas as pd
import xarray as xr
from scipy import stats

from .._args import (as_generator, as_rope, b_minus_a, check_count, check_flag, check_probability_level,
                     check_sampler, warn_percent_scale)
from ..data.scores import pick_algorithms
from ..pairwise.incomplete import common_datasets, left_out_line
from ..pairwise.intraclass import check_no_runs
from ..pairwise.poisson_binomial import PoissonBinomial
from ..pairwise.rank_tests import RegionProbabilities
from ..pairwise.ttest import DegenerateWarning, correlated_ttest
from ..results import Result, python_values, region_decision_line
from ..sampling import ConvergenceWarning, RefittableModel, diagnose, kept
from .exact import check_method, exact_sampler
from .model import (add_dataset_log_likelihood, add_log_prior, build_hierarchical_model, check_hierarchical_form,
                    draw_marginal_delta)
from .preparation import HierarchicalData, model_values, prepare_hierarchical, prior_limits, start_values
from .priors import NU_PRIORS, check_prior_bounds, check_variant, hyperprior_bounds, quadrature_prior

CHECKED = ("delta0", "sigma0", "nu", "delta")  # the variables whose R-hat and ESS decide convergence
# hierarchical_test's first fit (on uci54 the centred form mixes best: ESS of nu 2100 against 500 for the marginal
# form), and its retry (the marginal form holds in the funnel of near-identical algorithms; twice the draws for nu)
DEFAULT = {"form": "centered", "draws": 1000, "tune": 1000, "target_accept": 0.9}
ROBUST = {"form": "marginal", "draws": 2000, "tune": 2000, "target_accept": 0.95}
NEW_DATASET = "hierarchical model, a new data set"  # the method of new_dataset's results
COMPILED_MODELS = 8  # compiled models kept for later fits of the same shape (_refittable), the least recent dropped
_COMPILED = {}


class DeferredDraws:
    """A DataTree made by ``make()`` when first asked for (calling this) and kept: the exact posterior's draws, which
    its results (and their copies by ``dataclasses.replace``) share as an MCMC fit's share its DataTree.

    >>> deferred = DeferredDraws(lambda: "tree")
    >>> deferred.made, deferred(), deferred.made
    (False, 'tree', True)
    """

    def __init__(self, make):
        self._make, self._tree = make, None

    @property
    def made(self) -> bool:
        return self._tree is not None

    def __call__(self):
        if self._tree is None:
            self._tree = self._make()
        return self._tree


@dataclass(frozen=True, repr=False)
class HierarchicalResult(Result):
    """Posterior of the hierarchical model, in the original units of the scores. Its :meth:`decision` is a new data
    set's (:meth:`new_dataset`): the region largest in more than 1 - alpha of the draws, ``"none"`` unconverged.

    ``idata`` is the DataTree of the draws; ``tree`` holds it, or for an exact posterior a :class:`DeferredDraws` that
    makes it (the draws, their log priors) when ``idata`` is first used: the summary and the decision come from the
    quadrature and need no draws. ``convergence_problems`` holds what :func:`diagnose` found in the last fit (empty:
    converged), and ``attempts`` the settings of each fit (see :func:`hierarchical_test`). An unconverged result keeps
    its draws for inspection, but its summary (``repr``) gives the diagnostics instead of a verdict. ``quadrature``
    (exact posteriors only) holds the quadrature's delta0 (mean, 2.5% and 97.5% quantiles, P(delta0 > 0)) and a new
    data set's ``p_*`` and ``win_*`` at its ``rope`` (the fit's): those are the answer (:attr:`p_delta0_positive`,
    :meth:`new_dataset`, :meth:`summary`), without Monte Carlo error.
    """

    tree: object
    data: HierarchicalData
    rope: tuple[float, float]
    names: tuple[str, str]
    independent: object
    convergence_problems: tuple[str, ...] = ()
    attempts: tuple[dict, ...] = ()
    model: object = None  # the pm.Model of the last fit (the centred form's for the exact posterior)
    priors: str = "current"  # the variant (see hierarchical_model)
    population: str = "student_t"
    bounds: object = None  # the prior limits the caller fixed (see hierarchical_model)
    left_out: tuple[str, ...] = ()  # the data sets of a scores Dataset where the pair has no score in common
    quadrature: dict | None = None

    @property
    def idata(self):
        """The DataTree of the draws (made at first use for an exact posterior, from its seed)."""
        return self.tree() if isinstance(self.tree, DeferredDraws) else self.tree

    def with_log_likelihood(self) -> HierarchicalResult:
        """This result, its ``idata`` now holding the per-data-set log-likelihoods ``by_dataset`` (integrated) and
        ``by_dataset_conditional`` (:func:`add_dataset_log_likelihood`), computed unless already there.

        >>> x = np.random.default_rng(0).normal(0.02, 0.02, (4, 10))
        >>> res = hierarchical_test(x, folds=10, method="exact", draws=100, chains=2, random_seed=1)
        >>> "log_likelihood" in res.idata.children, res.with_log_likelihood().idata.log_likelihood["by_dataset"].shape
        (False, (2, 100, 4))
        """
        if "log_likelihood" not in self.idata.children:
            add_dataset_log_likelihood(self.idata, self.data, self.bounds, self.population)
        return self

    @property
    def converged(self) -> bool:
        return not self.convergence_problems

    @property
    def method(self) -> str:
        """``"mcmc"``, or ``"exact"`` when the draws come from the exact posterior (see :func:`hierarchical_test`)."""
        return "exact" if self.attempts and self.attempts[-1].get("method") == "exact quadrature" else "mcmc"

    @property
    def delta0(self) -> np.ndarray:
        return self.idata.posterior["delta0"].values.ravel()

    @property
    def p_delta0_positive(self) -> float:
        """P(delta0 > 0): the quadrature's for an exact posterior, else the share of draws."""
        if self.quadrature is not None:
            return self.quadrature["delta0_p_positive"]
        return float(np.mean(self.delta0 > 0))

    def datasets(self, confidence_level=0.95, rope=None) -> pd.DataFrame:
        """Each data set's shrunk delta_i (mean, interval, rope probabilities) next to its independent estimate;
        ``rope`` (a half-width or a pair; the fit's if None) changes the regions, not the posterior."""
        delta = self.idata.posterior["delta"].stack(sample=("chain", "draw")).transpose("dataset", "sample").values
        rope = self._rope(rope)
        lo, hi = rope
        independent = self.independent if rope == self.rope else self.independent.with_rope(rope)
        tail = (1 - confidence_level) / 2
        a, b = self.names
        frame = pd.DataFrame({
            "hier. mean": delta.mean(axis=1), "hier. lo": np.quantile(delta, tail, axis=1),
            "hier. hi": np.quantile(delta, 1 - tail, axis=1), f"hier. P({a} better)": (delta < lo).mean(axis=1),
            "hier. P(rope)": ((delta >= lo) & (delta <= hi)).mean(axis=1),
            f"hier. P({b} better)": (delta > hi).mean(axis=1),
            "indep. mean": independent.mean, f"indep. P({a} better)": independent.p_left,
            "indep. P(rope)": independent.p_rope, f"indep. P({b} better)": independent.p_right,
        }, index=pd.Index(self.data.datasets, name="dataset"))
        return frame

    def format_datasets(self, confidence_level=0.95) -> str:
        """:meth:`datasets` as text for a terminal: the shrunk estimate (mean, interval, regions) then the data set
        alone (mean, regions), under a line saying what the shrinkage is.

        >>> import numpy as np
        >>> x = np.random.default_rng(0).normal(0.02, 0.02, (3, 10))
        >>> text = hierarchical_test(x, folds=10, draws=200, chains=2, random_seed=1).format_datasets()
        >>> print(text.splitlines()[-4])
            shrunk  95% lo  95% hi   P(A)  P(rope)   P(B)  alone   P(A)  P(rope)   P(B)
        """
        a, b = self.names
        table = self.datasets(confidence_level)
        level = f"{100 * confidence_level:g}%"
        regions = [f"P({a})", "P(rope)", f"P({b})"]
        table.columns = ["shrunk", f"{level} lo", f"{level} hi", *regions, "alone", *regions]
        table.index.name = None
        explained = textwrap.fill(f"{b} - {a} per data set: 'shrunk' toward the population's delta0 by the "
                                  "hierarchical model (a data set with few or noisy folds borrows most from the others,"
                                  " so it moves most); 'alone' from its own folds by the correlated t-test; "
                                  "P(x) = P(x better)", 110)
        return explained + "\n" + table.to_string(float_format=lambda v: f"{v:.4f}")

    def to_frame(self, *, confidence_level=0.95, rope=None) -> pd.DataFrame:
        """One row per data set, columns ``a, b, dataset`` and the hierarchical (``hier_*``: mean, interval,
        ``p_left`` = P(A better), ``p_rope``, ``p_right`` = P(B better)) and independent (``indep_*``) estimates;
        the names do not depend on the algorithms', so frames of several pairs stack.

        >>> import numpy as np
        >>> x = np.random.default_rng(0).normal(0.02, 0.02, (3, 10))
        >>> res = hierarchical_test(x, folds=10, draws=200, chains=2, random_seed=1, names=("j48", "nbc"))
        >>> res.to_frame().iloc[0, :5].tolist()[:3], list(res.to_frame().columns)[3:5]
        (['j48', 'nbc', 'D1'], ['hier_mean', 'hier_lower'])
        """
        table = self.datasets(confidence_level, rope)
        table.columns = ["hier_mean", "hier_lower", "hier_upper", "hier_p_left", "hier_p_rope", "hier_p_right",
                         "indep_mean", "indep_p_left", "indep_p_rope", "indep_p_right"]
        table = table.reset_index()
        table["converged"] = self.converged
        table.insert(0, "b", self.names[1])
        table.insert(0, "a", self.names[0])
        return table

    def to_dict(self, *, confidence_level=0.95, rope=None) -> dict:
        """Plain Python values (NaN as None): the algorithms, rope, delta0 (mean, interval, P(delta0 > 0)), a new
        data set's probabilities (``p_*`` posterior means, ``win_*`` shares of draws where the region is
        largest) and decision at 0.05, the convergence problems and one record per data set as in :meth:`to_frame`.

        >>> import numpy as np
        >>> x = np.random.default_rng(0).normal(0.02, 0.02, (3, 10))
        >>> res = hierarchical_test(x, folds=10, draws=200, chains=2, random_seed=1)
        >>> summary = res.to_dict()
        >>> summary["n_datasets"], summary["datasets"][0]["dataset"], type(summary["p_delta0_positive"])
        (3, 'D1', <class 'float'>)
        """
        check_probability_level("confidence_level", confidence_level)
        tail = (1 - confidence_level) / 2
        lower, upper = np.quantile(self.delta0, [tail, 1 - tail])
        new = self.new_dataset(rope)
        records = self.to_frame(confidence_level=confidence_level, rope=rope).drop(
            columns=["a", "b", "converged"]).to_dict(orient="records")
        result = {"test": "hierarchical", "a": self.names[0], "b": self.names[1], "rope": list(self._rope(rope)),
                  "left_out": list(self.left_out),
                  "n_datasets": len(self.data.datasets), "confidence_level": confidence_level,
                  "delta0_mean": self.delta0.mean(), "delta0_lower": lower, "delta0_upper": upper,
                  "p_delta0_positive": self.p_delta0_positive,
                  **{f"{kind}_{region}": getattr(new, f"{kind}_{region}")
                     for kind in ("p", "win") for region in ("left", "rope", "right")},
                  "decision": self._decide(self.alpha, rope), "converged": self.converged,
                  "convergence_problems": list(self.convergence_problems),
                  "attempts": [dict(a) for a in self.attempts], "datasets": records}
        return python_values(result)

    def new_dataset(self, rope=None) -> RegionProbabilities:
        """P(A better), P(rope), P(B better) on a new data set, delta_new ~ t_nu(delta0, sigma0), per draw;
        ``rope`` (a half-width or a pair; the fit's if None) changes the regions, not the posterior.

        ``p_*`` are their posterior means, ``win_*`` the share of draws in which each region is largest
        (ties shared equally between the tied regions). They differ when the posterior is unsure which region
        dominates: p_* averages the probabilities of a new data set, win_* counts the draws in which a region
        is the most probable one, so win_* is the more extreme when the draws agree and splits when they do not.
        For an exact posterior at the fit's rope both come from the quadrature (``exact``; the draws remain the
        samples for the figures); at another rope, from the draws.

        >>> x = np.random.default_rng(0).normal(0.02, 0.02, (4, 10))
        >>> res = hierarchical_test(x, folds=10, draws=300, chains=2, random_seed=1)
        >>> wide, narrow = res.new_dataset(rope=0.1), res.new_dataset(rope=0.001)
        >>> bool(wide.p_rope > narrow.p_rope), wide.rope
        (True, 0.1)
        """
        rope = self._rope(rope)
        post = self.idata.posterior
        d0, s0 = (post[v].values.ravel() for v in ("delta0", "sigma0"))
        nu = post["nu"].values.ravel() if "nu" in post else np.inf  # the normal population: t with nu = inf
        lo, hi = rope
        left = stats.t.cdf((lo - d0) / s0, nu)
        right = stats.t.sf((hi - d0) / s0, nu)
        drawn = RegionProbabilities.from_tails(left, right, NEW_DATASET, rope, self.names)
        return self._with_quadrature(drawn) if self._answered(rope) else drawn

    def _regions(self, rope=None) -> RegionProbabilities:
        """:meth:`new_dataset`, without the draws (none is made) where the quadrature answers."""
        rope = self._rope(rope)
        if self._answered(rope):
            return self._with_quadrature(RegionProbabilities.from_tails([], [], NEW_DATASET, rope, self.names))
        return self.new_dataset(rope)

    def _answered(self, rope) -> bool:
        """Whether the quadrature has a new data set's probabilities at ``rope`` (a pair): the fit's rope."""
        return self.quadrature is not None and rope == self.quadrature["rope"]

    def _with_quadrature(self, regions: RegionProbabilities) -> RegionProbabilities:
        return replace(regions, exact=tuple(self.quadrature[f"{kind}_{region}"] for kind in ("p", "win")
                                            for region in ("left", "rope", "right")))

    def _delta0_summary(self) -> tuple[float, float, float]:
        """delta0's posterior mean and 95% interval: the quadrature's for an exact posterior, else the draws'."""
        if self.quadrature is not None:
            return tuple(self.quadrature[name] for name in ("delta0_mean", "delta0_q025", "delta0_q975"))
        return (float(self.delta0.mean()), *np.quantile(self.delta0, [0.025, 0.975]))

    def _rope(self, rope) -> tuple[float, float]:
        """The rope as a pair: ``rope`` (a half-width, a pair, or 0 for none) or the fit's if None."""
        return self.rope if rope is None else (as_rope(rope) or (0.0, 0.0))

    def w_distribution(self) -> pd.DataFrame:
        """Posterior of W = #{i : delta_i > 0} next to the Poisson-binomial of the independent analysis."""
        w = self.idata.posterior["W"].values.ravel()
        q = len(self.data.datasets)
        independent = self.independent.with_rope(None)  # W counts delta_i > 0 whatever the rope
        exact = PoissonBinomial(np.atleast_1d(independent.p_right),
                                complement=np.atleast_1d(independent.p_not_right)).pmf()
        return pd.DataFrame({"hierarchical": np.bincount(w.astype(int), minlength=q + 1) / len(w),
                             "independent (Poisson-binomial)": exact}, index=pd.Index(np.arange(q + 1), name="W"))

    def posterior_predictive(self, random_seed=None):
        """The DataTree with posterior-predictive per-data-set means and standard deviations (and the observed
        ones), for ``arviz.plot_ppc_dist``."""
        rng = as_generator(random_seed)
        post = self.idata.posterior
        s, n, rho = self.data.scale, self.data.n, self.data.rho
        delta, sigma = post["delta_scaled"].values, post["sigma_scaled"].values
        within = sigma**2 * (1 - rho)
        means = rng.normal(delta, np.sqrt(within / n + sigma**2 * rho)) * s
        sds = np.sqrt(within * rng.chisquare(n - 1, size=delta.shape) / (n - 1)) * s
        dims = ["chain", "draw", "dataset"]
        coords = {"chain": post.chain.values, "draw": post.draw.values, "dataset": self.data.datasets}
        tree = self.idata.copy()
        tree["posterior_predictive"] = xr.Dataset({"mean": (dims, means), "sd": (dims, sds)}, coords=coords)
        tree["observed_data"] = xr.Dataset({"mean": ("dataset", self.data.mean),
                                            "sd": ("dataset", self.data.sd)},
                                           coords={"dataset": self.data.datasets})
        return tree

    def _decide(self, alpha, rope=None) -> str:
        return self._regions(rope).decision(alpha) if self.converged else "none"

    def summary(self, *, allow_unconverged=False, alpha=None) -> str:
        """The verdict in words (the ``repr``): delta0, a new data set's probabilities and the decision at
        ``alpha`` (default 0.05). An unconverged result gives its diagnostics instead, or with
        ``allow_unconverged=True`` the numbers under a NOT CONVERGED line.

        >>> import numpy as np
        >>> x = np.random.default_rng(0).normal(0.02, 0.02, (3, 10))
        >>> res = hierarchical_test(x, folds=10, draws=300, chains=2, random_seed=1)
        >>> res.summary().splitlines()[0]
        'Hierarchical model, B - A on 3 data sets, rope (-0.01, 0.01)'
        """
        a, b = self.names
        lines = [f"Hierarchical model, {b} - {a} on {len(self.data.datasets)} data sets, rope {self.rope}"]
        if self.left_out:
            lines.append("  " + left_out_line(self.left_out, self.names))
        if not self.converged:
            lines += unconverged_lines(self.attempts, self.convergence_problems, allow_unconverged)
            if not allow_unconverged:
                return "\n".join(lines)
        if self.method == "exact":
            lines.append(f"  posterior by exact quadrature (estimated error {self.attempts[-1]['max_error']:.1g})")
        new = self._regions()
        mean, lo, hi = self._delta0_summary()
        lines += [f"  delta0 (mean difference in the population of data sets): mean {mean:+.4f}, "
                  f"95% [{lo:+.4f}, {hi:+.4f}], P(delta0 > 0) = {self.p_delta0_positive:.3f}",
                  f"  a new data set, posterior mean:   P({a} better) = {new.p_left:.3f}  P(rope) = {new.p_rope:.3f}"
                  f"  P({b} better) = {new.p_right:.3f}",
                  f"  a new data set, P(region largest): {a} {new.win_left:.3f}  rope {new.win_rope:.3f}  "
                  f"{b} {new.win_right:.3f}  (ties shared)"]
        alpha = self._alpha(alpha)
        lines.append(region_decision_line(new.decision(alpha), alpha, "a new data set's draws"))
        return "\n".join(lines)

    def __repr__(self):
        return self.summary()


def check_convergence(idata, var_names=CHECKED, *, max_rhat=1.01, min_ess=400) -> list[str]:
    """:func:`diagnose`, with a ``ConvergenceWarning`` naming the problems when there are any.

    >>> import arviz as az
    >>> rng = np.random.default_rng(0)
    >>> idata = az.from_dict({"posterior": {"delta0": rng.normal(size=(4, 500))},
    ...                       "sample_stats": {"diverging": np.zeros((4, 500), dtype=bool)}})
    >>> check_convergence(idata, var_names=["delta0"])
    []
    """
    problems = diagnose(idata, var_names, max_rhat=max_rhat, min_ess=min_ess)
    if problems:
        warnings.warn("; ".join(problems), ConvergenceWarning, stacklevel=2)
    return problems


def hierarchical_test(x, y=None, *, rope=0.01, rho=None, n_test=None, n_train=None, folds=None, runs=None,
                      priors="current", form=None, scale=None, bounds=None, algorithms=None, names=None, draws=None,
                      tune=None, chains=4, random_seed=None, sampler="pymc", target_accept=None, retry=True,
                      method="auto", progressbar=False, population="student_t", delta0_prior=None,
                      log_likelihood=False) -> HierarchicalResult:
    """Fit the hierarchical model to per-fold differences B - A of q data sets and summarise it.

    ``x`` is a scores Dataset (with ``algorithms``), ``(q, n)`` differences, or the scores of A with ``y``
    those of B; rho as for :func:`pp_corr.correlated_ttest` (``rho``, ``n_test`` with ``n_train``, ``folds``, or
    ``runs`` for arrays). ``rope`` defaults to 0.01, one point on scores in [0, 1] such as accuracies: a verdict
    over data sets needs a rope, or two near-identical algorithms are never found equivalent (give the rope
    in your scores' units). ``priors``, ``population``, ``delta0_prior``, ``form``, ``scale`` and ``bounds`` are
    those of :func:`hierarchical_model` (only the uniform delta0 with nu's Gamma hyperpriors, or the normal population,
    has an exact posterior: the other variants have no ``method="exact"``, and ``"auto"`` acts as ``"mcmc"``).
    ``draws``, ``tune`` (per chain) and ``chains`` are whole numbers >= 1, ``target_accept`` is in (0, 1),
    ``sampler`` is ``"pymc"`` or ``"nutpie"``; every argument is checked before any work. ``form``,
    ``draws``, ``tune`` and ``target_accept`` left as None take the defaults (:data:`DEFAULT`). A fixed
    ``random_seed`` gives the same draws whether or not PyTensor's compilation cache is warm; the progress
    bar (``progressbar=True``) goes to stderr. Fits with as many data sets (and the same form, priors, population
    and sampler) share one compiled model, whatever their data: with nutpie only the first waits for the compilation
    (:func:`pp_corr.hierarchical.batch.hierarchical_tests` fits many pairs).

    ``method``: ``"auto"`` (default) computes the posterior exactly where the variant has a quadrature (the
    uniform delta0 and nu's Gamma hyperpriors, either population: :mod:`pp_corr.hierarchical.exact`, sigma_i
    integrated in closed form, delta_i in one dimension, a grid over delta0, sigma0 and nu, about three decimals,
    its estimated error in ``attempts``) and samples the other variants by MCMC; ``"exact"`` insists on the
    quadrature; ``"mcmc"`` samples. The exact result holds ``chains x draws`` independent draws, so ``az.summary``,
    LOO by data set and the plots work as on a fit; ``form``, ``tune`` and ``target_accept`` are MCMC settings and
    an error with the quadrature.

    Convergence policy of MCMC: R-hat <= 1.01 and bulk ESS >= 400 for delta0, sigma0, nu and every delta_i, and no
    divergences. When the fit fails them and ``retry`` is true, the model is fitted once more with the robust
    settings (:data:`ROBUST`, for what the caller did not set). If that fails too, the result has
    ``converged = False`` and ``convergence_problems``, a ``ConvergenceWarning`` says so, and its summary shows the
    diagnostics instead of a verdict. ``retry=False`` fits once. ``attempts`` records the settings of each fit (the
    exact computation as ``{"method": "exact quadrature", ...}`` with its estimated error ``max_error``).

    The DataTree (``idata``) holds the population-level log priors (:func:`add_log_prior`, for
    ``az.psense_summary``) and, with ``log_likelihood=True`` (or later :meth:`HierarchicalResult.with_log_likelihood`),
    the per-data-set log-likelihoods (:func:`add_dataset_log_likelihood`: ``az.loo(res.idata, var_name="by_dataset")``
    is leave-one-data-set-out). They are left out by default, as in PyMC, because integrating each data set's
    parameters out costs about 0.5 ms per draw at q = 54 (2 s for 4000 draws on 2 cores).

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)  # 8 data sets, each with its own level, 10 folds
    >>> x = rng.normal(0.02, 0.02, (8, 10)) + rng.normal(0, 0.02, (8, 1))
    >>> res = hierarchical_test(x, folds=10, random_seed=1)
    >>> res.converged, bool(res.p_delta0_positive > 0.9)
    (True, True)
    """
    chains, given = check_fit_settings(check_hierarchical_form, form=form, draws=draws, tune=tune,
                                       target_accept=target_accept, chains=chains, sampler=sampler,
                                       random_seed=random_seed)
    check_method(method)
    check_flag("log_likelihood", log_likelihood)
    check_variant(priors, population, delta0_prior)
    exact_known = quadrature_prior(priors) is not None and delta0_prior is None
    if method == "exact" and not exact_known:
        integrated = [name for name in NU_PRIORS if quadrature_prior(name) is not None]
        raise ValueError(f"method: 'exact' needs delta0's uniform prior and priors in {integrated} (or hyperprior "
                         f"bounds), got priors={priors!r}{', a delta0_prior' if delta0_prior is not None else ''}")
    method = "exact" if method == "auto" and exact_known else "mcmc" if method == "auto" else method
    bounds = check_prior_bounds(bounds)
    rope = as_rope(rope) or (0.0, 0.0)
    if not isinstance(x, xr.Dataset):  # a Dataset's scores were looked at when they were loaded
        warn_percent_scale(x, y, rope, stacklevel=2)
    if y is not None:
        if isinstance(x, xr.Dataset):
            pick_algorithms(x, algorithms, y)  # refuses y, naming the pair to give
        x = b_minus_a(x, y)
    left_out = ()
    if isinstance(x, xr.Dataset):  # a pair uses the data sets where both algorithms have scores
        check_no_runs(runs)
        x, left_out = common_datasets(x, *pick_algorithms(x, algorithms))
    data = prepare_hierarchical(x, rho, n_test, n_train, folds, algorithms, scale, runs)
    if isinstance(x, xr.Dataset):
        names = names or pick_algorithms(x, algorithms)
    names = tuple(names or ("A", "B"))
    mcmc_only = sorted(set(given) & {"form", "tune", "target_accept"})
    if method == "exact" and mcmc_only:
        raise ValueError(f"{', '.join(mcmc_only)}: MCMC settings, but the posterior is computed exactly here "
                         "(method='auto' uses the quadrature where the model has one): give method='mcmc' to sample")
    with warnings.catch_warnings():  # the independent analysis is shown beside the model, point masses and all
        warnings.simplefilter("ignore", DegenerateWarning)
        independent = correlated_ttest(x, rho=data.rho, rope=rope, algorithms=algorithms, names=names)
    def fit(settings, stop_at_divergence):
        return _fit(data, priors, bounds, settings, chains=chains, random_seed=random_seed, sampler=sampler,
                    progressbar=progressbar, population=population, delta0_prior=delta0_prior,
                    stop_at_divergence=stop_at_divergence)

    if method == "exact":
        if progressbar:
            print(f"{names[1]} - {names[0]}: computing the exact posterior (quadrature)", file=sys.stderr, flush=True)
        sampled, note, quadrature = _exact_fit(data, priors, bounds, rope, population, chains=chains,
                                               draws={**DEFAULT, **given}["draws"], random_seed=random_seed)
        problems, attempts = (), (note,)
    else:
        quadrature = None
        checked = [v for v in CHECKED if v != "nu" or population == "student_t"]
        idata, problems, attempts = fit_with_policy(fit, [DEFAULT, ROBUST], given, retry=retry,
                                                    progressbar=progressbar, var_names=checked)
    # the model of the draws: the last fit's form, the centred one for the exact posterior (whose draws have no lambda)
    form = attempts[-1].get("form", DEFAULT["form"])
    model = build_hierarchical_model(data, priors, form, bounds, population, delta0_prior)
    key = _shape(data, priors, form, population, delta0_prior)
    if method == "exact":
        tree = DeferredDraws(partial(_with_log_prior, sampled, model, key))
    else:
        tree = add_log_prior(idata, model, key)
    result = HierarchicalResult(tree, data, rope, names, independent, problems, attempts, model, priors, population,
                                bounds, left_out, quadrature)
    return result.with_log_likelihood() if log_likelihood else result


def exact_arguments(data: HierarchicalData, priors, bounds, rope) -> tuple[tuple, dict]:
    """The arguments of :func:`~pp_corr.hierarchical.exact.exact_posterior` (and ``exact_draws``) for the model of
    ``data`` with ``priors`` (a variant's name or its bounds), the prior limits ``bounds`` (checked: a dict) and
    ``rope`` (a pair in the scores' units): everything in the model's unit ``data.scale``.

    >>> from pp_corr.hierarchical.exact import ExactGrid, exact_posterior
    >>> from pp_corr.hierarchical.preparation import prepare_hierarchical
    >>> x = np.random.default_rng(0).normal(0.02, 0.02, (4, 10))
    >>> args, kwargs = exact_arguments(prepare_hierarchical(x, 0.1, None, None, None, None), "current", {},
    ...                                (-0.01, 0.01))
    >>> post = exact_posterior(*args, **kwargs, grid=ExactGrid(error_estimate=False))
    >>> round(post.win_left + post.win_rope + post.win_right, 9)
    1.0
    """
    s = np.float64(data.scale)
    limits = prior_limits(data, bounds)
    lo, hi = limits["sigma"]
    return ((data.mean / s, data.ss(s), data.n, data.rho),
            {"delta0_max": limits["delta0"], "sigma0_max": limits["sigma0"],
             "sigma_bounds": tuple(np.broadcast_arrays(lo, hi)), **quadrature_prior(priors),
             "rope": (rope[0] / s, rope[1] / s)})


def _exact_fit(data: HierarchicalData, priors, bounds, rope, population, *, chains, draws, random_seed):
    """The exact posterior (:mod:`pp_corr.hierarchical.exact`, deterministic quadrature): a function making its
    independent draws as a DataTree shaped like a fit's (:func:`_exact_tree`), the note recorded in ``attempts`` and
    the quadrature's summaries (:attr:`HierarchicalResult.quadrature`)."""
    args, kwargs = exact_arguments(data, priors, bounds, rope)
    post, sampler = exact_sampler(*args, **kwargs, population=population)
    summaries = ("delta0_mean", "delta0_q025", "delta0_q975", "delta0_p_positive",
                 *(f"{kind}_{region}" for kind in ("p", "win") for region in ("left", "rope", "right")))
    scaled = {"delta0_mean", "delta0_q025", "delta0_q975"}
    return (partial(_exact_tree, sampler, data, population, chains, draws, random_seed),
            {"method": "exact quadrature", "draws": chains * draws, "max_error": float(post.max_error)},
            {"rope": tuple(rope), **{name: float(getattr(post, name)) * (data.scale if name in scaled else 1)
                                     for name in summaries}})


def _with_log_prior(make, model, key):
    """The DataTree ``make()`` with the log priors of ``model`` (:func:`add_log_prior`)."""
    return add_log_prior(make(), model, key)


def _exact_tree(sampler, data: HierarchicalData, population, chains, draws, random_seed):
    """``chains x draws`` draws of ``sampler`` (:func:`~pp_corr.hierarchical.exact.exact_sampler`'s) as a DataTree
    shaped like a fit's, in the scores' units (no nu for the normal population)."""
    s = np.float64(data.scale)
    values = sampler(chains * draws, random_seed)
    shaped = {name: np.asarray(values[name]).reshape((chains, draws) + np.shape(values[name])[1:])
              for name in ("delta0", "sigma0", "nu", "delta", "sigma")}
    delta = shaped["delta"]
    posterior = {"delta0_scaled": shaped["delta0"], "sigma0_scaled": shaped["sigma0"], "nu": shaped["nu"],
                 "sigma_scaled": shaped["sigma"], "delta_scaled": delta, "delta0": shaped["delta0"] * s,
                 "sigma0": shaped["sigma0"] * s, "delta": delta * s, "W": (delta > 0).sum(axis=-1)}
    if population == "normal":
        del posterior["nu"]
    dims = {name: ["dataset"] for name in ("sigma_scaled", "delta_scaled", "delta")}
    return az.from_dict({"posterior": posterior, "sample_stats": {"diverging": np.zeros((chains, draws), dtype=bool)}},
                        dims=dims, coords={"dataset": data.datasets})


def check_fit_settings(check_form, *, form, draws, tune, target_accept, chains, sampler, random_seed):
    """Check the sampling arguments of a test (``check_form`` checks its ``form``); returns ``chains`` and the
    settings the caller gave (those not None), for :func:`fit_with_policy`.

    >>> check_fit_settings(check_hierarchical_form, form=None, draws=500, tune=None, target_accept=None,
    ...                    chains=2, sampler="pymc", random_seed=1)
    (2, {'draws': 500})
    """
    chains = check_count("chains", chains)
    given = {"form": form, "draws": draws, "tune": tune, "target_accept": target_accept}
    given = {key: value for key, value in given.items() if value is not None}
    for key in ("draws", "tune"):
        if key in given:
            check_count(key, given[key])
    if "target_accept" in given:
        check_probability_level("target_accept", target_accept)
    if "form" in given:
        check_form(form)
    check_sampler(sampler)
    if random_seed is not None:
        as_generator(random_seed)  # the check only: PyMC takes the seed itself
    return chains, given


def fit_with_policy(fit, settings, given, *, retry=True, progressbar=False, var_names=CHECKED,
                    what="the hierarchical model"):
    """The convergence policy: ``fit(settings[0] | given)``, then once more with ``settings[1] | given`` when
    :func:`diagnose` finds problems in ``var_names`` and ``retry`` is true (and the second differs from the
    first). When the last attempt failed too, a ``ConvergenceWarning``. Returns the DataTree, its problems and the
    settings of each attempt.

    ``fit`` also takes ``stop_at_divergence``: true for an attempt whose failure the next attempt replaces, which
    may then stop sampling at its first divergence after warm-up (a divergence fails it anyway); the last attempt
    runs in full, so that its draws can be inspected.

    >>> import arviz as az
    >>> rng = np.random.default_rng(0)
    >>> def fit(settings, stop_at_divergence):  # a stand-in for a sampler: chains disagree unless draws are many
    ...     shift = 0.0 if settings["draws"] > 1000 else np.arange(4)[:, None]
    ...     return az.from_dict({"posterior": {"delta0": rng.normal(size=(4, 500)) + shift},
    ...                          "sample_stats": {"diverging": np.zeros((4, 500), dtype=bool)}})
    >>> idata, problems, attempts = fit_with_policy(fit, [{"draws": 500}, {"draws": 2000}], {}, var_names=["delta0"])
    >>> problems, attempts
    ((), ({'draws': 500}, {'draws': 2000}))
    """
    attempts = [{**settings[0], **given}]
    if retry and {**settings[1], **given} != attempts[0]:  # nothing to retry when the caller set every setting
        attempts.append({**settings[1], **given})
    for number, chosen in enumerate(attempts, start=1):
        if progressbar and number == 2:
            print(f"not converged ({_summary(problems)}): fitting again with {describe_settings(chosen)}",
                  file=sys.stderr)
        idata = fit(chosen, stop_at_divergence=number < len(attempts))
        problems = diagnose(idata, var_names)
        if not problems:
            break
    attempts = attempts[:number]
    if problems:
        warnings.warn(f"{what} did not converge ({len(attempts)} attempt(s), last with "
                      f"{describe_settings(attempts[-1])}): {_summary(problems)}. The result gives no verdict.",
                      ConvergenceWarning, stacklevel=3)
    return idata, tuple(problems), tuple(attempts)


def _fit(data, priors, bounds, settings, *, chains, random_seed, sampler, progressbar, population="student_t",
         delta0_prior=None, stop_at_divergence=False):
    """Sample the model with ``settings`` (form, draws, tune, target_accept): the compiled model of this shape
    (:func:`_refittable`) with ``data``'s values; ``stop_at_divergence`` as :meth:`RefittableModel.fit`."""
    form = settings["form"]
    refit = _refittable(data, priors, form, bounds, population, delta0_prior, sampler)
    idata = refit.fit(model_values(data, bounds), coords={"dataset": data.datasets},
                      initvals=start_values(data, prior_limits(data, bounds), form), draws=settings["draws"],
                      tune=settings["tune"], chains=chains, random_seed=random_seed, progressbar=progressbar,
                      target_accept=settings["target_accept"], stop_at_divergence=stop_at_divergence)
    return draw_marginal_delta(idata, data, random_seed) if form == "marginal" else idata


def _refittable(data, priors, form, bounds, population, delta0_prior, sampler) -> RefittableModel:
    """The model of ``form``, ``priors``, ``population`` and ``delta0_prior`` (by identity) for ``len(data.datasets)``
    data sets, compiled for ``sampler`` once (built on ``data`` the first time) and kept for every later fit of that
    shape, whatever its data, unit and limits (:func:`model_values`): the last :data:`COMPILED_MODELS` of them."""
    def build():
        model = build_hierarchical_model(data, priors, form, bounds, population, delta0_prior)
        q = (len(data.datasets),)
        start = {"delta0_scaled": (), "sigma0_scaled": (), "sigma_scaled": q,
                 **({"delta_scaled": q} if form == "centered" else {"z": q} if form == "noncentered" else {})}
        return RefittableModel(model, start, sampler=sampler)

    return kept(_COMPILED, (*_shape(data, priors, form, population, delta0_prior), sampler), build, COMPILED_MODELS)


def _shape(data, priors, form, population, delta0_prior) -> tuple:
    """What makes two fits' models the same but for their data: the number of data sets, the priors, the form, the
    population and delta0's prior (by identity)."""
    return len(data.datasets), _priors_key(priors), form, population, delta0_prior


def _priors_key(priors):
    """``priors`` as a dictionary key: its name, or its hyperprior bounds."""
    return tuple(sorted(hyperprior_bounds(priors).items())) if isinstance(priors, Mapping) else priors


def unconverged_lines(attempts, problems, allow_unconverged) -> list[str]:
    """A summary's NOT CONVERGED lines: the attempts and the problems found."""
    tried = "; ".join(describe_settings(settings) for settings in attempts)
    return [f"  NOT CONVERGED{'' if allow_unconverged else ', no verdict'} ({len(attempts)} attempt(s): {tried})",
            f"  {len(problems)} problem(s): {_summary(problems)}"]


def describe_settings(settings) -> str:
    """The settings of one attempt (:func:`fit_with_policy`) as ``key=value, ...``."""
    return ", ".join(f"{key}={value!r}" for key, value in settings.items())


def _summary(problems, shown=4) -> str:
    """The first few problems, and how many more."""
    more = len(problems) - shown
    return "; ".join(problems[:shown]) + (f"; and {more} more" if more > 0 else "")
