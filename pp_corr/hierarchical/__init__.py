"""The hierarchical model over data sets (:mod:`.model`), fitted with its convergence policy into a result
(:mod:`.fit`), for many pairs at once (:mod:`.batch`); its exact posterior by quadrature (:mod:`.exact`), the
likelihood of a whole data set (:mod:`.dataset_likelihood`), its stress benchmarks (:mod:`.stress`), and the joint
model of k algorithms (:mod:`.joint`, with :mod:`.covariance`)."""
