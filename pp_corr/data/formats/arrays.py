"""``format="arrays"``: ``{algorithm: (q, n) array}`` as baycomp takes them. Any mapping no other format detects."""
from __future__ import annotations

from collections.abc import Mapping

from ..sources import ROLES, InputFormat, Request, Source, arrays_to_frame, select_algorithms


def read(source: Mapping, request: Request) -> Source:
    """The :class:`~pp_corr.data.sources.Source` of ``{algorithm: (q, n) array}``.

    >>> read({"A": [[0.8, 0.9]], "B": [[0.7, 0.8]]}, Request(None, None, None, None, None)).frame.shape
    (4, 5)
    """
    if request.scoring is not None:
        raise ValueError("scoring= chooses the metric of cross_validate results or cv_results_; arrays have one")
    arrays = select_algorithms(dict(source), request.algorithms, "the mapping")
    return Source(arrays_to_frame(arrays, datasets=request.datasets, **request.layout), "row {}".format,
                  dict(zip(ROLES, ROLES)), request.runs is None and request.folds is None)


FORMAT = InputFormat(("mapping",), read, command_line=False)
