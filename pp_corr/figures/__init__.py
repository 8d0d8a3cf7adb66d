"""Figures that grow with the number of algorithms, one module per figure: the all-pairs matrix
(:mod:`.pairs_matrix`) and the posterior rank diagram (:mod:`.rank_diagram`). :mod:`pp_corr.plots` imports their
public functions, so ``plots.plot_pairs`` and ``plots.plot_rank_diagram`` are where they always were."""
