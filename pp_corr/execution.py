"""Where heavy work runs: tasks submitted to a Dask client, a local cluster started for the call or an existing
cluster given by its scheduler address, each task with its own random stream keyed by the task, so results are
the same whatever the number of workers or machines.

Scripts that start a local cluster of processes need the ``if __name__ == "__main__":`` guard: worker processes
start by spawn and import the main module. Tasks that release the GIL (``threads=True``) run in threads of the
calling process instead.
"""
from __future__ import annotations

import contextlib
import os
import warnings

import numpy as np
from tqdm import tqdm

from ._args import check_count


def local_workers(workers=None) -> int:
    """How many workers (processes or threads) a local cluster starts: ``workers`` (default: the cores), at most
    one per core (a warning says when it cuts).

    >>> local_workers(1)
    1
    """
    cores = os.cpu_count() or 1
    if workers is None:
        return cores
    if check_count("workers", workers) > cores:
        warnings.warn(f"workers={workers} is more than the {cores} cores: using {cores}", stacklevel=3)
    return min(workers, cores)


def check_scheduler(name, scheduler):
    """A scheduler address (``"tcp://HOST:PORT"`` or another Dask protocol) or a ``distributed.Client``.

    >>> check_scheduler("scheduler", "tcp://127.0.0.1:8786")
    'tcp://127.0.0.1:8786'
    """
    if type(scheduler).__name__ != "Client" and (not isinstance(scheduler, str) or "://" not in scheduler
                                                 or scheduler.endswith("://")):
        raise ValueError(f"{name} must be an address such as 'tcp://HOST:PORT' or a distributed.Client, "
                         f"got {scheduler!r}")
    return scheduler


def check_execution(scheduler=None, workers=None):
    """The checked ``(scheduler, workers)`` of a call: ``scheduler`` an address ``"tcp://HOST:PORT"`` (any Dask
    protocol), a ``distributed.Client`` or None (a local cluster of ``workers`` processes, see
    :func:`local_workers`); ``workers`` only for a local cluster.

    >>> check_execution("tcp://127.0.0.1:8786")
    ('tcp://127.0.0.1:8786', None)
    """
    if scheduler is None:
        return None, None if workers is None else local_workers(workers)
    check_scheduler("scheduler", scheduler)
    if workers is not None:
        raise ValueError("workers is the size of a local cluster: with scheduler= the cluster's own workers run "
                         "the tasks")
    return scheduler, None


@contextlib.contextmanager
def dask_client(scheduler=None, *, workers=None, threads=False):
    """A ``distributed.Client``: on a local cluster of ``workers`` processes (default: the cores; one thread each,
    the status page on a free local port) started for the ``with`` block - one worker runs in a thread of this
    process, as a process of its own would bring no speed and a second of start-up; on the cluster whose
    scheduler is at the address ``scheduler`` (``"tcp://HOST:PORT"``); or ``scheduler`` itself when it is a
    Client (left open).

    ``threads=True`` is for tasks that release the GIL (compiled or numpy work): the local cluster is then
    ``workers`` threads of this process, which start at once and share its compiled functions (experiment 1 in
    full: 22.0 s on 2 threads against 33.8 s on 2 processes, benchmarks/bench_simulation.py). A remote cluster is
    unaffected.

    >>> with dask_client(workers=1) as client:
    ...     client.submit(sum, [1, 2]).result()
    3
    """
    scheduler, workers = check_execution(scheduler, workers)
    import dask
    from distributed import Client, LocalCluster  # imported when asked for (it takes a second)

    if scheduler is not None and not isinstance(scheduler, str):
        yield scheduler
    elif scheduler is not None:
        with Client(scheduler) as client:
            yield client
    else:
        n_workers = local_workers(workers)
        if threads or n_workers == 1:
            layout = {"n_workers": 1, "threads_per_worker": n_workers, "processes": False}
        else:
            layout = {"n_workers": n_workers, "threads_per_worker": 1, "processes": True, "host": "127.0.0.1"}
        # no statistical profiler in the workers: its thread takes the GIL from the tasks every 10 ms
        with (dask.config.set({"distributed.worker.profile.enabled": False}),
              LocalCluster(dashboard_address="127.0.0.1:0", **layout) as cluster, Client(cluster) as client):
            yield client


def as_seed_sequence(random_seed) -> np.random.SeedSequence:
    """The root of the task streams: a SeedSequence from an int, None (fresh entropy) or a SeedSequence.

    >>> as_seed_sequence(3).entropy
    3
    """
    if isinstance(random_seed, np.random.SeedSequence):
        return random_seed
    if isinstance(random_seed, np.random.Generator):
        raise ValueError("random_seed must be an int (or None) here: each task derives its own seed from it")
    return np.random.SeedSequence(random_seed)


def task_seed(random_seed, key) -> np.random.SeedSequence:
    """The random stream of the task ``key`` (a whole number or a tuple of them): ``SeedSequence(entropy of
    random_seed, spawn_key=key)``, the same wherever and in whatever order the task runs.

    >>> a, b = (np.random.default_rng(task_seed(7, key)).random() for key in [(0, 1), (0, 1)])
    >>> a == b != np.random.default_rng(task_seed(7, (1, 0))).random()
    True
    """
    key = (key,) if np.ndim(key) == 0 else tuple(key)
    return np.random.SeedSequence(as_seed_sequence(random_seed).entropy, spawn_key=tuple(int(k) for k in key))


def map_tasks(fn, tasks, *, random_seed, scheduler=None, workers=None, threads=False, progressbar=True, desc=None):
    """Call ``fn(*args, seed)`` for every ``(key, args)`` of ``tasks`` on a Dask client (see :func:`dask_client`,
    and its ``threads`` for tasks that release the GIL), ``seed`` being :func:`task_seed` of the key; yield
    ``(key, result)`` as tasks finish, in any order. At most two tasks per worker thread are in flight, so memory
    stays bounded; a progress bar on stderr advances as tasks finish; an error in a task is raised here, with the
    task's key in its notes.

    >>> def draw(n, seed):
    ...     return np.random.default_rng(seed).integers(0, 100, n).tolist()
    >>> sorted(map_tasks(draw, [((0,), (2,)), ((1,), (1,))], random_seed=0, workers=1, progressbar=False)) == [
    ...     ((0,), draw(2, task_seed(0, (0,)))), ((1,), draw(1, task_seed(0, (1,))))]
    True
    """
    from distributed import as_completed

    root, tasks = as_seed_sequence(random_seed), list(tasks)
    scheduler, workers = check_execution(scheduler, workers)
    if not tasks:
        return
    if scheduler is None:
        workers = min(workers or local_workers(), len(tasks))
    with dask_client(scheduler, workers=workers, threads=threads) as client, \
            tqdm(total=len(tasks), desc=desc, disable=not progressbar, unit="task") as bar:
        window = max(2, 2 * sum(client.nthreads().values()))
        queue = iter(tasks)
        running = {}

        def submit():
            for key, args in queue:
                future = client.submit(fn, *args, task_seed(root, key), pure=False)
                running[future] = key
                return future

        pending = as_completed([submit() for _ in range(min(window, len(tasks)))])
        try:
            for future in pending:
                key = running.pop(future)
                try:
                    result = future.result()
                except Exception as error:
                    error.add_note(f"in the task {key!r} of {getattr(fn, '__name__', fn)}")
                    raise
                future.release()
                bar.update()
                if (following := submit()) is not None:
                    pending.add(following)
                yield key, result
        finally:
            client.cancel(list(running))
