"""pytest set-up shared by the suite (tests/) and the package's doctests (pp_corr/)."""
import sys

import pytest


@pytest.fixture(autouse=True)
def _close_figures():
    """Each test's and each doctest's figures are closed after it, so a long run never piles up open figures (a
    worker that had run a handful of plotting doctests failed the next test that drew: more than 20 open figures
    is a RuntimeWarning, an error here)."""
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")
