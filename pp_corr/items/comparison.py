"""Two models compared on the items of each benchmark: the posterior of the mean difference over the population of
items (and of runs, when runs are training seeds).

The item is the unit of pairing: d_i = mean_r y[B, i, r] - mean_r y[A, i, r] over the runs each model has, on the
items both models have. The population mean of d is given a Dirichlet-process posterior, as the Bayesian
signed-rank test gives its data sets: sum_j w_j v_j over the items' d_i and a prior's pseudo-items v_j, with
w ~ Dirichlet(1 for each item, the pseudo-items' weights) - the same law as Dirichlet over the distinct values
with their counts. It assumes nothing about d's shape, so binary, graded and continuous scores are treated alike.
The prior (weight ``prior_strength``, one item by default) sits a third each at d = -1, 0 and 1 for scores in
[0, 1], so that a handful of items never gives certainty (without it, one item that only B gets right and
five ties give P(B better) = 1); for binary scores and one run the posterior is then the Dirichlet(counts + 1/3)
law of the three outcomes (A right only, both or neither, B right only). Continuous scores put it at d = 0. With
prior_strength=0 it is the Bayesian bootstrap (Rubin 1981).

``runs="samples"`` (the default): the runs resample answers (a sampling temperature); their noise is within items
and the item means carry it. ``runs="seeds"``: each run is a training seed, whose shift u[m, r] is shared by all
items of the run, so the mean difference has a part no number of items removes, (mean_r u[B, r] -
mean_r u[A, r]), of variance s_run (1 / R_A + 1 / R_B). The shifts' variance s_run is one for both models (a
seed's spread belongs to the training, as the fold-to-fold spread does in a correlated t-test), drawn from the two
models' run means with 2(R - 1) degrees of freedom (:func:`pp_corr.items.variance.run_shift_draws`), and that
part is added to the items' part. Three runs a model leave four degrees of freedom: the interval is then
rightly wide. With ``"samples"`` a warning says
when the run means of a model differ more than the sampling of answers explains (an F test at 0.001).
"""
from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr
from scipy import stats

from .._args import (AssumptionWarning, as_generator, as_rope, check_choice, check_count, check_probability_level,
                     check_real)
from ..data.scores import MissingScoresWarning
from ..results import Result, python_values, region_decision
from .loading import benchmark_names, load_items
from .variance import run_shift_draws, two_way

RUN_KINDS = ("samples", "seeds")
RUN_EFFECT_LEVEL = 1e-3  # the F test's p-value below which runs="samples" warns of run shifts
_BLOCK = 4_000_000  # Dirichlet weights drawn at a time (32 MB)


@dataclass(frozen=True, repr=False)
class ItemComparison(Result):
    """The posterior of the mean difference B - A over items, one row per benchmark; :meth:`decision` names, per
    benchmark, the region whose probability exceeds 1 - alpha (a tuple with several benchmarks).

    ``samples`` (benchmarks, draws) are its draws; ``p_left`` = P(A better) = P(delta < rope lo),
    ``p_rope``, ``p_right`` = P(B better) = P(delta > rope hi) come from them (without a rope lo = hi = 0, and
    ``p_rope`` is the mass at exactly 0, which only identical scores give) (Monte Carlo error at most
    0.5 / sqrt(draws)). ``differences`` holds each benchmark's item differences d_i, ``items`` their count,
    ``left_out`` the items where a model has no score (``left_out_benchmarks`` the benchmarks where the two share
    fewer than two items), ``runs`` the runs of A and of B, ``run_variance`` the
    posterior mean of the run shifts' variance in the mean difference (0 with ``run_kind="samples"``).
    """

    names: tuple[str, str]
    benchmarks: tuple[str, ...]
    rope: tuple[float, float] | None
    run_kind: str
    samples: np.ndarray
    differences: tuple[np.ndarray, ...]
    left_out: np.ndarray
    runs: np.ndarray
    run_variance: np.ndarray
    score_kind: str = "continuous"
    prior_strength: float = 1.0
    left_out_benchmarks: tuple[str, ...] = ()
    layouts: tuple = ()  # per benchmark, the two models' TwoWay summaries

    @property
    def items(self) -> np.ndarray:
        return np.array([len(d) for d in self.differences])

    @property
    def mean(self) -> np.ndarray:
        """Posterior mean of the difference: sum_i d_i / (items + prior_strength) (the prior's pseudo-items and the
        run shifts' part have mean 0)."""
        return np.array([d.sum() / (len(d) + self.prior_strength) for d in self.differences])

    @property
    def p_left(self) -> np.ndarray:
        return (self.samples < self._bounds[0]).mean(axis=1)

    @property
    def p_right(self) -> np.ndarray:
        return (self.samples > self._bounds[1]).mean(axis=1)

    @property
    def p_rope(self) -> np.ndarray:
        return 1.0 - self.p_left - self.p_right

    @property
    def _bounds(self):
        return (0.0, 0.0) if self.rope is None else self.rope

    def interval(self, confidence_level=0.95):
        """Central credible interval (lo, hi) of the mean difference, from the draws.

        >>> res = compare_items({"A": [1, 0, 1, 1, 0, 1], "B": [1, 1, 1, 1, 0, 1]}, random_seed=0)
        >>> lo, hi = res.interval(0.9); bool(lo[0] < 0.17 < hi[0])
        True
        """
        check_probability_level("confidence_level", confidence_level)
        tail = (1 - confidence_level) / 2
        return tuple(np.quantile(self.samples, [tail, 1 - tail], axis=1))

    def clustered_interval(self, confidence_level=0.95):
        """The frequentist item-clustered interval (lo, hi): mean(d) +- t(I - 1) sd(d) / sqrt(I). It ignores run
        shifts, so with training seeds it is too narrow (see the module docstring).

        >>> res = compare_items({"A": [0.2, 0.5, 0.9, 0.4], "B": [0.3, 0.7, 0.9, 0.6]}, random_seed=0)
        >>> ci = stats.ttest_1samp([0.1, 0.2, 0.0, 0.2], 0).confidence_interval()  # the same, by scipy
        >>> bool(np.allclose([v[0] for v in res.clustered_interval()], [ci.low, ci.high]))
        True
        """
        check_probability_level("confidence_level", confidence_level)
        centre = np.array([d.mean() for d in self.differences])
        half = np.array([stats.t.ppf(0.5 + confidence_level / 2, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))
                         for d in self.differences])
        return centre - half, centre + half

    def variance_components(self) -> pd.DataFrame:
        """Where each model's score variance comes from, per benchmark: items, runs and the rest (item x run
        interaction and the sampling of answers), as variances and shares (method of moments on the items scored
        in every run, :mod:`pp_corr.items.variance`; one run: no run part, the residual is in the items').

        >>> rng = np.random.default_rng(0)
        >>> y = {m: rng.normal(0, 1, (200, 1)) + rng.normal(0, 0.5, (1, 4)) + rng.normal(0, 0.3, (200, 4))
        ...      for m in "AB"}
        >>> shares = compare_items(y, runs="seeds", random_seed=0).variance_components()["run share"]
        >>> bool((shares > 0.05).all())
        True
        """
        rows = []
        for name, layouts in zip(self.benchmarks, self.layouts):
            for model, layout in zip(self.names, layouts):
                parts = layout.components
                total = sum(parts.values())
                rows.append({"benchmark": name, "model": model, "items": layout.items, "runs": layout.runs, **parts,
                             **{f"{k} share": (v / total if total > 0 else np.nan) for k, v in parts.items()}})
        return pd.DataFrame(rows).set_index(["benchmark", "model"])

    def plot(self, confidence_level=0.95, ax=None):
        """Each benchmark's posterior mean and interval, coloured by the most probable region
        (:func:`pp_corr.plots.plot_items`).

        >>> compare_items({"A": [1, 0, 1, 1], "B": [1, 1, 1, 0]}, random_seed=0).plot().get_yticklabels()[0].get_text()
        'benchmark'
        """
        from ..plots import plot_items

        return plot_items(self, confidence_level=confidence_level, ax=ax)

    def with_rope(self, rope) -> ItemComparison:
        """The same posterior with the probabilities for another rope (a half-width, a pair or None).

        >>> res = compare_items({"A": [1, 0, 1, 1, 0], "B": [1, 1, 1, 1, 0]}, random_seed=0)
        >>> bool(res.with_rope(0.5).p_rope[0] > res.p_rope[0])
        True
        """
        return dataclasses.replace(self, rope=as_rope(rope))

    def to_frame(self, *, confidence_level=0.95) -> pd.DataFrame:
        """One row per benchmark: items, runs, mean, interval, the three probabilities and the run shifts' share
        of the posterior variance.

        >>> compare_items({"A": [1, 0, 1, 1], "B": [1, 1, 1, 0]}, random_seed=0).to_frame().shape
        (1, 9)
        """
        lo, hi = self.interval(confidence_level)
        a, b = self.names
        level_text = f"{round(100 * confidence_level, 6):g}%"
        variance = self.samples.var(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(variance > 0, self.run_variance / variance, 0.0)
        frame = pd.DataFrame({"items": self.items, f"runs {a}/{b}": [f"{ra}/{rb}" for ra, rb in self.runs],
                              "mean": self.mean, f"{level_text} lo": lo, f"{level_text} hi": hi,
                              f"P({a} better)": self.p_left, "P(rope)": self.p_rope, f"P({b} better)": self.p_right,
                              "run share": np.minimum(share, 1.0)},
                             index=pd.Index(self.benchmarks, name="benchmark"))
        return frame

    def to_dict(self, *, confidence_level=0.95, alpha=None) -> dict:
        """Plain Python values (NaN as None): names, rope, run kind and one record per benchmark (as
        :meth:`to_frame` at ``confidence_level``), with its decision at ``alpha`` (default 0.05).

        >>> compare_items({"A": [1, 0, 1], "B": [1, 1, 1]}, rope=0.1, random_seed=0).to_dict()["rope"]
        [-0.1, 0.1]
        """
        frame = self.to_frame(confidence_level=confidence_level).assign(decision=np.atleast_1d(self.decision(alpha)))
        return python_values({"a": self.names[0], "b": self.names[1], "rope": self.rope, "runs": self.run_kind,
                              "score_kind": self.score_kind,
                              "left_out": dict(zip(self.benchmarks, self.left_out.tolist())),
                              "left_out_benchmarks": list(self.left_out_benchmarks),
                              "results": frame.reset_index().to_dict(orient="records")})

    def _decide(self, alpha):
        return region_decision(self.names, self.p_left, self.p_rope, self.p_right, alpha)

    def summary(self, *, confidence_level=0.95, alpha=None) -> str:
        """The table ``pp-corr items`` prints: differences to 4 decimals, probabilities to 3, the decision at
        ``alpha`` (default 0.05).

        >>> print(compare_items({"A": [1, 0, 1, 1, 0, 1], "B": [1, 1, 1, 1, 0, 1]}, random_seed=0).summary())
        B - A (positive: B better), rope None, runs resample answers, binary scores
                   items runs A/B mean diff        95% interval P(A better) P(rope) P(B better) run share decision
        benchmark                                                                                                 
        benchmark      6      1/1   +0.1429  [-0.1672, +0.5086]       0.141   0.000       0.859      0.00     none
        """
        frame = self.to_frame(confidence_level=confidence_level)
        lo, hi = frame.columns[3], frame.columns[4]
        a, b = self.names
        table = frame.iloc[:, :2].assign(**{
            "mean diff": frame["mean"].map("{:+.4f}".format),
            f"{lo[:-3]} interval": [f"[{x:+.4f}, {y:+.4f}]" for x, y in zip(frame[lo], frame[hi])],
            **{c: frame[c].map("{:.3f}".format) for c in frame.columns[5:8]},
            "run share": frame["run share"].map("{:.2f}".format),
            "decision": np.atleast_1d(self.decision(alpha))})
        runs = {"samples": "runs resample answers", "seeds": "runs are training seeds"}[self.run_kind]
        head = f"{b} - {a} (positive: {b} better), rope {self.rope}, {runs}, {self.score_kind} scores"
        if self.left_out.any():
            head += "\nitems left out (a model has no score there): " + ", ".join(
                f"{name} {n}" for name, n in zip(self.benchmarks, self.left_out) if n)
        if self.left_out_benchmarks:
            head += f"\nbenchmarks left out (fewer than 2 items scored by both): {', '.join(self.left_out_benchmarks)}"
        return f"{head}\n{table.to_string()}"

    def __repr__(self):
        return self.summary()


def compare_items(items, models=None, *, rope=None, runs="samples", prior_strength=1.0, draws=50_000,
                  random_seed=None) -> ItemComparison:
    """Compare models A and B on the items of each benchmark: P(A better), P(rope), P(B better) of the mean
    difference B - A over the population of items (and of training seeds with ``runs="seeds"``).

    ``items`` is a Dataset of :func:`pp_corr.load_items` or anything it reads; ``models=(a, b)`` (default: its two
    models). ``rope`` is a half-width or a pair (lo, hi) in the scores' units (on 0/1 scores, 0.01 is one point
    of accuracy). ``runs`` says what the runs are: ``"samples"`` (answers sampled again; noise within items) or
    ``"seeds"`` (training seeds; each shifts all items of its run). ``prior_strength`` is the prior's weight in
    items (:func:`pseudo_items`; 0: the Bayesian bootstrap). ``draws`` draws of the posterior, from
    ``random_seed``. The method is in :mod:`pp_corr.items.comparison`.

    >>> res = compare_items({"A": [1, 0, 0, 1, 0, 1, 0, 1], "B": [1, 1, 0, 1, 1, 1, 0, 1]}, rope=0.05,
    ...                     random_seed=1)
    >>> round(float(res.mean[0]), 3), bool(res.p_right[0] > 0.8)  # 2 items of 8, and the prior: 2 / 9
    (0.222, True)
    """
    items = items if isinstance(items, xr.Dataset) else load_items(items)
    a, b = pick_models(items, models)
    runs = check_choice("runs", runs, RUN_KINDS)
    draws = check_count("draws", draws, minimum=100)
    rope = as_rope(rope)
    rng = as_generator(random_seed)
    kind = items.attrs.get("score_kind", "continuous")
    prior = pseudo_items(kind, check_real("prior_strength", prior_strength, low=0))
    cubes = {name: items.score.sel(benchmark=name, model=[a, b]).values
             for name in benchmark_names(items)}
    shared = {name: int((np.isfinite(cube).any(axis=2).all(axis=1)).sum()) for name, cube in cubes.items()}
    benchmarks = tuple(name for name, n in shared.items() if n >= 2)
    skipped = tuple(name for name in cubes if name not in benchmarks)
    if not benchmarks:
        raise ValueError(f"models {a!r} and {b!r} share fewer than 2 scored items on every benchmark "
                         f"({', '.join(f'{name}: {n}' for name, n in shared.items())}): nothing to compare")
    if skipped:
        warnings.warn(f"benchmarks left out, where models {a!r} and {b!r} share fewer than 2 scored items: "
                      f"{', '.join(skipped)}", MissingScoresWarning, stacklevel=2)
    rows = [_benchmark(cubes[name], runs, prior, draws, rng, name, (a, b)) for name in benchmarks]
    return ItemComparison(
        names=(a, b), benchmarks=benchmarks, rope=rope, run_kind=runs,
        samples=np.stack([r["samples"] for r in rows]), differences=tuple(r["d"] for r in rows),
        left_out=np.array([r["left_out"] for r in rows]), runs=np.array([r["runs"] for r in rows]),
        run_variance=np.array([r["run_variance"] for r in rows]), score_kind=kind, prior_strength=prior_strength,
        left_out_benchmarks=skipped, layouts=tuple(r["layouts"] for r in rows))


def pick_models(items, models) -> tuple[str, str]:
    """The pair (a, b) named by ``models`` (default: the items' two models), checked against the items."""
    have = [str(m) for m in items.model.values]
    if models is None:
        if len(have) != 2:
            raise ValueError(f"models=(a, b) is needed: the items hold {len(have)} models {have}")
        return have[0], have[1]
    if isinstance(models, str) or len(models) != 2:
        raise ValueError(f"models must be a pair (a, b) of model names, got {models!r}")
    a, b = (str(m) for m in models)
    for name in (a, b):
        if name not in have:
            raise ValueError(f"model {name!r} is not in the items (have {have})")
    if a == b:
        raise ValueError(f"models names {a!r} twice: compare two different models (have {have})")
    return a, b


def _benchmark(cube, runs, prior, draws, rng, name, names) -> dict:
    """One benchmark's posterior sample from its scores ``cube`` (items, 2 models, runs)."""
    scored = np.isfinite(cube).any(axis=2)  # (items, 2)
    both = scored.all(axis=1)
    cube = cube[both]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a run a model lacks on some items
        d = np.nanmean(cube[:, 1], axis=1) - np.nanmean(cube[:, 0], axis=1)
    summaries = [two_way(cube[:, m]) for m in (0, 1)]
    sample = bootstrap_means(d, draws, rng, prior)
    run_variance = 0.0
    if runs == "seeds":
        for m, summary in enumerate(summaries):
            if summary.runs < 2:
                raise ValueError(f"benchmark {name!r}: model {names[m]!r} has {summary.runs} run; runs='seeds' "
                                 "needs at least two runs of each model to tell a seed's shift")
            if summary.items < 2:
                raise ValueError(f"benchmark {name!r}: model {names[m]!r} has {summary.items} item(s) scored in "
                                 f"every one of its {summary.runs} runs; runs='seeds' needs two or more to tell "
                                 "a seed's shift from the items'")
        shift = run_shift_draws(summaries, draws, rng) * sum(1 / s.runs for s in summaries)
        sample = sample + np.sqrt(shift) * rng.standard_normal(draws)
        run_variance = float(np.mean(shift)) if np.isfinite(shift).all() else np.inf
    else:
        _warn_run_shifts(summaries, name, names)
    return {"samples": sample, "d": d, "left_out": int((~both & scored.any(axis=1)).sum()),
            "runs": [s.runs for s in summaries], "run_variance": run_variance, "layouts": tuple(summaries)}


def _warn_run_shifts(summaries, name, names):
    for model, summary in zip(names, summaries):
        p = summary.run_effect_pvalue()
        if p < RUN_EFFECT_LEVEL:
            warnings.warn(f"benchmark {name!r}: the {summary.runs} runs of model {model!r} differ in their mean more "
                          f"than the sampling of answers explains (F test p = {p:.2g}): if the runs are training "
                          "seeds, pass runs='seeds' (with runs='samples' the interval leaves their shift out)",
                          AssumptionWarning, stacklevel=4)


def bootstrap_means(d, draws, rng, prior=((), ())) -> np.ndarray:
    """``draws`` draws of the Dirichlet-process posterior mean of ``d``: sum_v w_v v over the distinct values
    v of ``d`` and of the prior's pseudo-items ``prior`` = (values, weights), w ~ Dirichlet(their counts plus
    weights), in blocks of bounded memory. Without a prior: the Bayesian bootstrap.

    >>> means = bootstrap_means(np.array([0.0, 1.0, 1.0, 1.0]), 100_000, np.random.default_rng(0))
    >>> round(float(means.mean()), 2), round(float(means.var()), 2)  # Beta(3, 1): mean 0.75, variance 0.0375
    (0.75, 0.04)
    """
    values, inverse = np.unique(np.concatenate([d, prior[0]]), return_inverse=True)
    counts = np.bincount(inverse, weights=np.concatenate([np.ones(len(d)), prior[1]]), minlength=len(values))
    values, counts = values[counts > 0], counts[counts > 0]
    centre = values.mean()  # the values centred: float32 sums of many items stay accurate to 1e-6 of the spread
    unit = counts == 1  # weights of shape 1 are exponentials, drawn in single precision (3x faster than gammas)
    single, other = (values[unit] - centre).astype(np.float32), values[~unit] - centre
    out = np.empty(draws)
    block = max(1, _BLOCK // len(values))
    for start in range(0, draws, block):
        size = min(block, draws - start)
        exponentials = rng.standard_exponential((size, len(single)), dtype=np.float32)
        gammas = rng.standard_gamma(counts[~unit], size=(size, len(other)))
        total = exponentials.sum(axis=1, dtype=np.float64) + gammas.sum(axis=1)
        out[start:start + size] = ((exponentials @ single).astype(np.float64) + gammas @ other) / total + centre
    return out


def pseudo_items(score_kind, strength) -> tuple[np.ndarray, np.ndarray]:
    """The prior's pseudo-items (values, weights) of total weight ``strength``: for scores in [0, 1] (binary or
    graded) a third each at the differences -1, 0 and 1 (for binary scores and one run, the symmetric
    Dirichlet(strength / 3) prior on the three outcomes; 1/3 is Kerman's neutral prior), for continuous scores
    all at 0 (the Dirichlet-process prior of the Bayesian signed-rank test).

    >>> pseudo_items("binary", 1.0)[0].tolist(), pseudo_items("continuous", 0.5)[1].tolist()
    ([-1.0, 0.0, 1.0], [0.5])
    """
    if strength == 0:
        return np.array([]), np.array([])
    if score_kind == "continuous":
        return np.array([0.0]), np.array([strength])
    return np.array([-1.0, 0.0, 1.0]), np.full(3, strength / 3)
