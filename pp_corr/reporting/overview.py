"""What a report of many algorithms shows before its pair tables: each algorithm's verdicts against all the others
in one row, and the gaps in the scores (missing cells)."""
from __future__ import annotations

from ..data.scores import missing_mask
from .document import Section, Table


def standing_table(order, decisions, test) -> Table:
    """One row per algorithm (in ``order``): how many of the others it is better than, equivalent to, worse than
    and undecided against, by the pairwise ``decisions`` (``{(a, b): decision}``, each with ``a``, ``b`` and
    ``region``: 0 a better, 1 equivalent, 2 b better, None undecided) of ``test`` (its name, for the caption).

    >>> from types import SimpleNamespace as D
    >>> table = standing_table(["x", "y", "z"], {("x", "y"): D(a="x", b="y", region=0),
    ...                                          ("x", "z"): D(a="x", b="z", region=1),
    ...                                          ("y", "z"): D(a="y", b="z", region=None)}, "a test")
    >>> table.rows
    (('x', '1', '1', '0', '0'), ('y', '0', '0', '1', '1'), ('z', '0', '1', '0', '1'))
    """
    counts = {name: [0, 0, 0, 0] for name in order}  # better than, equivalent to, worse than, undecided
    for d in decisions.values():
        column = {0: (0, 2), 1: (1, 1), 2: (2, 0), None: (3, 3)}[d.region]
        counts[d.a][column[0]] += 1
        counts[d.b][column[1]] += 1
    return Table("ppcorr-standing", f"Each algorithm against the {len(order) - 1} others ({test})",
                 ("Algorithm", "Better than", "Equivalent to", "Worse than", "No decision"),
                 tuple((name, *map(str, counts[name])) for name in order), (False, True, True, True, True),
                 note="How many of the other algorithms each one is better than, practically equivalent to, worse "
                 "than, or not decided against, by the verdicts of the pair table below.")


def gaps_section(scores) -> Section | None:
    """The section "Gaps": each (algorithm, data set) with missing scores and how many of its folds, or None when
    no score is missing.

    >>> import pp_corr
    >>> gaps_section(pp_corr.load_scores(pp_corr.example_path())) is None
    True
    """
    missing = missing_mask(scores)
    total = int(missing.sum())
    if not total:
        return None
    per_cell = missing.sum(["run", "fold"]).transpose("algorithm", "dataset")
    held = (~scores.score.isnull()).any("algorithm").sum(["run", "fold"])
    rows = tuple((str(a), str(d), f"{int(per_cell.values[i, j])} of {int(held.values[j])}")
                 for i, a in enumerate(per_cell.algorithm.values) for j, d in enumerate(per_cell.dataset.values)
                 if per_cell.values[i, j])
    algorithms = len({row[0] for row in rows})
    datasets = len({row[1] for row in rows})
    words = (f"{total} score{'s' * (total != 1)} {'are' if total != 1 else 'is'} missing: {len(rows)} (algorithm, "
             f"data set) cell{'s' * (len(rows) != 1)}, of {algorithms} algorithm{'s' * (algorithms != 1)} on "
             f"{datasets} data set{'s' * (datasets != 1)}. A fold that no algorithm has is the design, not a gap.")
    table = Table("ppcorr-gaps", "Missing scores", ("Algorithm", "Data set", "Folds missing"), rows,
                  (False, False, True))
    return Section("Gaps", (words, table))

