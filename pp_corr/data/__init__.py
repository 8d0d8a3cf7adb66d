"""Per-fold scores: the formats they come in (:mod:`.sources`) read into one xarray Dataset (:mod:`.scores`), and
the embedded example (``sklearn_cv.csv``)."""
