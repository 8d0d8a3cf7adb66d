"""Incomplete designs for a pair of algorithms: the data sets where both have scores, and the line that says which
were left out."""
from __future__ import annotations

import numpy as np
import xarray as xr


def common_datasets(scores: xr.Dataset, a: str, b: str) -> tuple[xr.Dataset, tuple[str, ...]]:
    """The scores on the data sets where algorithms ``a`` and ``b`` both have a score on some fold (the same run
    and fold), and the names of the other data sets, which a comparison of the pair leaves out. A ValueError
    names the pair when no data set is left.

    >>> from pp_corr import load_scores
    >>> scores = load_scores({"A": [[0.8, 0.9], [0.7, 0.6]], "B": [[0.7, 0.8], [0.6, 0.7]]})
    >>> scores["score"] = scores.score.where(~((scores.dataset == "D2") & (scores.algorithm == "B")))
    >>> kept, left_out = common_datasets(scores, "A", "B")
    >>> kept.dataset.values.tolist(), left_out
    (['D1'], ('D2',))
    """
    both = scores.score.sel(algorithm=[a, b]).notnull().all("algorithm")
    present = both.any([dim for dim in both.dims if dim != "dataset"]).values
    if not present.any():
        raise ValueError(f"algorithms {a!r} and {b!r} have no data set where both have scores (of "
                         f"{scores.sizes['dataset']} data sets): nothing to compare")
    left_out = tuple(str(d) for d, kept in zip(scores.dataset.values, present) if not kept)
    return (scores.isel(dataset=np.flatnonzero(present)) if left_out else scores), left_out


def left_out_line(left_out, names) -> str:
    """The line a result prints about the data sets a pair leaves out ("" if none).

    >>> left_out_line(("glass", "iris"), ("A", "B"))
    'left out: 2 data sets where A and B do not both have scores: glass, iris'
    """
    if not left_out:
        return ""
    count = len(left_out)
    return (f"left out: {count} data set{'s' * (count != 1)} where {names[0]} and {names[1]} do not both have "
            f"scores: {', '.join(left_out)}")


def left_out_tail(left_out, names) -> str:
    """A result's last line about the data sets left out, with its line break ("" if none).

    >>> left_out_tail((), ("A", "B"))
    ''
    """
    return f"\n  {left_out_line(left_out, names)}" if left_out else ""
