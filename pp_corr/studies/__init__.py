"""The source papers' simulation studies and procedures: the Poisson test against the Wilcoxon test
(:mod:`.simulation` on :mod:`.bayes_net`), the signed-rank loss study, Nadeau & Bengio's procedures and their study
on learners in the loop (:mod:`.resampling`), and replicability across data sets."""
