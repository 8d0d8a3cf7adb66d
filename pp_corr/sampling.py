"""Running the models: NUTS through PyMC or nutpie, seeded and quiet (:func:`sample`), a model compiled once and
fitted again to new data (:class:`RefittableModel`), the PyTensor settings both compile under, and the convergence
checks every fit goes through (:func:`diagnose`, :class:`ConvergenceWarning`)."""
from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import sys
import threading
import time
import warnings
from pathlib import Path

import arviz as az
import numpy as np
import pymc as pm
import pytensor

from .pairwise.models import with_intraclass_log_likelihood

PROGRESS_MS = 50  # how often nutpie reports its chains' progress (and a fit may stop at a divergence)


class ConvergenceWarning(UserWarning):
    """R-hat, effective sample size or divergences say the MCMC result is not to be trusted."""


def diagnose(idata, var_names, *, max_rhat=1.01, min_ess=400) -> list[str]:
    """The convergence problems of ``idata``: each variable (each data set of a vector one) whose R-hat is
    above ``max_rhat`` or whose bulk ESS is below ``min_ess``, and divergent transitions. Empty: converged.

    >>> import arviz as az
    >>> rng = np.random.default_rng(0)
    >>> idata = az.from_dict({"posterior": {"delta0": rng.normal(size=(4, 500)),
    ...                                     "nu": rng.normal(size=(4, 500)) + np.arange(4)[:, None]},
    ...                       "sample_stats": {"diverging": np.zeros((4, 500), dtype=bool)}})
    >>> diagnose(idata, var_names=["delta0", "nu"])[0][:14]
    'R-hat of nu is'
    """
    problems = []
    rhat = az.rhat(idata, var_names=list(var_names))
    ess = az.ess(idata, var_names=list(var_names))
    for name in var_names:
        for label, values, limit in (("R-hat", rhat[name], f"> {max_rhat}"), ("bulk ESS", ess[name], f"< {min_ess}")):
            failed = values.where(values > max_rhat if label == "R-hat" else values < min_ess)
            cells = failed.to_series().items() if failed.ndim else [("", float(failed))]
            for where, value in cells:  # vector variables: name each failing data set
                if not np.isnan(value):
                    problems.append(f"{label} of {name}{f'[{where}]' if where != '' else ''} is {value:.4g} {limit}")
    divergences = int(idata.sample_stats["diverging"].sum())
    if divergences:
        stopped = " (sampling stopped there)" if idata.sample_stats.attrs.get("stopped_at_divergence") else ""
        problems.append(f"{divergences} divergent transitions{stopped}")
    return problems


def sample(model, *, draws=1000, tune=1000, chains=4, random_seed=None, sampler="pymc", progressbar=False,
           **kwargs):
    """Sample ``model`` with NUTS and return an ArviZ DataTree; quiet and seeded by default.

    ``sampler="nutpie"`` uses nutpie (optional extra) when installed; PyMC's chains run in parallel processes,
    one a core (:func:`parallel_chains`; ``cores`` overrides it), with the draws of one at a time. A fixed
    ``random_seed`` gives the same draws whether or not PyTensor's compilation cache is warm (see
    :func:`compilation_settings`), and the progress bar (``progressbar=True``) is drawn on stderr, so stdout
    carries only results. A model with one intraclass likelihood gets its pointwise log-likelihood
    (:func:`add_log_likelihood`).

    >>> from pp_corr.pairwise.models import correlated_t_model
    >>> model = correlated_t_model(np.random.default_rng(0).normal(0.01, 0.02, 10), folds=10)
    >>> idata = sample(model, draws=200, tune=200, chains=2, random_seed=1)
    >>> idata.posterior["mu"].shape
    (2, 200)
    """
    if sampler not in ("pymc", "nutpie"):
        raise ValueError(f"sampler must be 'pymc' or 'nutpie', got {sampler!r}")
    # PyMC's and nutpie's progress bars write to stdout (a rich Console); send them, and any other chatter of
    # the sampler, to stderr
    to_stderr = contextlib.redirect_stdout(sys.stderr) if progressbar else contextlib.nullcontext()
    if sampler == "pymc" and kwargs.get("cores") is None:  # None: PyMC's own default, half the cores
        kwargs["cores"] = parallel_chains(chains)
    forking = _forking_quietly() if sampler == "pymc" and kwargs["cores"] > 1 else contextlib.nullcontext()
    with model, compilation_settings(), to_stderr, _without_pymc_advice(), forking:
        idata = pm.sample(draws=draws, tune=tune, chains=chains, random_seed=random_seed, nuts_sampler=sampler,
                          progressbar=progressbar, quiet=not progressbar, **kwargs)
    return with_intraclass_log_likelihood(idata, model)


def parallel_chains(chains) -> int:
    """How many of ``chains`` PyMC's sampler runs at once (its ``cores``): one chain per core the process may use.
    PyMC's own default takes half the cores (it assumes hyper-threads): one chain at a time on two cores, where two
    at a time took the joint model of four uci54 classifiers from 123-127 to 67-70 s, the same draws. One at a time
    where the caller already runs in parallel: in a thread other than the main one (a Dask worker's task, a thread of
    the caller's) or in a daemon process (one may not start processes).

    >>> parallel_chains(1)
    1
    """
    if threading.current_thread() is not threading.main_thread() or multiprocessing.current_process().daemon:
        return 1
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(chains, usable))


@contextlib.contextmanager
def _forking_quietly():
    """PyMC starts its chain processes by fork, and Python 3.12 warns (a DeprecationWarning) at every fork from a
    process with threads, which may hold a lock the child then waits for. The threads pp_corr starts are idle then:
    the exact posterior's kernel threads (Numba's pool and a ``ThreadPoolExecutor``) wait for work, holding none; the
    warning is not passed on to the caller, whose ``catch_warnings(record=True)`` would collect one per chain process.
    Chains run in parallel from the main thread only (:func:`parallel_chains`, unless ``cores`` is given), as
    ``catch_warnings`` is not thread-safe."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"This process .* is multi-threaded, use of fork\(\)",
                                category=DeprecationWarning)
        yield


@contextlib.contextmanager
def _without_pymc_advice():
    """PyMC's warnings on its own diagnostics ("increase target_accept or reparameterize") are not printed while
    sampling: :func:`diagnose` says what failed, in the caller's terms, and a user of pp_corr cannot act on PyMC's."""
    logger = logging.getLogger("pymc")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


class RefittableModel:
    """A PyMC model compiled once and fitted again to new values of its data containers (``pm.Data``) of the same
    shapes: each fit sets the values and samples without compiling the log density again. With
    ``sampler="nutpie"`` the model is compiled once (``nutpie.compile_pymc_model``) and each fit takes its data
    through ``with_data``; with ``"pymc"`` the model itself is reused (``pm.set_data``; PyMC compiles its
    function again, from PyTensor's cache; ``compile_kwargs`` go to ``pm.sample``). ``start`` names the free
    variables whose initial values each fit sets (``initvals`` of :meth:`fit`), with their shapes; the rest start as
    PyMC's default.

    A fit gives the draws :func:`sample` gives for the same model built with those values and the same seed.

    >>> rng = np.random.default_rng(0)
    >>> with pm.Model(coords={"obs": range(20)}) as model:
    ...     y = pm.Data("y", rng.normal(0, 1, 20), dims="obs")
    ...     mu = pm.Normal("mu", 0, 10)
    ...     x = pm.Normal("x", mu, 1, observed=y, dims="obs")
    >>> refit = RefittableModel(model, {"mu": ()})
    >>> idata = refit.fit({"y": rng.normal(5, 1, 20)}, initvals={"mu": 5.0}, draws=200, tune=200, chains=2,
    ...                   random_seed=1)
    >>> bool(abs(float(idata.posterior["mu"].mean()) - 5) < 1)
    True
    """

    def __init__(self, model, start=None, *, sampler="pymc", compile_kwargs=None):
        if sampler not in ("pymc", "nutpie"):
            raise ValueError(f"sampler must be 'pymc' or 'nutpie', got {sampler!r}")
        self.model, self.sampler = model, sampler
        self._compile_kwargs = {"compile_kwargs": compile_kwargs} if compile_kwargs else {}
        # the initial values, shared: nutpie bakes its initial-point function in at compilation
        self._start = {name: pytensor.shared(np.zeros(shape), name=f"{name}_start") for name, shape in
                       (start or {}).items()}
        self._compiled = None
        if sampler == "nutpie":
            import nutpie

            with compilation_settings():
                self._compiled = nutpie.compile_pymc_model(model, initial_points=self._start)
            self._shared = {var.name for var in self._compiled.shared_var_keys}

    def fit(self, values, *, coords=None, initvals=None, draws=1000, tune=1000, chains=4, random_seed=None,
            progressbar=False, target_accept=0.8, stop_at_divergence=False):
        """Set the data containers to ``values`` (by name; ``coords`` relabels dimensions of unchanged length),
        start at ``initvals`` and sample as :func:`sample` does; returns the DataTree.

        ``stop_at_divergence`` (nutpie only): stop all chains at the first divergent transition after warm-up and
        return the draws so far (NaN beyond each chain's last; its ``sample_stats`` say ``stopped_at_divergence``)
        - for a fit that a divergence fails anyway, as a retry replaces it (on uci54 j48gr - j48's first fit
        stops after 1.3 s instead of 5.5 s)."""
        with compilation_settings():  # it compiles a function to read the dimensions' lengths
            pm.set_data(values, model=self.model, coords=coords)
        for name, value in (initvals or {}).items():
            self._start[name].set_value(np.asarray(value, dtype=float))
        if self._compiled is None:
            return sample(self.model, draws=draws, tune=tune, chains=chains, random_seed=random_seed,
                          progressbar=progressbar, target_accept=target_accept,
                          initvals={name: start.get_value() for name, start in self._start.items()},
                          **self._compile_kwargs)
        return self._fit_nutpie(values, draws, tune, chains, random_seed, progressbar, target_accept,
                                stop_at_divergence)

    def _fit_nutpie(self, values, draws, tune, chains, random_seed, progressbar, target_accept, stop_at_divergence):
        """nutpie on the compiled model with ``values``, seeded and finished as ``pm.sample`` does it."""
        import nutpie
        from pymc.backends.arviz import patch_nutpie_idata
        from pymc.progress_bar.progress import NutpieProgressBarManager
        from pymc.util import get_random_generator

        compiled = self._compiled.with_data(**{k: v for k, v in values.items() if k in self._shared})
        seed = int(get_random_generator(random_seed).spawn(chains)[0].integers(2**30))  # pm.sample's first
        to_stderr = contextlib.redirect_stdout(sys.stderr) if progressbar else contextlib.nullcontext()
        bar = NutpieProgressBarManager(chains=chains, draws=draws, progressbar=progressbar)  # pm.sample's bar
        diverged = threading.Event()

        def progress(chains_progress):
            bar.update(chains_progress)
            if stop_at_divergence and any(draw >= tune for chain in chains_progress for draw in chain.divergent_draws):
                diverged.set()

        start = time.time()
        with to_stderr, bar:
            run = nutpie.sample(compiled, draws=draws, tune=tune, chains=chains, cores=min(4, os.cpu_count() or 1),
                                seed=seed, save_warmup=False, progress_bar=False, progress_callback=progress,
                                progress_rate=PROGRESS_MS, target_accept=target_accept, blocking=False)
            while not _finished(run) and not diverged.wait(PROGRESS_MS / 1000):
                pass
            stopped = diverged.is_set() and not _finished(run)
            idata = run.abort() if stopped else run.wait()
        if stopped:
            idata["sample_stats"].attrs["stopped_at_divergence"] = 1
        patch_nutpie_idata(idata, self.model, sampling_time=time.time() - start)
        return with_intraclass_log_likelihood(_relabel(idata, self.model.coords), self.model)


def _finished(run) -> bool:
    """Whether nutpie's background sampler ``run`` is done (nutpie 0.16 raises TimeoutError while it is not)."""
    try:
        return bool(run.is_finished)
    except TimeoutError:
        return False


def _relabel(idata, coords):
    """``idata`` with each group's coordinates of ``coords``' dimensions set to ``coords``' values."""
    for group in idata.children:
        dataset = idata[group].to_dataset()
        shared = {dim: list(labels) for dim, labels in coords.items() if dim in dataset.dims}
        if shared:
            idata[group] = dataset.assign_coords(shared)
    return idata


def kept(cache: dict, key, build, size):
    """``cache[key]``, made by ``build()`` the first time it is asked for: compiled models and functions kept for
    the last ``size`` keys, the least recently used dropped.

    >>> cache = {}
    >>> [kept(cache, key, lambda key=key: key * 10, 2) for key in (1, 2, 1, 3)], list(cache)
    ([10, 20, 10, 30], [1, 3])
    """
    if key not in cache:
        cache[key] = build()
        while len(cache) > size:
            cache.pop(next(iter(cache)))
    cache[key] = cache.pop(key)  # the most recently used last
    return cache[key]


def compilation_settings():
    """PyTensor settings under which :func:`sample` compiles a model (a context manager).

    - ``numba__fastmath=False``: with fast-math, Numba's machine code for a model differs between a fresh
      compilation and one loaded from PyTensor's cache (``<base_compiledir>/numba``) in the last bits of the
      log density, so the first fit after the cache is emptied drew different (equally valid) chains from a
      seeded fit than every later one. Without fast-math both are bit-identical (and no slower here).
    - ``generated_src_dir``: PyTensor writes the Python source it generates for Numba to files it keeps; by
      default each is a new ``tmp*`` file in the system temporary directory that nothing removes (about 30 per
      fitted model). Here they go, named by their content and so reused, to ``<compiledir>/generated_src``,
      where PyTensor prunes the ones long unused - unless the user chose a directory.

    >>> with compilation_settings():
    ...     bool(pytensor.config.numba__fastmath)
    False
    """
    flags = {"numba__fastmath": False}
    if not pytensor.config.generated_src_dir:
        flags["generated_src_dir"] = str(Path(pytensor.config.compiledir) / "generated_src")
    return pytensor.config.change_flags(**flags)
