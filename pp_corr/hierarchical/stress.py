"""Stress benchmarks for the hierarchical model: pairs of near-identical algorithms with exact ties.

Real benchmarks often compare algorithms that make the same prediction on most test instances: many fold
differences are exactly zero, some data sets have zero variance, the data sets' sds span orders of magnitude
and a few data sets lie far out. :func:`stress_scores` simulates such benchmarks instance by instance.

The generative process, for each of q data sets i (the parameters are those of a case of STRESS_CASES):

1. a size N_i = n_test_i * folds (a ``ragged`` design adds 1..folds-1 instances, so fold sizes differ by one),
   A's error rate p_A (1 - accuracy uniform in ``accuracy_a``) and a churn e_i: the share of instances on which
   B swaps correctness with A in both directions, beyond the net gain. n_test_i and e_i are log-uniform in
   ``n_test`` and ``churn``, stratified (one value in each of q equal slices of the log range), so that every
   benchmark spans its ranges;
2. the true difference delta_i = delta0 + sigma0 * z_i, z_i standard normal or Student-t with ``nu`` degrees of
   freedom, clipped to [-0.5, 0.5]; ``n_outliers`` data sets get delta0 +- ``outlier_shift`` instead, and on
   ``n_identical`` data sets B makes exactly A's predictions (delta_i = 0, e_i = 0: zero variance);
3. each instance is, independently: B gains (A wrong, B right) with probability g = (|delta_i| + delta_i + e_i)/2,
   B loses (A right, B wrong) with l = (|delta_i| - delta_i + e_i)/2, both wrong (shared error) with p_A - g,
   both right otherwise (p_A is moved into [g, 1 - l] where needed), so E[(G - L)/N_i] = g - l = delta_i;
4. each run reshuffles the N_i instances into ``folds`` test folds (``numpy.array_split`` sizes); the instance
   types of a fold are then a multivariate hypergeometric draw (:func:`pp_corr.studies.bayes_net.split_counts`),
   which is the same in distribution as shuffling the instances themselves. A score is the share of the fold's test
   instances classified correctly, so a fold where B gains as often as it loses is an exact tie.
"""
from __future__ import annotations

import zlib
from collections.abc import Mapping

import numpy as np
import pandas as pd
import xarray as xr

from .._args import check_count, check_flag, check_real
from ..data.scores import load_scores
from ..studies.bayes_net import fold_sizes, split_counts

_NEAR = {"n_datasets": 50, "folds": 10, "runs": 10, "ragged": False, "n_test": (10, 500), "accuracy_a": (0.6, 0.95),
         "churn": (0.008, 0.09), "population": "normal", "delta0": 0.002, "sigma0": 0.005, "nu": 30.0,
         "n_identical": 2, "n_outliers": 0, "outlier_shift": 0.0, "zero_share": (0.28, 0.46)}
STRESS_CASES = {
    "near_identical": {**_NEAR,
                       "about": "near-identical pair, 10 x 10-fold CV: ~37% exact ties, 2 zero-variance data sets"},
    "near_identical_10x1": {**_NEAR, "runs": 1,
                            "about": "near-identical pair, one run of 10-fold CV: sds from 10 scores"},
    "near_identical_5x2": {**_NEAR, "folds": 5, "runs": 2, "n_test": (20, 1000), "churn": (0.003, 0.05),
                           "about": "near-identical pair, 5 x 2 CV: 10 large folds per data set, rho = 0.2"},
    "ragged": {**_NEAR, "ragged": True, "about": "near-identical pair, fold sizes differing by one (N % folds != 0)"},
    "tied_population": {**_NEAR, "delta0": 0.0, "sigma0": 1e-5, "n_identical": 3, "churn": (0.01, 0.1),
                        "about": "sigma0 = 1e-5: the data sets are practically tied (sigma0 at its prior's lower end)"},
    "zero_variance_20": {**_NEAR, "n_datasets": 20, "n_identical": 5, "zero_share": (0.4, 0.7),
                         "about": "20 data sets, 5 of them with zero variance (B identical to A)"},
    "heavy_tailed": {**_NEAR, "churn": (0.006, 0.08), "population": "t", "nu": 2.0, "n_outliers": 3,
                     "outlier_shift": 0.08,
                     "about": "Student-t (nu = 2) population with 3 data sets 0.08 away (16 sigma0)"},
    "many_datasets": {**_NEAR, "n_datasets": 200, "runs": 1, "n_identical": 4,
                      "about": "200 data sets, one run of 10-fold CV each: the largest model"},
    "tiny_test_folds": {**_NEAR, "n_test": (10, 30), "churn": (0.005, 0.1), "zero_share": (0.5, 0.8),
                        "about": "10-30 test instances per fold: ~65% exact ties, a coarse grid of scores"},
    "control": {**_NEAR, "churn": (0.05, 0.2), "delta0": 0.05, "sigma0": 0.02, "n_identical": 0, "zero_share": None,
                "about": "control: a clearly better B (delta0 = 0.05), few ties, no zero variance"},
}
PARAMETERS = tuple(_NEAR) + ("about",)
POPULATIONS = ("normal", "t")


def stress_cases() -> dict[str, str]:
    """The named cases of STRESS_CASES, each with a one-line description of what it stresses.

    >>> cases = stress_cases()
    >>> "control" in cases and len(cases) == len(STRESS_CASES)
    True
    """
    return {name: params["about"] for name, params in STRESS_CASES.items()}


def stress_scores(case, *, seed) -> xr.Dataset:
    """A simulated benchmark of algorithms "A" and "B" as :func:`pp_corr.load_scores` returns it.

    ``case`` is a name of STRESS_CASES or a mapping overriding some of "near_identical"'s parameters; ``seed``
    an int >= 0. The random stream is ``default_rng(SeedSequence(seed, spawn_key=(crc32(name),)))``, so
    cases are independent. Besides ``score`` and ``rho``, the Dataset holds the truth per data set: ``delta``
    (delta_i), ``n_instances``, ``accuracy_a``, ``gain`` and ``loss`` (g and l), ``is_identical`` and ``is_outlier``;
    its attrs hold the case's parameters and the seed.

    >>> ds = stress_scores("near_identical", seed=0)
    >>> dict(ds.score.sizes), ds.attrs["case"]
    ({'dataset': 50, 'algorithm': 2, 'run': 10, 'fold': 10}, 'near_identical')
    """
    name, params = _case(case)
    seed = check_count("seed", seed, minimum=0)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(zlib.crc32(name.encode()),)))
    truth = _draw_datasets(params, rng)
    frame = _cross_validate(truth, params["folds"], params["runs"], rng)
    attrs = {key: list(value) if isinstance(value, tuple) else int(value) if isinstance(value, bool) else value
             for key, value in params.items() if key != "zero_share"}  # netCDF-friendly attrs
    return load_scores(frame).assign({key: ("dataset", value) for key, value in truth.items()}).assign_attrs(
        {**attrs, "case": name, "seed": seed})


def _draw_datasets(params, rng) -> dict:
    """Steps 1-3 of the module docstring: each data set's size, delta_i and instance-type probabilities."""
    q, folds = params["n_datasets"], params["folds"]
    n_test = np.rint(_log_spread(rng, params["n_test"], q)).astype(np.int64)
    n = n_test * folds + (rng.integers(1, folds, q) if params["ragged"] else 0)
    p_a = 1 - rng.uniform(*params["accuracy_a"], q)
    churn = _log_spread(rng, params["churn"], q)
    z = rng.standard_t(params["nu"], q) if params["population"] == "t" else rng.standard_normal(q)
    delta = np.clip(params["delta0"] + params["sigma0"] * z, -0.5, 0.5)
    special = rng.permutation(q)[:params["n_identical"] + params["n_outliers"]]
    identical, outlier = np.zeros(q, bool), np.zeros(q, bool)
    identical[special[:params["n_identical"]]], outlier[special[params["n_identical"]:]] = True, True
    delta[outlier] = np.clip(params["delta0"] + params["outlier_shift"] * rng.choice([-1, 1], outlier.sum()),
                             -0.5, 0.5)
    delta[identical], churn[identical] = 0.0, 0.0
    gain, loss = (np.abs(delta) + delta + churn) / 2, (np.abs(delta) - delta + churn) / 2
    p_a = np.clip(p_a, gain, 1 - loss)
    return {"delta": delta, "n_instances": n, "accuracy_a": 1 - p_a, "gain": gain, "loss": loss,
            "is_identical": identical, "is_outlier": outlier}


def _cross_validate(truth, folds, runs, rng) -> pd.DataFrame:
    """Step 4: the instances of each data set, split into folds anew in each run; tidy per-fold accuracies."""
    n, gain, loss, p_a = truth["n_instances"], truth["gain"], truth["loss"], 1 - truth["accuracy_a"]
    q = len(n)
    # instance types: both right, B gains, B loses, both wrong (the clip only removes rounding below 0)
    probs = np.clip(np.stack([1 - p_a - loss, gain, loss, p_a - gain], axis=1), 0, None)
    counts = rng.multinomial(n, probs / probs.sum(axis=1, keepdims=True))
    sizes = np.broadcast_to(fold_sizes(n, folds)[:, None, :], (q, runs, folds))
    test = split_counts(np.broadcast_to(counts[:, None, :], (q, runs, 4)), sizes, rng)
    correct = {"A": test[..., 0] + test[..., 2], "B": test[..., 0] + test[..., 1]}
    names = [f"S{i + 1:03d}" for i in range(q)]
    run, fold = np.meshgrid(np.arange(1, runs + 1), np.arange(1, folds + 1), indexing="ij")
    return pd.concat([pd.DataFrame({
        "dataset": np.repeat(names, runs * folds), "algorithm": algorithm, "run": np.tile(run.ravel(), q),
        "fold": np.tile(fold.ravel(), q), "score": (hits / sizes).ravel(), "n_test": sizes.ravel(),
        "n_train": (n[:, None, None] - sizes).ravel()}) for algorithm, hits in correct.items()], ignore_index=True)


def _log_spread(rng, bounds, q) -> np.ndarray:
    """q values log-uniform on ``bounds``, one in each of q equal slices of the log range, in random order."""
    lo, hi = np.log(bounds)
    return np.exp(lo + (hi - lo) * (rng.permutation(q) + rng.random(q)) / q)


def _case(case) -> tuple[str, dict]:
    """The case's name and checked parameters."""
    if isinstance(case, str):
        if case not in STRESS_CASES:
            raise ValueError(f"case must be one of {list(STRESS_CASES)} or a mapping of parameters, got {case!r}")
        name, params = case, dict(STRESS_CASES[case])
    elif isinstance(case, Mapping):
        unknown = sorted(map(str, set(case) - set(PARAMETERS)))
        if unknown:
            raise ValueError(f"case has unknown parameter(s) {unknown}; the parameters are {list(PARAMETERS)}")
        name, params = "custom", {**STRESS_CASES["near_identical"], "about": "custom", **case}
    else:
        raise TypeError(f"case must be a case name or a mapping of parameters, got {type(case).__name__}")
    params["n_datasets"] = check_count("n_datasets", params["n_datasets"], minimum=2)
    params["folds"] = check_count("folds", params["folds"], minimum=2)
    params["runs"] = check_count("runs", params["runs"])
    for key, low, high in (("n_test", 1, np.inf), ("accuracy_a", 0, 1), ("churn", 0, 0.5)):
        bounds = params[key]
        if isinstance(bounds, (str, bytes)) or np.shape(bounds) != (2,):
            raise ValueError(f"{key} must be a range (lo, hi), got {bounds!r}")
        lo, hi = (check_real(f"{key} bound", v, low=low, high=high, low_open=key != "n_test") for v in bounds)
        if lo > hi:
            raise ValueError(f"{key} must be a range (lo, hi) with lo <= hi, got {bounds!r}")
    check_flag("ragged", params["ragged"])
    if params["population"] not in POPULATIONS:
        raise ValueError(f"population must be one of {POPULATIONS}, got {params['population']!r}")
    check_real("delta0", params["delta0"], low=-0.5, high=0.5)
    check_real("outlier_shift", params["outlier_shift"], low=0, high=1)
    check_real("sigma0", params["sigma0"], low=0)
    check_real("nu", params["nu"], low=0, low_open=True)
    for key in ("n_identical", "n_outliers"):
        params[key] = check_count(key, params[key], minimum=0)
    if params["n_identical"] + params["n_outliers"] > params["n_datasets"]:
        raise ValueError(f"n_identical + n_outliers must be <= n_datasets = {params['n_datasets']}, got "
                         f"{params['n_identical']} + {params['n_outliers']}")
    return name, params
