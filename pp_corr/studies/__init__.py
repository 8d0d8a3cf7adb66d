"""The source papers' simulation studies and procedures: the Poisson test against the Wilcoxon test
(:mod:`.simulation` on :mod:`.bayes_net`), the signed-rank loss study (:mod:`.signed_rank_study`, its figure
:mod:`.signed_rank_figure`), replicability across data sets (:mod:`.replicability`), and the learners in the loop:
two estimators on the same splits (:mod:`.resampling`), Nadeau & Bengio's procedures (:mod:`.nadeau_bengio`), their
simulation study (:mod:`.nadeau_bengio_study`) and its figures (:mod:`.nadeau_bengio_plots`)."""
