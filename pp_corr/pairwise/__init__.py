"""Two algorithms compared: on one data set (the Bayesian correlated t-test and its Normal-Gamma prior, the
intraclass likelihood behind it, the frequentist t-tests), across data sets (the Poisson test, the signed-rank and
sign tests), for every pair (:mod:`.pairs`), and the t-test's PyMC models (:mod:`.models`, :mod:`.distributions`)."""
