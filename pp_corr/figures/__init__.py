"""Figures that grow with the number of algorithms, one module per figure: the all-pairs matrix
(:mod:`.pairs_matrix`) and the posterior rank diagram (:mod:`.rank_diagram`); what they and :mod:`pp_corr.plots`
share (new axes, a legend on top) is in :mod:`.layout`. :mod:`pp_corr.plots` imports their public functions, so
``plots.plot_pairs`` and ``plots.plot_rank_diagram`` are where they always were."""
