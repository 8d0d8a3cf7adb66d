"""The simulation study of Nadeau & Bengio (2003): sizes, pseudo-power, political ratios of the procedures of
:mod:`pp_corr.studies.nadeau_bengio`, and the correlation rho of two split estimates against rho0 = n2 / n.

Problem 1 (regression): X ~ N(0, 1), Y = b X + N(0, 1); A predicts the training mean of Y, B is least squares of Y
on X; squared loss. Its generalization errors are exact (:func:`regression_errors`), so are the sizes. Problem 2
(classification): P(Y = 1) = 1/2, X | Y = y ~ N(m_y, S_y) in two dimensions; A a regression tree on Y
(``DecisionTreeRegressor(min_samples_leaf=5)``) predicting 1 when its output is > 1/2, B least squares of Y on X
with an intercept predicting 1 when > 1/2; 0-1 loss; the true errors are estimated by fresh training sets and
large fresh test samples (with their standard error). The paper's own numbers are lost: :data:`CONFIGURATIONS`
documents ours.

Repetitions are cut into chunks, tasks on Dask (:func:`pp_corr.execution.map_tasks`) keyed (0, configuration,
chunk), the true errors of problem 2 keyed (1, configuration): results do not depend on the number of workers.
"""
from __future__ import annotations

import numpy as np
import xarray as xr

from .._args import as_generator, check_count, check_probability_level, check_real
from ..execution import as_seed_sequence, check_execution, map_tasks
from .nadeau_bengio import PROCEDURES, TRAINED_ON_HALF, procedure_dfs, split_moments, t_statistics
from .resampling import design_splits

# (problem, n, n_test, b): b is the slope of problem 1, chosen so that A and B have equal errors at n1 = n - n2
# (b^2 = 1 / (n1 - 3)) or so that B is clearly better (b = 0.5); problem 2's populations are CLASSIFICATION.
CONFIGURATIONS = (  # rho measured (standard error) in the full study, 4000 repetitions; see docs/theory.md, 8
    {"problem": "regression", "n": 100, "n_test": 10, "b": "equal"},  # rho < rho0: 0.069 (0.004) against 0.1
    {"problem": "regression", "n": 100, "n_test": 25, "b": "equal"},  # rho < rho0: 0.163 (0.007) against 0.25
    {"problem": "regression", "n": 100, "n_test": 10, "b": 0.5},  # rho < rho0, nearly: 0.093 (0.003) against 0.1
    # rho > rho0: 0.2575 (0.0057) against 0.25; 0.2617 (0.0028) in 16,000 repetitions
    {"problem": "regression", "n": 24, "n_test": 6, "b": 2.0},
    {"problem": "classification", "n": 200, "n_test": 20},  # rho < rho0: 0.070 (0.009) against 0.1
    {"problem": "classification", "n": 200, "n_test": 50},  # rho < rho0: 0.143 (0.011) against 0.25
)
CLASSIFICATION = {"means": ((0.0, 0.0), (1.0, 1.0)), "covariances": (((1.0, 0.0), (0.0, 1.0)),
                                                                    ((2.0, 0.8), (0.8, 0.5)))}
DESIGN = {"splits": 15, "halvings": 10, "bootstrap_repetitions": 15}  # J, M, R
REPETITIONS = {"regression": 4000, "classification": 500}  # the full study: problem 2 costs 550 tree fits each
REDUCED = {"repetitions": 40, "splits": 5, "halvings": 3, "bootstrap_repetitions": 5, "truth_training_sets": 100}
CHUNK = {"regression": 100, "classification": 10}  # repetitions per task
TRUTH_TEST_SIZE = 5000  # test instances per training set for problem 2's true errors


def regression_errors(n_train, b, sigma_x=1.0, s=1.0):
    """Exact generalization errors (mu_A, mu_B) of problem 1 for a training size ``n_train``: the training mean,
    (n1+1)/n1 (s^2 + b^2 sigma_x^2), and least squares, (n1+1)/n1 (n1-2)/(n1-3) s^2.

    >>> [round(v, 4) for v in regression_errors(20, 1 / 17 ** 0.5)]
    [1.1118, 1.1118]
    """
    n1 = check_count("n_train", n_train, minimum=4)
    return (n1 + 1) / n1 * (s**2 + b**2 * sigma_x**2), (n1 + 1) / n1 * (n1 - 2) / (n1 - 3) * s**2


def equal_error_slope(n_train):
    """The slope b of problem 1 at which A and B have the same error for ``n_train`` (b^2 = 1 / (n1 - 3)).

    >>> round(equal_error_slope(20), 4)
    0.2425
    """
    return 1 / float(np.sqrt(check_count("n_train", n_train, minimum=4) - 3))


def draw_regression(n, b, rng):
    """A data set of problem 1: x ~ N(0, 1), y = b x + N(0, 1).

    >>> x, y = draw_regression(5, 0.5, np.random.default_rng(0)); x.shape, y.shape
    ((5,), (5,))
    """
    x = rng.standard_normal(n)
    return x, b * x + rng.standard_normal(n)


def regression_losses(x, y, train, test):
    """Per-instance squared losses (L_A, L_B) of problem 1's learners on stacked splits: ``train`` (S, n1) and
    ``test`` (S, n2) index arrays; A predicts the training mean, B is least squares on x (closed forms, equal to
    scikit-learn's DummyRegressor and LinearRegression).

    >>> x, y = np.arange(6.0), 2 * np.arange(6.0)
    >>> la, lb = regression_losses(x, y, np.array([[0, 1, 2, 3]]), np.array([[4, 5]]))
    >>> la.tolist(), lb.round(12).tolist()
    ([[25.0, 49.0]], [[0.0, 0.0]])
    """
    xt, yt = x[train], y[train]
    x_mean, y_mean = xt.mean(axis=1, keepdims=True), yt.mean(axis=1, keepdims=True)
    slope = ((xt - x_mean) * (yt - y_mean)).sum(axis=1, keepdims=True) / ((xt - x_mean) ** 2).sum(axis=1,
                                                                                                   keepdims=True)
    y_test = y[test]
    return (y_test - y_mean) ** 2, (y_test - y_mean - slope * (x[test] - x_mean)) ** 2


def draw_classification(n, rng, populations=CLASSIFICATION):
    """A data set of problem 2: y ~ Bernoulli(1/2), x | y ~ N(means[y], covariances[y]).

    >>> x, y = draw_classification(4, np.random.default_rng(0)); x.shape, sorted(set(y.tolist())) <= [0.0, 1.0]
    ((4, 2), True)
    """
    y = (rng.random(n) < 0.5).astype(float)
    x = np.empty((n, len(populations["means"][0])))
    for label in (0, 1):
        rows = y == label
        x[rows] = rng.multivariate_normal(populations["means"][label], populations["covariances"][label],
                                          rows.sum())
    return x, y


def classification_losses(x, y, train, test, rng):
    """Per-instance 0-1 losses (L_A, L_B) of problem 2's learners on stacked splits (see
    :func:`regression_losses`): A a regression tree (min_samples_leaf=5, seeded from ``rng``), B least squares
    with an intercept, each predicting 1 when its output is > 1/2.

    >>> rng = np.random.default_rng(0); x, y = draw_classification(40, rng)
    >>> la, lb = classification_losses(x, y, np.arange(30)[None], np.arange(30, 40)[None], rng)
    >>> la.shape, bool(((la == 0) | (la == 1)).all())
    ((1, 10), True)
    """
    from sklearn.tree import DecisionTreeRegressor

    losses_a, losses_b = np.empty(test.shape), np.empty(test.shape)
    for k, (tr, te) in enumerate(zip(train, test)):
        tree = DecisionTreeRegressor(min_samples_leaf=5, random_state=int(rng.integers(2**31)))
        tree.fit(x[tr], y[tr])
        losses_a[k] = (tree.predict(x[te]) > 0.5) != y[te]
        design = np.column_stack([np.ones(len(tr)), x[tr]])
        coef = np.linalg.lstsq(design, y[tr], rcond=None)[0]
        losses_b[k] = (coef[0] + x[te] @ coef[1:] > 0.5) != y[te]
    return losses_a, losses_b


def _slope(config):
    return equal_error_slope(config["n"] - config["n_test"]) if config["b"] == "equal" else float(config["b"])


def _split_differences(config, x, y, plan, rng):
    """Mean L_A - L_B and the variance of the per-instance differences on every split of ``plan``."""
    design = np.asarray(plan.design)
    mean, var = np.empty(len(plan)), np.empty(len(plan))
    for name in dict.fromkeys(plan.design):
        rows = np.flatnonzero(design == name)
        train = np.stack([plan.train[i] for i in rows])
        test = np.stack([plan.test[i] for i in rows])
        if config["problem"] == "regression":
            loss_a, loss_b = regression_losses(x, y, train, test)
        else:
            loss_a, loss_b = classification_losses(x, y, train, test, rng)
        diff = loss_a - loss_b
        mean[rows], var[rows] = diff.mean(axis=1), diff.var(axis=1, ddof=1)
    return mean, var


def one_repetition(config, splits, halvings, bootstrap_repetitions, rng):
    """Estimates and variances of every procedure on one simulated data set of ``config``.

    >>> est, var = one_repetition(CONFIGURATIONS[0], 3, 2, 2, np.random.default_rng(0))
    >>> est.shape, var.shape
    ((9,), (9,))
    """
    n, n_test = config["n"], config["n_test"]
    x, y = (draw_regression(n, _slope(config), rng) if config["problem"] == "regression"
            else draw_classification(n, rng))
    common = {"n_test": n_test, "splits": splits, "random_seed": rng}
    plan = (design_splits("subsampling", n, **common) + design_splits("5x2", n, random_seed=rng)
            + design_splits("half-splits", n, halvings=halvings, **common)
            + design_splits("pseudo-bootstrap", n, repetitions=bootstrap_repetitions, **common))
    mean, var = _split_differences(config, x, y, plan, rng)
    est, variance, _ = split_moments(mean, var, np.asarray(plan.design), plan.group, plan.part,
                                     [len(t) for t in plan.train], [len(t) for t in plan.test])
    return est, variance


def _chunk(config, splits, halvings, bootstrap_repetitions, size, seed):
    rng = np.random.default_rng(seed)
    results = [one_repetition(config, splits, halvings, bootstrap_repetitions, rng) for _ in range(size)]
    return np.array([r[0] for r in results]), np.array([r[1] for r in results])


def classification_truth(n_train, training_sets, rng, test_size=TRUTH_TEST_SIZE):
    """Problem 2's mu = E[L_A - L_B] for a training size ``n_train``, and its standard error: the mean over
    ``training_sets`` fresh training sets of the error difference on a fresh test sample of ``test_size``.

    >>> mu, se = classification_truth(50, 20, np.random.default_rng(0), test_size=500)
    >>> bool(se > 0 and abs(mu) < 0.5)
    True
    """
    values = np.empty(check_count("training_sets", training_sets, minimum=2))
    for k in range(len(values)):
        x, y = draw_classification(n_train + test_size, rng)
        loss_a, loss_b = classification_losses(x, y, np.arange(n_train)[None], np.arange(n_train, len(y))[None], rng)
        values[k] = (loss_a - loss_b).mean()
    return values.mean(), values.std(ddof=1) / np.sqrt(len(values))


def _truth(config, training_sets, seed):
    """mu and its standard error for training on n1 = n - n2 and on n/2 (the 5x2 designs)."""
    rng = np.random.default_rng(seed)
    n1, half = config["n"] - config["n_test"], config["n"] // 2
    if config["problem"] == "regression":
        return [(np.subtract(*regression_errors(m, _slope(config))), 0.0) for m in (n1, half)]
    return [classification_truth(m, training_sets, rng) for m in (n1, half)]


def _label(config):
    b = "" if config["problem"] == "classification" else f", b = {config['b']}"
    return f"{config['problem']}, n = {config['n']}, n2 = {config['n_test']}{b}"


def nadeau_bengio_study(*, repetitions=None, configurations=CONFIGURATIONS, splits=15, halvings=10,
                        bootstrap_repetitions=15, truth_training_sets=1000, random_seed=None, scheduler=None,
                        workers=None, progressbar=True) -> xr.Dataset:
    """The simulation study: ``repetitions`` simulated data sets per configuration (an int, or a mapping
    ``{problem: int}``; default :data:`REPETITIONS`), configurations as in :data:`CONFIGURATIONS`, each data set
    analysed by every procedure with J = ``splits``, M = ``halvings``, R = ``bootstrap_repetitions``; problem 2's
    true errors from ``truth_training_sets`` training sets. Runs on Dask (``scheduler`` an address or Client, else
    a local cluster of ``workers`` processes; scripts need the ``if __name__ == "__main__":`` guard);
    ``random_seed`` an int (None: fresh entropy, kept in attrs); ``progressbar`` a bar on stderr.

    Returns dims (config, repetition, procedure): ``estimate`` and ``variance`` (NaN beyond a configuration's
    repetitions), with per configuration ``target`` (the true mu each procedure estimates: training on n1, or on
    n/2 for the 5x2 designs) and ``target_se`` (0 where exact), ``n``, ``n_test``, ``rho0`` = n2 / n,
    ``repetitions``. :func:`study_summary` and :func:`pseudo_power` read it; ``to_netcdf`` saves it.

    >>> res = nadeau_bengio_study(repetitions=3, configurations=CONFIGURATIONS[:1], splits=3, halvings=2,
    ...                           bootstrap_repetitions=2, random_seed=0, workers=1, progressbar=False)
    >>> dict(res.estimate.sizes)
    {'config': 1, 'repetition': 3, 'procedure': 9}
    """
    configurations = [_check_configuration(c) for c in configurations]
    if not configurations:
        raise ValueError("configurations is empty")
    counts = _repetitions(repetitions, configurations)
    splits, halvings = check_count("splits", splits, minimum=2), check_count("halvings", halvings)
    bootstrap_repetitions = check_count("bootstrap_repetitions", bootstrap_repetitions, minimum=2)
    truth_training_sets = check_count("truth_training_sets", truth_training_sets, minimum=2)
    scheduler, workers = check_execution(scheduler, workers)
    seed = as_seed_sequence(random_seed)
    tasks, offsets = [], {}
    for c, (config, count) in enumerate(zip(configurations, counts)):
        size = CHUNK[config["problem"]]
        for k, start in enumerate(range(0, count, size)):
            offsets[(0, c, k)] = start
            tasks.append(((0, c, k), (_chunk, config, splits, halvings, bootstrap_repetitions,
                                      min(size, count - start))))
        tasks.append(((1, c), (_truth, config, truth_training_sets)))
    shape = (len(configurations), max(counts), len(PROCEDURES))
    estimate, variance = np.full(shape, np.nan), np.full(shape, np.nan)
    target, target_se = np.empty(shape[::2]), np.empty(shape[::2])
    half = np.isin(PROCEDURES, TRAINED_ON_HALF)
    for key, result in map_tasks(_call, tasks, random_seed=seed, scheduler=scheduler, workers=workers,
                                 progressbar=progressbar, desc="Nadeau-Bengio study"):
        if key[0] == 0:
            rows = slice(offsets[key], offsets[key] + len(result[0]))
            estimate[key[1], rows], variance[key[1], rows] = result
        else:
            (mu1, se1), (mu_half, se_half) = result
            target[key[1]], target_se[key[1]] = np.where(half, mu_half, mu1), np.where(half, se_half, se1)
    return xr.Dataset(
        {"estimate": (("config", "repetition", "procedure"), estimate),
         "variance": (("config", "repetition", "procedure"), variance),
         "target": (("config", "procedure"), target), "target_se": (("config", "procedure"), target_se),
         "n": ("config", [c["n"] for c in configurations]),
         "n_test": ("config", [c["n_test"] for c in configurations]),
         "rho0": ("config", [c["n_test"] / c["n"] for c in configurations]),
         "repetitions": ("config", counts), "problem": ("config", [c["problem"] for c in configurations])},
        coords={"config": [_label(c) for c in configurations], "repetition": np.arange(max(counts)),
                "procedure": list(PROCEDURES)},
        attrs={"study": "Nadeau & Bengio (2003)", "splits": splits, "halvings": halvings,
               "bootstrap_repetitions": bootstrap_repetitions, "truth_training_sets": truth_training_sets,
               "random_seed": str(seed.entropy)})


def _repetitions(repetitions, configurations):
    """The number of repetitions of each configuration, from an int or a ``{problem: int}`` mapping."""
    repetitions = REPETITIONS if repetitions is None else repetitions
    if isinstance(repetitions, dict):
        missing = {c["problem"] for c in configurations} - set(repetitions)
        if missing:
            raise ValueError(f"repetitions has no count for the problem(s) {sorted(missing)}")
        return [check_count("repetitions", repetitions[c["problem"]], minimum=2) for c in configurations]
    return [check_count("repetitions", repetitions, minimum=2)] * len(configurations)


def _call(fn, *args):
    """Run ``fn(*args)``: one task function for the two kinds of tasks (the seed is the last argument)."""
    return fn(*args)


def _check_configuration(config):
    if not isinstance(config, dict) or config.get("problem") not in ("regression", "classification"):
        raise ValueError(f"each configuration must be a dict with problem 'regression' or 'classification', got "
                         f"{config!r}")
    n, n_test = check_count("n", config.get("n"), minimum=8), check_count("n_test", config.get("n_test"))
    if n % 2 or n_test > n // 2 - 4:
        raise ValueError(f"n must be even and n_test at most n/2 - 4 (training inside a half), got n = {n}, "
                         f"n_test = {n_test}")
    if config["problem"] == "regression" and config.get("b") != "equal":
        check_real("b", config.get("b"))
    return config


def _rho(estimate, variance, splits):
    """The correlation of two split estimates mu_hat_j from the J-split means (one-way analysis of variance):
    between-repetition variance B of the means and within variance W = J x variance of the resampled t,
    sigma^2 rho = B - W / J, sigma^2 (1 - rho) = W."""
    between = estimate.var(ddof=1)
    within = (splits * variance).mean()
    return (between - within / splits) / (between - within / splits + within)


def _political_ratio(estimate, variance):
    return estimate.var(axis=0, ddof=1) / variance.mean(axis=0)


def _with_se(statistic, arrays, rng, resamples=200):
    """``statistic(*arrays)`` over the repetitions (axis 0) and its standard error by resampling them."""
    n = len(arrays[0])
    draws = [statistic(*(a[rows] for a in arrays)) for rows in rng.integers(0, n, (resamples, n))]
    return statistic(*arrays), np.std(draws, axis=0, ddof=1)


def study_summary(results: xr.Dataset, alpha=0.05, random_seed=0) -> xr.Dataset:
    """Per configuration and procedure: ``size`` (the two-sided rejection rate at level ``alpha`` of H0: mu =
    the true mu) and its standard error ``size_se``; the ``political_ratio`` Var(mu_hat) / E[sigma_hat^2]
    (> 1 liberal, < 1 conservative) with ``political_ratio_se``; per configuration ``rho`` (the correlation of
    two split estimates) and ``rho_se`` against ``rho0`` = n2 / n. Standard errors of ratios by resampling
    repetitions (``random_seed``).

    >>> res = nadeau_bengio_study(repetitions=5, configurations=CONFIGURATIONS[:1], splits=3, halvings=2,
    ...                           bootstrap_repetitions=2, random_seed=0, workers=1, progressbar=False)
    >>> sorted(study_summary(res).data_vars)[:3]
    ['political_ratio', 'political_ratio_se', 'repetitions']
    """
    check_probability_level("alpha", alpha)
    valid = results.estimate.notnull()
    rejected = (_pvalues(results, results.target) < alpha).where(valid)
    size, count = rejected.mean("repetition"), valid.sum("repetition")
    rng, splits = as_generator(random_seed), results.attrs["splits"]
    j = PROCEDURES.index("resampled_t")
    ratios, rhos = [], []
    for c in range(results.sizes["config"]):
        rows = valid.isel(config=c, procedure=0).values
        est, var = (results[v].isel(config=c).values[rows] for v in ("estimate", "variance"))
        ratios.append(_with_se(_political_ratio, (est, var), rng))
        rhos.append(_with_se(lambda e, v: _rho(e, v, splits), (est[:, j], var[:, j]), rng))
    dims = ("config", "procedure")
    return xr.Dataset(
        {"size": size, "size_se": np.sqrt(size * (1 - size) / count),
         "political_ratio": (dims, np.array([r[0] for r in ratios])),
         "political_ratio_se": (dims, np.array([r[1] for r in ratios])),
         "rho": ("config", np.array([r[0] for r in rhos])), "rho_se": ("config", np.array([r[1] for r in rhos])),
         "rho0": results.rho0, "target": results.target, "target_se": results.target_se,
         "repetitions": results.repetitions},
        attrs={**results.attrs, "alpha": alpha})


def _pvalues(results, mu0):
    """Two-sided p-values of every procedure and repetition against ``mu0`` (broadcast by dimension names)."""
    df = xr.DataArray(procedure_dfs(results.attrs["splits"], results.attrs["bootstrap_repetitions"]),
                      dims="procedure")
    estimate, variance, df, mu0 = xr.broadcast(results.estimate, results.variance, df, mu0)
    p = t_statistics(estimate.values, variance.values, df.values, mu0.values)[1]
    return estimate.copy(data=p)


def pseudo_power(results: xr.Dataset, steps=np.linspace(-4, 4, 33), alpha=0.05) -> xr.Dataset:
    """Pseudo-power curves: the two-sided rejection rate of H0: mu = mu0 as mu0 = true mu + step x sd moves away
    from the truth (sd: the simulated standard deviation of the J-split mean, one per configuration; step 0 is
    the size), with its standard error. Dims (config, procedure, step); ``delta`` = step x sd.

    >>> res = nadeau_bengio_study(repetitions=5, configurations=CONFIGURATIONS[:1], splits=3, halvings=2,
    ...                           bootstrap_repetitions=2, random_seed=0, workers=1, progressbar=False)
    >>> dict(pseudo_power(res, steps=[0, 1]).rate.sizes)
    {'config': 1, 'procedure': 9, 'step': 2}
    """
    check_probability_level("alpha", alpha)
    steps = xr.DataArray(np.asarray(steps, dtype=float), dims="step")
    steps = steps.assign_coords(step=steps.values)
    sd = results.estimate.sel(procedure="resampled_t").std("repetition", ddof=1)
    valid = results.estimate.notnull()
    rate = (_pvalues(results, results.target + steps * sd) < alpha).where(valid).mean("repetition")
    count = valid.sum("repetition")
    return xr.Dataset({"rate": rate, "se": np.sqrt(rate * (1 - rate) / count), "delta": steps * sd},
                      attrs={**results.attrs, "alpha": alpha})
