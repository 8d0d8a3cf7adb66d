"""The execution layer on Dask: a real scheduler and two workers started as separate processes on 127.0.0.1 run
a reduced experiment 1 (in Python and through the command line) with results identical to the local cluster's;
task streams keyed by task, errors carrying the task's key, a progress bar, bad arguments named. (Results identical
for one and two local workers: tests/test_simulation.py.)"""
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from pp_corr import execution
from pp_corr.cli import main
from pp_corr.studies.simulation import CHUNK, experiment_1

DASK = Path(sys.executable).with_name("dask")
ROOT = Path(__file__).resolve().parents[1]
REDUCED = dict(deltas=[0.0, 0.05], runs=(1, 2), n_datasets=10, repetitions=CHUNK + 10, random_seed=4,
               progressbar=False)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(argv):
    # the workers import the tasks' functions: pp_corr and this test module, from this checkout
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen([str(DASK), *argv], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def stop(process):
    """SIGTERM to the process group of ``process`` (the worker's nanny has a child), SIGKILL if it lingers."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@pytest.fixture(scope="module")
def cluster():
    """The address of a scheduler with two single-thread workers, each a separate `dask` process, stopped after
    the module's tests (they also stop by themselves if left: idle timeout, death timeout)."""
    from distributed import Client

    address = f"tcp://127.0.0.1:{free_port()}"
    processes = [start(["scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1], "--no-dashboard",
                        "--idle-timeout", "600s"])]
    try:
        processes += [start(["worker", address, "--host", "127.0.0.1", "--nthreads", "1", "--nworkers", "1",
                             "--no-dashboard", "--death-timeout", "60s", "--name", f"w{i}"]) for i in range(2)]
        deadline = time.monotonic() + 60
        while True:
            try:
                with Client(address, timeout="5s") as client:
                    client.wait_for_workers(2, timeout=max(1.0, deadline - time.monotonic()))
                    break
            except OSError:
                if time.monotonic() > deadline or processes[0].poll() is not None:
                    raise
                time.sleep(0.5)
        yield address
    finally:
        for process in reversed(processes):
            stop(process)
        assert all(p.poll() is not None for p in processes)


def task_pid(value, seed):
    return os.getpid(), value, np.random.default_rng(seed).random()


@pytest.mark.long
def test_remote_tasks_run_on_both_workers_with_streams_keyed_by_task(cluster):
    tasks = [((k, 1), (k,)) for k in range(12)]
    results = dict(execution.map_tasks(task_pid, tasks, random_seed=3, scheduler=cluster, progressbar=False))
    assert sorted(results) == [key for key, _ in tasks]
    pids = {pid for pid, _, _ in results.values()}
    assert len(pids) == 2 and os.getpid() not in pids
    for key, (_, value, draw) in results.items():  # oracle: the task's own stream, drawn here
        assert value == key[0] and draw == np.random.default_rng(np.random.SeedSequence(3, spawn_key=key)).random()


@pytest.mark.slow
def test_reduced_experiment_1_on_a_remote_cluster_equals_the_local_run(cluster, tmp_path, capsys):
    remote = experiment_1(**REDUCED, scheduler=cluster)
    local = experiment_1(**REDUCED, workers=2)
    assert remote.identical(local)
    assert np.isfinite(remote.p_b_majority).all() and remote.sizes["repetition"] == CHUNK + 10
    # the command line: --scheduler against the local cluster's --workers 2
    outputs = {}
    for name, where in (("remote", ["--scheduler", cluster]), ("local", ["--workers", "2"])):
        outputs[name] = tmp_path / name
        main(["simulate", "experiment1", "--repetitions", "20", "--seed", "5", "--no-progress", *where,
              "-o", str(outputs[name])])
    printed = capsys.readouterr().out.split("\n\n")
    files = sorted(p.name for p in outputs["remote"].glob("*.nc"))
    assert files and files == sorted(p.name for p in outputs["local"].glob("*.nc"))
    for file in files:
        assert xr.load_dataset(outputs["remote"] / file).identical(xr.load_dataset(outputs["local"] / file))
    assert "Poisson" in printed[0] or "poisson" in printed[0]


def fail_on_three(value, seed):
    if value == 3:
        raise ArithmeticError(f"value {value}")
    return value


def test_an_error_in_a_task_is_raised_with_its_key():
    tasks = [((k,), (k,)) for k in range(6)]
    with pytest.raises(ArithmeticError, match="value 3") as caught:
        list(execution.map_tasks(fail_on_three, tasks, random_seed=0, workers=1, progressbar=False))
    assert any("(3,)" in note and "fail_on_three" in note for note in caught.value.__notes__)


def tasks_on_the_worker(value, seed):
    from distributed import get_worker

    return value, len(get_worker().state.tasks), np.random.default_rng(seed).random()


def test_more_tasks_than_the_window_all_land_once_and_the_bar_advances(capsys):
    """One worker: at most two tasks in flight (the worker never holds more than those and one being released),
    9 tasks; each task's result once, under its key; the bar on stderr reaches 9/9."""
    tasks = [((k, 2 * k), (k,)) for k in range(9)]
    results = list(execution.map_tasks(tasks_on_the_worker, tasks, random_seed=1, workers=1, desc="probe"))
    assert sorted(key for key, _ in results) == [key for key, _ in tasks]
    for key, (value, _, draw) in results:
        assert value == key[0] and draw == np.random.default_rng(execution.task_seed(1, key)).random()
    assert max(held for _, (_, held, _) in results) <= 3
    captured = capsys.readouterr()
    assert "probe" in captured.err and "9/9" in captured.err and captured.out == ""


def test_task_seed_is_the_spawned_seed_sequence():
    seed = execution.task_seed(11, (2, 5))
    assert seed.entropy == 11 and seed.spawn_key == (2, 5)
    assert execution.task_seed(np.random.SeedSequence(11), 7).spawn_key == (7,)
    with pytest.raises(ValueError, match="random_seed must be an int"):
        execution.task_seed(np.random.default_rng(0), 1)


@pytest.mark.parametrize("scheduler", ["127.0.0.1:8786", "tcp://", 8786, ""])
def test_bad_scheduler_named(scheduler):
    with pytest.raises(ValueError, match="scheduler must be an address"):
        experiment_1(repetitions=5, scheduler=scheduler, progressbar=False)


def test_workers_and_scheduler_together_refused(capsys):
    with pytest.raises(ValueError, match="workers is the size of a local cluster"):
        experiment_1(repetitions=5, scheduler="tcp://127.0.0.1:1", workers=2, progressbar=False)
    with pytest.raises(SystemExit):
        main(["simulate", "toy", "--workers", "1", "--scheduler", "tcp://127.0.0.1:1"])
    assert "not allowed with argument" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["simulate", "toy", "--scheduler", "localhost"])
    assert "--scheduler" in capsys.readouterr().err


def task_thread(value, seed):
    import threading

    time.sleep(0.3)  # long enough that both threads take tasks
    return os.getpid(), threading.get_ident(), np.random.default_rng(seed).random()


@pytest.mark.long
def test_threads_run_the_tasks_in_this_process_with_the_streams_of_worker_processes():
    """threads=True (tasks that release the GIL): two workers are two threads of this process, and each task's
    stream is the one it has in a worker process."""
    tasks = [((k,), (k,)) for k in range(6)]
    threads = dict(execution.map_tasks(task_thread, tasks, random_seed=2, workers=2, threads=True, progressbar=False))
    processes = dict(execution.map_tasks(task_thread, tasks, random_seed=2, workers=2, progressbar=False))
    assert {pid for pid, _, _ in threads.values()} == {os.getpid()}
    assert len({thread for _, thread, _ in threads.values()}) == 2
    assert os.getpid() not in {pid for pid, _, _ in processes.values()}
    assert {key: draw for key, (_, _, draw) in threads.items()} == {key: draw for key, (_, _, draw) in processes.items()}
