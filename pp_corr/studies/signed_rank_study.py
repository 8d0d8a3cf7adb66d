"""The loss simulation of Benavoli et al. 2014 (the Bayesian signed-rank paper, section 4): the one-sided Wilcoxon
signed-rank test against the Bayesian signed-rank test on a Dirichlet process with s -> 0 (DP) and on the imprecise
DP (IDP), in expected loss over a grid of true differences, and how often the IDP is indeterminate.

q data sets, per data set (X_i, Y_i) ~ N((0, Delta), sigma^2 [[1, r], [r, 1]]) and z_i = Y_i - X_i; H1 is "Y
better" (Delta > 0). A test that decides H1 when H0 holds costs l1, one that decides H0 when H1 holds costs l0. The
Bayesian tests decide H1 when the posterior probability of theta > 1/2 passes t = l1 / (l0 + l1); the IDP decides
H1 when its lower probability passes t, H0 when its upper probability is below t, and is indeterminate otherwise;
the Wilcoxon test decides H1 when p < alpha, whatever the losses.

Both Bayesian tests come from one set of Dirichlet draws (w0, w) ~ Dir(s, 1, ..., 1) per run: w / (1 - w0) is
Dir(1, ..., 1), independent of w0, so the DP's g = w'Aw / (1 - w0)^2 lies between the IDP's lower g = w'Aw and
upper g = w0 (2 - w0) + w'Aw in every draw, and lower <= DP <= upper holds in every run, not only on average.
Each run draws its noise and its weights once for the whole Delta grid (common random numbers: the loss curves are
smooth in Delta and the areas under them have a run-to-run standard error). Runs are cut into chunks, tasks on
Dask (:mod:`pp_corr.execution`) keyed by (correlation, chunk), so results do not depend on the number of workers.
"""
from __future__ import annotations

import numpy as np
import xarray as xr
from scipy import stats

from .._args import check_count, check_probability_level, check_real
from ..execution import as_seed_sequence, check_execution, map_tasks
from ..pairwise.rank_tests import IDP_STRENGTH, PairSumRegions

DELTAS = np.round(np.arange(-0.07, 0.0701, 0.01), 2)
CORRELATIONS = (0.0, 0.95)
LOSS_PAIRS = ((1, 1), (1, 2), (1, 4), (1, 9), (1, 19))
STATISTICS = ("wilcoxon_pvalue", "dp_probability", "idp_lower", "idp_upper")
TESTS = ("wilcoxon", "dp", "idp")
TEST_NAMES = {"wilcoxon": "Wilcoxon signed-rank", "dp": "DP, s -> 0", "idp": "imprecise DP"}
CHUNK = 25  # runs per task: their Dirichlet draws (25 x 5000 x 31 numbers) take 31 MB


def idp_weights(rng, draws, n_datasets, size=()):
    """Dirichlet draws (w0, w_1..w_q) ~ Dir(s, 1, ..., 1), s the IDP's prior strength, shape ``size + (draws,
    q + 1)``: w0 from a Gamma(s), the others from exponentials (Gamma(1), several times faster in numpy), normalised.
    Each weight's draws lie side by side (the last two axes are a transposed view), as the signed-rank kernel reads
    them (:func:`pp_corr.pairwise.rank_tests.dirichlet`).

    >>> w = idp_weights(np.random.default_rng(0), 4, 3, size=(2,))
    >>> w.shape, bool(np.allclose(w.sum(axis=-1), 1))
    ((2, 4, 4), True)
    """
    shape = (*(int(n) for n in np.atleast_1d(size)),)
    gammas = np.concatenate([rng.standard_gamma(IDP_STRENGTH, (*shape, 1, draws)),
                             rng.standard_exponential((*shape, n_datasets, draws))], axis=-2)
    return np.swapaxes(gammas / gammas.sum(axis=-2, keepdims=True), -1, -2)


def idp_probabilities(z, weights):
    """For each row of ``z`` (m, q), with the Dirichlet draws ``weights`` (draws, q + 1) of :func:`idp_weights`:
    the DP's (s -> 0) P(theta > 1/2) and the IDP's lower and upper P(theta > 1/2), each the share of draws whose g
    passes 1/2, as three arrays (m,). g as in :func:`pp_corr.imprecise_signed_rank` (the same weights give its
    lower and upper probabilities exactly); the DP's g is the lower g / (1 - w0)^2.

    >>> w = idp_weights(np.random.default_rng(0), 2000, 3)
    >>> dp, lower, upper = idp_probabilities(np.array([[0.1, 0.2, -0.05], [-0.1, -0.2, 0.05]]), w)
    >>> bool((lower <= dp).all() and (dp <= upper).all() and dp[0] > dp[1])
    True
    """
    z, weights = np.atleast_2d(np.asarray(z, dtype=float)), np.asarray(weights, dtype=float)
    q = z.shape[1]
    if weights.ndim != 2 or weights.shape[1] != q + 1:
        raise ValueError(f"weights must have shape (draws, {q + 1}) for z of {q} data sets, got {weights.shape}")
    w0 = weights[:, 0]
    data_share, prior_mass = (1 - w0) ** 2, w0 * (2 - w0)
    out = np.empty((3, len(z)))
    for row, regions in enumerate(PairSumRegions.of_rows(z, 0.0, 0.0, columns=np.arange(1, q + 1))):
        low = regions.masses(weights)[:, 2]
        out[:, row] = (np.mean(low / data_share > 0.5), np.mean(low > 0.5), np.mean(prior_mass + low > 0.5))
    return out[0], out[1], out[2]


def signed_rank_chunk(deltas, n_datasets, sigma, correlation, draws, runs, seed):
    """The statistics of ``runs`` runs at every Delta, an array (statistic, run, delta), and their noise (run, q):
    one task of :func:`signed_rank_study`.

    >>> out, noise = signed_rank_chunk([0.0, 0.1], 10, 0.1, 0.0, 200, 3, 0)
    >>> out.shape, noise.shape  # (statistics, runs, deltas), (runs, data sets)
    ((4, 3, 2), (3, 10))
    """
    rng = np.random.default_rng(seed)
    e = rng.standard_normal((2, runs, n_datasets))
    noise = sigma * ((correlation - 1) * e[0] + np.sqrt(1 - correlation**2) * e[1])  # Y - X at Delta = 0
    z = noise[:, None, :] + np.asarray(deltas)[None, :, None]
    weights = idp_weights(rng, draws, n_datasets, size=runs)
    out = np.empty((len(STATISTICS), runs, len(deltas)))
    out[0] = stats.wilcoxon(z, axis=-1, zero_method="zsplit", alternative="greater").pvalue
    for run in range(runs):
        out[1:, run] = idp_probabilities(z[run], weights[run])
    return out, noise


def signed_rank_study(deltas=DELTAS, correlations=CORRELATIONS, *, n_datasets=30, sigma=0.12, runs=1000,
                      draws=5000, scheduler=None, workers=None, random_seed=None, progressbar=True) -> xr.Dataset:
    """The loss simulation: per correlation r and run, ``n_datasets`` pairs (X_i, Y_i) ~ N((0, Delta), sigma^2
    [[1, r], [r, 1]]) at every Delta of ``deltas`` (the same noise shifted), z_i = Y_i - X_i, and the statistics
    of three one-sided tests of "Y better": the Wilcoxon p-value (``scipy.stats.wilcoxon``, exact for q <= 50
    without ties), the DP's P(theta > 1/2) and the IDP's lower and upper P(theta > 1/2) from ``draws`` Dirichlet
    draws (:func:`idp_probabilities`).

    Returns the statistics with dims (correlation, delta, run) and each run's ``noise`` z - Delta (correlation,
    run, dataset), the data of every test (z = noise + Delta); :func:`loss_curves`, :func:`loss_areas` and
    :func:`indeterminate_decisions` turn them into losses. ``scheduler``, ``workers``, ``progressbar`` and
    ``random_seed`` as in :func:`pp_corr.studies.simulation.bayesian_network_study`.

    >>> res = signed_rank_study([0.0, 0.05], [0.0], runs=4, draws=200, workers=1, random_seed=0, progressbar=False)
    >>> res.idp_lower.dims, bool((res.idp_lower <= res.dp_probability).all())
    (('correlation', 'delta', 'run'), True)
    """
    seed = as_seed_sequence(random_seed)
    deltas, correlations = (np.atleast_1d(np.asarray(v, dtype=float)) for v in (deltas, correlations))
    for name, values in (("deltas", deltas), ("correlations", correlations)):
        if values.ndim != 1 or not len(values) or not np.isfinite(values).all():
            raise ValueError(f"{name} must be a non-empty list of finite numbers, got {values}")
    if np.any(np.abs(correlations) >= 1):
        raise ValueError(f"correlations must be in (-1, 1): at 1 the differences are all Delta, got {correlations}")
    n_datasets = check_count("n_datasets", n_datasets, minimum=2)
    sigma = check_real("sigma", sigma, low=0, low_open=True)
    runs, draws = check_count("runs", runs), check_count("draws", draws)
    scheduler, workers = check_execution(scheduler, workers)
    chunks = [min(CHUNK, runs - start) for start in range(0, runs, CHUNK)]
    tasks = [((k, c), (deltas, n_datasets, sigma, float(r), draws, size))
             for k, r in enumerate(correlations) for c, size in enumerate(chunks)]
    values = np.empty((len(STATISTICS), len(correlations), runs, len(deltas)))
    noise = np.empty((len(correlations), runs, n_datasets))
    for (k, c), (result, chunk_noise) in map_tasks(signed_rank_chunk, tasks, random_seed=seed, scheduler=scheduler,
                                                   workers=workers, progressbar=progressbar, desc="signed-rank study"):
        values[:, k, c * CHUNK: c * CHUNK + chunks[c]] = result
        noise[k, c * CHUNK: c * CHUNK + chunks[c]] = chunk_noise
    dims = ("correlation", "run", "delta")
    return xr.Dataset({name: (dims, values[i]) for i, name in enumerate(STATISTICS)}
                      | {"noise": (("correlation", "run", "dataset"), noise)},
                      coords={"correlation": correlations, "run": np.arange(runs), "delta": deltas},
                      attrs={"study": "signed-rank losses (Benavoli et al. 2014)", "n_datasets": n_datasets,
                             "sigma": sigma, "draws": draws, "idp_strength": IDP_STRENGTH,
                             "random_seed": str(seed.entropy)}).transpose("correlation", "delta", "run", ...)


def _loss_pairs(loss_pairs):
    """The loss pairs as a DataArray of thresholds t = l1 / (l0 + l1), dim ``loss_pair`` labelled "(l0, l1)"."""
    pairs = np.asarray(loss_pairs, dtype=float)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or not len(pairs) or not (np.isfinite(pairs) & (pairs > 0)).all():
        raise ValueError(f"loss_pairs must be pairs (l0, l1) of positive numbers, got {loss_pairs!r}")
    labels = [f"({l0:g}, {l1:g})" for l0, l1 in pairs]
    if len(set(labels)) < len(labels):
        raise ValueError(f"loss_pairs repeats a pair: {labels}")
    return xr.DataArray(pairs[:, 1] / pairs.sum(axis=1), dims="loss_pair",
                        coords={"loss_pair": labels, "l0": ("loss_pair", pairs[:, 0]),
                                "l1": ("loss_pair", pairs[:, 1])})


def decisions(results: xr.Dataset, loss_pairs=LOSS_PAIRS, alpha=0.05) -> xr.Dataset:
    """Per run, each test's decision for every loss pair (l0, l1): ``h1`` (test, loss_pair, ...) True when the test
    decides H1 (Y better): Wilcoxon when p < ``alpha``, DP when P(theta > 1/2) > t = l1 / (l0 + l1), IDP when its
    lower probability > t; ``idp_determinate`` (loss_pair, ...) when the IDP decides (lower > t or upper < t); ``loss``
    (test, loss_pair, ...): l1 for H1 decided when Delta <= 0, l0 for H0 decided when Delta > 0, else 0 (NaN for
    indeterminate IDP runs).

    >>> res = xr.Dataset({"wilcoxon_pvalue": ("delta", [0.01, 0.2]), "dp_probability": ("delta", [0.97, 0.6]),
    ...                   "idp_lower": ("delta", [0.96, 0.5]), "idp_upper": ("delta", [0.98, 0.7])},
    ...                  coords={"delta": [0.0, 0.05]})
    >>> decisions(res, [(1, 19)]).loss.sel(loss_pair="(1, 19)").values.tolist()  # rows: Wilcoxon, DP, IDP
    [[19.0, 1.0], [19.0, 1.0], [19.0, 1.0]]
    """
    alpha = check_probability_level("alpha", alpha)
    threshold = _loss_pairs(loss_pairs)
    determinate = (results.idp_lower > threshold) | (results.idp_upper < threshold)
    h1 = xr.concat([(results.wilcoxon_pvalue < alpha).broadcast_like(threshold), results.dp_probability > threshold,
                    results.idp_lower > threshold], dim=xr.DataArray(list(TESTS), dims="test", name="test"))
    holds_h1 = results.delta > 0
    loss = xr.where(holds_h1, threshold.l0 * ~h1, threshold.l1 * h1)
    loss = xr.where((loss.test == "idp") & ~determinate, np.nan, loss)
    return xr.Dataset({"h1": h1, "idp_determinate": determinate, "loss": loss},
                      attrs={**results.attrs, "alpha": alpha})


def _run_mean(values, weights):
    """Per setting, the mean of ``values`` over the runs where ``weights`` is 1 (a ratio of two run sums), and the
    run-level pieces of its linearised error: (mean, count, deviations weighted by 1 / count)."""
    count = weights.sum("run")
    mean = (values.fillna(0) * weights).sum("run") / count.where(count > 0)
    return mean, count, (weights * (values.fillna(0) - mean) / count.where(count > 0))


def _standard_error(deviations, over=()):
    """sqrt(n / (n - 1) sum_runs u_r^2), u_r the per-run deviations of :func:`_run_mean` summed over ``over``."""
    n = deviations.sizes["run"]
    u = deviations.sum(list(over), min_count=1) if over else deviations
    return np.sqrt(n / (n - 1) * (u**2).sum("run", min_count=1))


def loss_curves(results: xr.Dataset, loss_pairs=LOSS_PAIRS, alpha=0.05) -> xr.Dataset:
    """Mean loss per Delta (dims test, loss_pair, correlation, delta), with Monte Carlo standard errors over the runs:
    ``loss`` over all runs (NaN for the IDP, which has no loss when indeterminate), ``determinate_loss`` over the
    runs where the IDP is determinate, ``indeterminate`` the IDP's indeterminate share (loss_pair, correlation, delta);
    each with ``<name>_se``. Decisions as in :func:`decisions`.

    >>> res = signed_rank_study([0.0, 0.05], [0.0], runs=20, draws=200, workers=1, random_seed=0, progressbar=False)
    >>> curves = loss_curves(res)
    >>> curves.loss.dims, float(curves.loss.sel(test="wilcoxon", loss_pair="(1, 1)", delta=0.0).max()) <= 1
    (('test', 'loss_pair', 'correlation', 'delta'), True)
    """
    dec = decisions(results, loss_pairs, alpha)
    everywhere = xr.ones_like(dec.loss)
    loss, _, loss_dev = _run_mean(dec.loss, everywhere.where(dec.test != "idp", 0))
    det_loss, _, det_dev = _run_mean(dec.loss, dec.idp_determinate.astype(float).broadcast_like(dec.loss))
    undecided, _, und_dev = _run_mean((~dec.idp_determinate).astype(float), xr.ones_like(dec.idp_determinate,
                                                                                          dtype=float))
    return xr.Dataset({"loss": loss, "loss_se": _standard_error(loss_dev).where(loss.notnull()),
                       "determinate_loss": det_loss, "determinate_loss_se": _standard_error(det_dev).where(
                           det_loss.notnull()),
                       "indeterminate": undecided, "indeterminate_se": _standard_error(und_dev)},
                      attrs={**dec.attrs, "runs": results.sizes["run"]}).transpose("test", "loss_pair", ...,
                                                                                     "delta")


def _trapezoid_weights(deltas):
    """c_k with sum_k c_k y_k = the trapezoid rule's area under y over the grid ``deltas`` (sorted)."""
    steps = np.diff(deltas)
    return np.concatenate([[0.0], steps / 2]) + np.concatenate([steps / 2, [0.0]])


def loss_areas(results: xr.Dataset, loss_pairs=LOSS_PAIRS, alpha=0.05) -> xr.Dataset:
    """The paper's tables 1 and 2: the area under each test's loss-vs-Delta curve (trapezoid rule over the grid,
    Delta in its own units; divide by the grid's span for the mean loss over it), dims (runs_used, test, loss_pair,
    correlation): ``runs_used="all"`` over every run (NaN for the IDP), ``runs_used="IDP determinate"`` from the
    per-Delta mean losses over the runs where the IDP decides. ``area_se`` its Monte Carlo standard error over the runs
    (linearised for the ratio means of the determinate runs).

    >>> res = signed_rank_study([0.0, 0.05], [0.0], runs=20, draws=200, workers=1, random_seed=0, progressbar=False)
    >>> areas = loss_areas(res, [(1, 19)])
    >>> areas.area.dims, bool(np.isnan(areas.area.sel(runs_used="all", test="idp")).all())
    (('runs_used', 'test', 'loss_pair', 'correlation'), True)
    """
    dec = decisions(results, loss_pairs, alpha)
    if not (np.diff(dec.delta) > 0).all():
        raise ValueError(f"the deltas must increase for the area under the loss curve, got {dec.delta.values}")
    c = xr.DataArray(_trapezoid_weights(dec.delta.values), dims="delta", coords={"delta": dec.delta})
    out = []
    for weights in (xr.ones_like(dec.loss).where(dec.test != "idp", 0),
                    dec.idp_determinate.astype(float).broadcast_like(dec.loss)):
        mean, _, deviations = _run_mean(dec.loss, weights)
        out.append(xr.Dataset({"area": (c * mean).sum("delta", min_count=len(c)),
                               "area_se": _standard_error(c * deviations, over=["delta"])}))
    areas = xr.concat(out, dim=xr.DataArray(["all", "IDP determinate"], dims="runs_used", name="runs_used"))
    areas["area_se"] = areas.area_se.where(areas.area.notnull())
    span = float(dec.delta[-1] - dec.delta[0])
    areas = areas.assign_attrs({**dec.attrs, "runs": results.sizes["run"], "delta_span": span})
    return areas.transpose("runs_used", "test", "loss_pair", ...)


def indeterminate_decisions(results: xr.Dataset, loss_pairs=LOSS_PAIRS, alpha=0.05) -> xr.Dataset:
    """The paper's table 3: over the (run, Delta) cases where the IDP is indeterminate, pooled over the Delta grid,
    the share ``h1`` of H1 decisions of the DP and of the Wilcoxon test (H0 is the rest), dims (test, loss_pair,
    correlation), its standard error ``h1_se`` (runs as clusters) and ``n_indeterminate`` the number of cases.

    >>> res = signed_rank_study([0.0, 0.05], [0.0], runs=20, draws=200, workers=1, random_seed=0, progressbar=False)
    >>> indeterminate_decisions(res).h1.dims
    ('test', 'loss_pair', 'correlation')
    """
    dec = decisions(results, loss_pairs, alpha).sel(test=["dp", "wilcoxon"])
    undecided, h1 = (~dec.idp_determinate).astype(float), dec.h1.astype(float)
    count = undecided.sum(["delta", "run"])
    share = (h1 * undecided).sum(["delta", "run"]) / count.where(count > 0)
    deviations = (undecided * (h1 - share) / count.where(count > 0)).sum("delta")
    return xr.Dataset({"h1": share, "h1_se": _standard_error(deviations).where(share.notnull()),
                       "n_indeterminate": count.astype(int)},
                      attrs={**dec.attrs, "runs": results.sizes["run"]}).transpose("test", "loss_pair", ...)
