"""The hierarchical model's posterior by deterministic quadrature: the default answer of the hierarchical test.

The model, in the unit the caller chose (with ``population="normal"``, delta_i ~ N(delta0, sigma0): the kernel
below at nu = 1e8, one node, no prior of nu). Data set i (i = 1..q) has n_i >= 2 fold differences with mean xbar_i and
sum of squared deviations S_i, fold correlation rho_i in [0, 1) and c_i = (1 - rho_i) / n_i + rho_i:

    xbar_i | delta_i, sigma_i ~ N(delta_i, c_i sigma_i^2),   S_i / ((1 - rho_i) sigma_i^2) ~ chi^2(n_i - 1)
    delta_i ~ t_nu(delta0, sigma0),   sigma_i ~ U(lo_i, hi_i)
    delta0 ~ U(-D, D),   sigma0 ~ U(0, U),   nu - 1 ~ Gamma(alpha, rate beta),   alpha ~ U(a1, a2),   beta ~ U(b1, b2)

As a function of (delta_i, sigma_i) the likelihood of data set i is sigma_i^-n_i exp(-B_i / sigma_i^2) with
B_i = ((xbar_i - delta_i)^2 / c_i + S_i / (1 - rho_i)) / 2 (the intraclass normal density of the folds, whose
sufficient statistics are xbar_i and S_i).

1. sigma_i integrates out in closed form. With t = B / sigma^2 and k = (n - 1) / 2,

       int_lo^hi sigma^-n exp(-B / sigma^2) d sigma = Gamma(k) B^-k [P(k, B / lo^2) - P(k, B / hi^2)] / 2,

   P the regularised lower incomplete gamma function (:func:`log_sigma_integral`). Written as F(lo) - F(hi) with
   F(s) = int_s^inf, it is (s^-2k e^-x sum_j x^j / ((k + 1) ... (k + j))) / (2k) with x = B / s^2, which stays
   finite as B -> 0 (it tends to (lo^(1-n) - hi^(1-n)) / (n - 1)); far in the upper tail it is written through the
   continued fraction of the upper incomplete gamma function instead. This gives L_i(delta_i), a bump at xbar_i.

2. delta_i integrates against the population's t density: g_i(delta0, sigma0, nu) = int t_nu(d; delta0, sigma0)
   L_i(d) dd. L_i lives on cells of its own, symmetric about xbar_i: at most half the bump's scale w_i wide
   (half the distance to xbar_i in the tails) and spanning at most 2.5 nats of log L_i (more where L_i is already
   e^-10 below its top); L_i is cut where it is e^-50 below it. On every cell a five-point Gauss-Legendre rule
   integrates kernel * L_i (exact to degree 9). Where the kernel is not smooth on a cell (sigma0 comparable with
   or below the cell: the funnel), as judged by a bound on the rule's error from the kernel's log-slope, and the
   cell can matter (for each nu apart), it is cut in halves, and those halves that are still not smooth again,
   down to 16 sub-cells, each with the five-point rule whose bound is its share of the cell's; on the finest
   sub-cells that are still not smooth L_i is replaced by its quadratic through the sub-cell's middle and outer
   nodes and integrated against the kernel by a ten-point rule (kernel at least as wide as the sub-cell) or
   exactly, with the partial moments of the t density: with A(z) = (nu + z^2) f_nu(z), A' = -(nu - 1) z f_nu, so
   int z f = -[A] / (nu - 1) and int z^2 f = (nu int f - [z A]) / (nu - 2), int f being differences of
   the t CDF. A sigma0 far below every cell is thus exact: g_i -> L_i(delta0). The same sums with (d - xbar_i)
   and (d - xbar_i)^2 and with d cut at the rope and at 0 (cell edges) give each delta_i's conditional moments
   and tail probabilities.

3. alpha and beta integrate into the prior of nu: beta in closed form,
   int_b1^b2 beta^a e^(-beta x) d beta = x^-(a+1) Gamma(a + 1) [P(a + 1, b2 x) - P(a + 1, b1 x)], so with x = nu - 1
   p(nu) = x^-2 / ((a2 - a1)(b2 - b1)) int_a1^a2 a [P(a + 1, b2 x) - P(a + 1, b1 x)] da (Gauss-Legendre in a).

4. The rest is a 3-D integral over (delta0, log sigma0, log(nu - 1)) of U(delta0) U(sigma0) p(nu) prod_i g_i:
   - log(nu - 1): Gauss-Legendre panels (the likelihood changes smoothly with it), at most 2 prior sds wide and
     cut at nu = 2 (for P(nu < 2)), twice as wide below nu = 1.05 and above nu = 51 (where the kernel barely
     changes with nu); the prior mass below nu = 1.001 sits on one node there (the likelihood barely moves
     between the Cauchy kernel and nu = 1.001).
   - delta0: given sigma0, segments in v with delta0 = c + s sinh(v) centred on the conditional posterior (fitted
     to the values at the nearest sigma0 node evaluated, ending where their chord falls 40 nats; re-built until
     their ends are e^-27 below the top and the peak resolved): the
     trapezoid rule in v where the density has decayed at both ends (spectrally accurate, heavy tails included),
     and the sinc interpolant for partial integrals (P(delta0 > 0), quantiles, the regions of a new data set).
     Where a segment ends on a bound of delta0's prior, or where sigma0 is so small that summands step at the
     rope's ends or 0 (P(delta_new < r_lo), P(delta_i > 0) as functions of delta0), Gauss-Legendre pieces
     between those points and their Legendre interpolants instead.
   - log sigma0: Gauss-Legendre panels over the region where a cheap pilot puts the posterior (each g_i the sum of
     L_i(delta0), fading as sigma0 outgrows L_i, and a t density of scale s = sqrt(sigma0^2 + scale_i^2) whose tail
     is made the kernel's by the factor (sigma0 / s)^nu), cut at sigma0 = 0.01 and where the rope stops being the
     most probable region at its centre (a kink); extended while the tail beyond an end panel holds mass (unless
     log phi is already straight there, below 1e-3 of the smallest w_i), split while a panel's error estimate
     (its highest Legendre coefficients, extrapolated) is above 1e-4 of the total. The grid reaches 1e-6 of the
     unit at most; the tails beyond the end panels are the exponential through the two end nodes (below: at least
     like e^t, as there prod g_i no longer depends on sigma0).
   Everything is summed in logs (the largest term factored out).

A new data set, delta_new ~ t_nu(delta0, sigma0), has P(delta_new < r_lo) = T_nu((r_lo - delta0) / sigma0) given
the hyperparameters; its posterior mean is a sum over the grid. The region with the largest probability changes
with delta0 at most twice for given (sigma0, nu) (the rope's probability is symmetric and unimodal about the
rope's centre), so the probability of each region being the largest is the conditional CDF of delta0 at those
points. Given the hyperparameters the delta_i are independent, so the count of delta_i > 0 is Poisson-binomial.

The numerical error is estimated by the same computation on a grid half as fine in every direction (at least
three nodes per nu panel and 12 per delta0 segment), without a pilot, each node's delta0 segments started from the
finer computation's nearest node, on the finer computation's log sigma0 panels merged in pairs where that is
harmless: never across a cut, and only where the merged panel's rule on the interpolants of the two panels' nodes
moves phi and phi times the regions' probabilities by less than the coarser grid's tolerance. Adapting the merged
panels again, as the finer computation adapts its own, gave more sigma0 nodes than the finer computation had and
cost as much as it; merged as they are, the estimate costs 0.25 to 0.45 of it, and the largest estimated error stays
3 to 26 times the largest error against a grid 1.5 times as fine (16 pairs of uci54, a tie-heavy benchmark of 16
classifiers and the stress battery; 4 to 25 times with the panels adapted again). The likelihood cells are a small
part of the error (cells half as wide move no probability by more than 2e-6).

Draws (:func:`exact_draws`, or later from :func:`exact_sampler`'s sampler) follow the same grid, each level given
the one above, without evaluating anything new but each data set's L_i: log sigma0 from the interpolant of its
density within a panel (exponential tails beyond the panels); (delta0, nu) from the conditional law at one of the two
sigma0 nodes around it, taken in proportion to their shares of the joint density's linear interpolant there; delta0
from that node's conditional density and log(nu - 1) from its nu nodes' densities at that delta0 (local polynomial
interpolants of the log densities through the nodes); each delta_i from L_i(d) t_nu(d; delta0, sigma0), exact at
the union of a grid around xbar_i at L_i's scale and one around delta0 at sigma0's, piecewise exponential in between;
and u = sigma_i^-2 given delta_i from u^(k - 1) exp(-B_i u) on [1 / hi^2, 1 / lo^2], k = (n_i - 1) / 2, by the
incomplete gamma function's inverse.

The package, one job a module: :mod:`.integrals` (steps 1 and 3, and the Gauss-Legendre rules), :mod:`.likelihoods`
(step 2, with its compiled kernels in :mod:`.convolution`), :mod:`.grid` (the rules on each axis and the
resolution) and :mod:`.refinement` (step 4 at one resolution), :mod:`.posterior` (the entry point, the error
estimate and the summaries) and :mod:`.draws`.
"""
from .draws import exact_draws, exact_sampler
from .grid import ExactGrid
from .integrals import log_sigma_integral, nu_prior_cdf, nu_prior_density
from .posterior import (DATASET_FIELDS, METHODS, PROBABILITY_FIELDS, SUMMARY_FIELDS, ExactPosterior, check_method,
                        exact_posterior)

__all__ = ["DATASET_FIELDS", "METHODS", "PROBABILITY_FIELDS", "SUMMARY_FIELDS", "ExactGrid", "ExactPosterior",
           "check_method", "exact_draws", "exact_posterior", "exact_sampler", "log_sigma_integral", "nu_prior_cdf",
           "nu_prior_density"]
