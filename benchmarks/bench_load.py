"""load_scores on 100,000-row CSVs whose fold labels are numbered across data sets, against pd.read_csv.

Data set i has the fold labels F i + 1 .. F i + F (unique per data set, shared by its algorithms), one run.
A grid over all the labels would hold q x algorithms x (q F) cells; load_scores numbers the folds within
each data set instead. Baseline: pd.read_csv of the same file, measured in the same run. Peak memory is
measured twice: tracemalloc (Python and numpy allocations) and the rise of the resident set of a fresh
interpreter during the call (everything, pandas' parser included). Targets: seconds, peak under 500 MB.
Before the fix the grid spanned every label: 3 s and a 550 MB whole-process peak (first design), 29 s and
1.9 GB (second).
"""
import resource
import subprocess
import sys
import tempfile
import tracemalloc
from pathlib import Path

from _timing import best_of

import numpy as np
import pandas as pd

from pp_corr import load_scores

DESIGNS = [(200, 5, 100), (1000, 2, 50)]  # data sets, algorithms, folds: 100,000 rows each


def write_file(path, q, k, folds):
    rng = np.random.default_rng(0)
    d, a, f = np.meshgrid(np.arange(q), np.arange(k), np.arange(folds), indexing="ij")
    pd.DataFrame({"dataset": (d.ravel() + 1).astype(str), "algorithm": np.array(list("ABCDE"))[a.ravel()],
                  "run": 1, "fold": d.ravel() * folds + f.ravel() + 1,
                  "score": rng.uniform(0.6, 0.9, d.size).round(4)}).to_csv(path, index=False)


def traced_peak_mb(fn):
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def rss_rise_mb(call, path):
    """Rise of the resident set of a fresh interpreter during ``call(path)`` above its size before, in MB
    (Linux: the peak is reset through /proc/self/clear_refs after the imports)."""
    code = ("import re, pandas as pd, pp_corr\n"
            "def kb(field): return int(re.search(field + r':\\s+(\\d+)', open('/proc/self/status').read())[1])\n"
            "open('/proc/self/clear_refs', 'w').write('5')\n"
            "before = kb('VmRSS')\n"
            f"{call}({str(path)!r})\n"
            "print((kb('VmHWM') - before) / 1024)")
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


with tempfile.TemporaryDirectory() as tmp:
    for q, k, folds in DESIGNS:
        path = Path(tmp) / f"folds_across_{q}_datasets.csv"
        write_file(path, q, k, folds)
        ds = load_scores(path)
        assert ds.score.shape == (q, k, 1, folds) and int(ds.score.notnull().sum()) == q * k * folds
        read = best_of(lambda: pd.read_csv(path), repeat=3)
        ours = best_of(lambda: load_scores(path), repeat=3)
        read_mb, ours_mb = traced_peak_mb(lambda: pd.read_csv(path)), traced_peak_mb(lambda: load_scores(path))
        read_rss, ours_rss = rss_rise_mb("pd.read_csv", path), rss_rise_mb("pp_corr.load_scores", path)
        print(f"{q} data sets x {k} algorithms x {folds} folds ({q * folds:,} fold labels, {q * k * folds:,} rows): "
              f"pd.read_csv {read * 1e3:.0f} ms, load_scores {ours * 1e3:.0f} ms, ratio {ours / read:.1f}; "
              f"peak traced {read_mb:.1f} vs {ours_mb:.1f} MB, resident rise {read_rss:.0f} vs {ours_rss:.0f} MB "
              "(target: seconds, peak < 500 MB)")
print(f"this process's peak resident set: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
