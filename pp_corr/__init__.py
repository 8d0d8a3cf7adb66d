"""pp_corr: Bayesian comparison of algorithms assessed by cross-validation.

>>> import pp_corr
>>> res = pp_corr.correlated_ttest([0.01, 0.02, 0.00, 0.03, 0.02], folds=5, rope=0.01)
>>> 0 <= float(res.p_right) <= 1
True
"""
from .frequentist import TTestResult, corrected_ttest, paired_ttest
from .intraclass import SufficientStats, intraclass_logp, resolve_rho
from .priors import NormalGamma
from .scores import differences, load_scores
from .ttest import CorrelatedTTestResult, DegenerateWarning, correlated_ttest

__all__ = [
    "CorrelatedTTestResult", "DegenerateWarning", "NormalGamma", "SufficientStats", "TTestResult",
    "corrected_ttest", "correlated_ttest", "differences", "intraclass_logp", "load_scores", "paired_ttest",
    "resolve_rho",
]
__version__ = "0.1.0"
