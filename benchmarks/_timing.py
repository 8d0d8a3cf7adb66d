"""Timing helper shared by the benchmark scripts."""
import os

for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import time  # noqa: E402


def best_of(fn, repeat=5, clock=time.perf_counter):
    """Best time of ``repeat`` calls, in seconds (the least disturbed by other load): wall time, or with
    ``clock=time.process_time`` the CPU time of this process, which for a single-threaded kernel on a shared
    machine leaves out the waits for a core (ratios of two kernels then hold under load)."""
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        times.append(clock() - start)
    return min(times)


def timed(fn):
    """``(seconds, result)`` of one call of ``fn`` (wall time)."""
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def load() -> str:
    """The machine's load average over the last minute, to print beside a time (2 cores: above 2 is contention)."""
    return "load %.1f" % os.getloadavg()[0]
