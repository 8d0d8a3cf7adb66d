"""Models scored item by item on shared benchmarks: reading the scores and comparing two models.

>>> from pp_corr.items import compare_items
>>> res = compare_items({"A": [1, 0, 1, 1, 0, 1], "B": [1, 1, 1, 1, 0, 1]}, rope=0.05, random_seed=0)
>>> res.names, res.benchmarks
(('A', 'B'), ('benchmark',))
"""
from .benchmarks import benchmark_scores
from .comparison import ItemComparison, bootstrap_means, compare_items
from .loading import load_items, score_kind
from .planning import ItemPlan, plan_items
from .ranking import rank_items

__all__ = ["ItemComparison", "ItemPlan", "benchmark_scores", "bootstrap_means", "compare_items", "load_items",
           "plan_items", "rank_items", "score_kind"]
