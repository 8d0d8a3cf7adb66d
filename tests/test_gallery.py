"""Every file in models/ runs and shows what it claims."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

# Each model samples with PyMC (7 to 43 s each): `make test` runs them.
pytestmark = pytest.mark.long

MODELS = Path(__file__).resolve().parents[1] / "models"


def load(name):
    spec = importlib.util.spec_from_file_location(name, MODELS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["normal_gamma", "matching_prior"])
def test_analytic_checks(name):
    table = load(name).main(draws=600)
    checked = table[table.quantity != "KS distance"]
    assert checked.z.abs().max() <= 4


def test_rho_posterior_stays_at_prior():
    import arviz as az

    module = load("rho_prior")
    idata = module.main(draws=1000)
    rho = idata.posterior.rho
    ess = float(az.ess(rho.values))
    ks = stats.kstest(rho.values.ravel(), stats.beta(*module.RHO_PRIOR).cdf).statistic
    assert ks < 2.0 / np.sqrt(ess)  # KS of an ess-sized independent sample: 2/sqrt(n) is its 0.1% point


def test_student_t_noise_resists_an_outlier():
    summary = load("student_t_noise").main(draws=600)
    clean = summary["Normal, outlier removed"]
    assert abs(summary["Student-t, with outlier"] - clean) < abs(summary["Normal, with outlier"] - clean) / 2


def test_independent_datasets_w():
    table = load("independent_datasets").main(draws=600)
    assert table[table.exact > 0].z.abs().max() <= 4 and table.attrs["total_variation"] < 0.05
