"""pp_corr: Bayesian comparison of algorithms assessed by cross-validation.

>>> import pp_corr
>>> res = pp_corr.correlated_ttest([0.01, 0.02, 0.00, 0.03, 0.02], folds=5, rope=0.01)
>>> 0 <= float(res.p_right) <= 1
True
"""
from .data.scores import (AssumptionWarning, MissingScoresWarning, differences, example_path, load_scores,
                          mean_differences, missing_cells)
from .items import (ItemComparison, ItemPlan, benchmark_scores, compare_items, load_items, plan_items,
                    rank_items)
from .pairwise.frequentist import TTestResult, corrected_ttest, paired_ttest
from .pairwise.intraclass import SufficientStats, intraclass_fold_logp, intraclass_logp, resolve_rho
from .pairwise.pairs import compare_all_pairs, format_pairs
from .pairwise.poisson_binomial import PoissonBinomial, poisson_binomial_monte_carlo
from .pairwise.poisson_test import PoissonTestResult, poisson_test
from .pairwise.priors import NormalGamma
from .pairwise.frequentist_rank_tests import sign_test, wilcoxon_test
from .pairwise.rank_tests import (ImpreciseSignedRankResult, RegionProbabilities, bayesian_sign_test,
                                  bayesian_signed_rank, imprecise_signed_rank)
from .pairwise.ttest import CorrelatedTTestResult, DegenerateWarning, correlated_ttest
from .sequential.cv import sequential_cv
from .sequential.replay import sequential_test
from .sequential.result import SequentialResult
from .sequential.runs import SequentialRuns
from .sequential.study import sequential_study

__all__ = [
    "AssumptionWarning", "ConvergenceWarning", "CorrelatedTTestResult", "DegenerateWarning", "HierarchicalResult",
    "ImpreciseSignedRankResult", "ItemComparison", "ItemPlan", "JointResult", "MissingScoresWarning", "NormalGamma",
    "OutlierWarning", "PlackettLuceResult", "PoissonBinomial", "PoissonTestResult", "RegionProbabilities",
    "SequentialResult", "SequentialRuns", "SufficientStats", "TTestResult", "bayesian_sign_test",
    "bayesian_signed_rank", "benchmark_scores", "compare_all_pairs", "compare_items", "corrected_ttest",
    "correlated_ttest", "dataset_ranks", "differences", "example_path", "format_pairs", "hierarchical_model",
    "hierarchical_test", "hierarchical_tests", "imprecise_signed_rank", "intraclass_fold_logp", "intraclass_logp",
    "joint_model", "joint_test", "load_items", "load_scores", "mean_differences", "missing_cells",
    "order_by_ranking", "paired_ttest", "plackett_luce", "plackett_luce_model", "plan_items",
    "poisson_binomial_monte_carlo", "poisson_test", "rank_items", "resolve_rho", "sequential_cv", "sequential_study",
    "sequential_test", "sign_test", "wilcoxon_test", "write_report",
]
__version__ = "0.1.0"
# these import PyMC
_LAZY = {"ConvergenceWarning": "sampling", "HierarchicalResult": "hierarchical.fit",
         "OutlierWarning": "hierarchical.preparation", "hierarchical_model": "hierarchical.model",
         "hierarchical_test": "hierarchical.fit", "hierarchical_tests": "hierarchical.batch",
         "JointResult": "hierarchical.joint", "joint_model": "hierarchical.joint", "joint_test": "hierarchical.joint",
         "PlackettLuceResult": "ranking", "dataset_ranks": "ranking", "plackett_luce": "ranking",
         "plackett_luce_model": "ranking", "order_by_ranking": "ranking", "write_report": "reporting.report"}


def __getattr__(name):
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'pp_corr' has no attribute {name!r}")
