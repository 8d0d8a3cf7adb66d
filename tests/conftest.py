import os

# Before numpy is imported: MvNormal-type graphs run ~50x slower with threaded BLAS on 2 cores.
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
os.environ.setdefault("MPLBACKEND", "Agg")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# Property tests draw the same examples on every run by default, so a suite result can be reproduced;
# HYPOTHESIS_PROFILE=explore draws new ones each run (to look for counterexamples on purpose).
settings.register_profile("reproducible", derandomize=True, database=None)
settings.register_profile("explore")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "reproducible"))

ROOT = Path(__file__).resolve().parents[1]
UCI54 = ROOT.parent / "shared" / "data" / "uci54" / "uci54_tidy.csv"


@pytest.fixture(scope="session")
def uci54():
    """The shared uci54 scores (5 classifiers x 54 data sets x 10 runs x 10 folds), read in place."""
    from pp_corr import load_scores

    if not UCI54.exists():
        pytest.skip(f"the shared uci54 data are not at {UCI54} (a clone without ../shared)")
    return load_scores(UCI54, columns={"score": "accuracy"})


@pytest.fixture(scope="session")
def uci54_gappy(uci54):
    """uci54 with 10% of its (data set, algorithm) cells removed at random (seed 38): 27 of 270 cells, every data set
    keeping at least 3 algorithms; and the (data set, algorithm) mask of the cells kept."""
    from pp_corr.testing import remove_cells

    return remove_cells(uci54, 0.1, random_seed=38)
