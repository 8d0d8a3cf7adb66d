# `make demo` and `make test` set everything up on a fresh machine.
SHELL := /bin/bash
VENV := .venv
BIN := $(VENV)/bin
# python3.12 may be a pyenv shim that refuses to run; fall back to pyenv's own copy.
PYTHON ?= $(shell for p in python3.12 $$HOME/.pyenv/versions/3.12*/bin/python3.12 /usr/bin/python3.12 /usr/local/bin/python3.12; do \
	$$p -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null && echo $$p && break; done)

export OPENBLAS_NUM_THREADS := 1
export OMP_NUM_THREADS := 1
export MKL_NUM_THREADS := 1
export MPLBACKEND := Agg

.PHONY: setup demo test test-fast bench notebooks clean mutation

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	@test -n "$(PYTHON)" || { echo "python3.12 not found: install it or run make PYTHON=/path/to/python3.12"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $@

demo: setup
	$(BIN)/pp-corr demo

# Two test processes (the machines have 2 cores; most tests run on one), the longest-running tests reported.
test: setup
	$(BIN)/python -m pytest -q -p no:cacheprovider -n 2 --dist worksteal --durations=15

# The edit loop: everything but the tests marked slow or long (fits, notebooks, long statistical checks, the
# doctests that fit a model), on the same two processes; about 2 minutes on two cores.
test-fast: setup
	$(BIN)/python -m pytest -q -p no:cacheprovider -n 2 --dist worksteal --durations=15 -m "not slow and not long"

notebooks: setup
	$(BIN)/python scripts/build_notebooks.py

bench: setup
	for f in benchmarks/*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

# Mutation testing of the statistical core (docs/mutation_testing.md); not part of `make test`.
# mutmut itself is installed here, not by setup. The scope is a list of mutant-name patterns (module.x_function,
# module.xǁClassǁmethod): whole modules, the model building of hierarchical/ (preparation.py, priors.py, model.py)
# and the CLI's writers.
MUTMUT_SPEC ?= mutmut>=3.8,<4
MUTATION_JOBS ?= 2
MUTATION_SURVIVORS ?= mutation-survivors.txt
MUTATION_SCOPE := pp_corr.pairwise.intraclass.* pp_corr.pairwise.ttest.* pp_corr.pairwise.frequentist.* \
	pp_corr.pairwise.poisson_binomial.* pp_corr.pairwise.poisson_test.* pp_corr.pairwise.rank_tests.* \
	pp_corr.pairwise.frequentist_rank_tests.* \
	pp_corr.pairwise.pairs.* pp_corr.reporting.output.* \
	pp_corr.hierarchical.preparation.xǁHierarchicalDataǁ* pp_corr.hierarchical.preparation.x_model_unit* \
	pp_corr.hierarchical.preparation.x_warn_far_out* \
	pp_corr.hierarchical.preparation.x_prepare_hierarchical* pp_corr.hierarchical.model.x_hierarchical_model* \
	pp_corr.hierarchical.priors.x_check_hyperprior_name* pp_corr.hierarchical.priors.x_check_prior_bounds* \
	pp_corr.hierarchical.preparation.x_prior_limits* pp_corr.hierarchical.model.x_build_hierarchical_model* \
	pp_corr.cli.x_format_table* pp_corr.cli.x_format_rates* \
	pp_corr.cli.x__write* pp_corr.cli.x__compare* pp_corr.cli.x__simulate*
QUOTED_SCOPE := $(foreach m,$(MUTATION_SCOPE),'$(m)')

# mutmut runs the tests from mutants/, one level below the project, where the tests look for ../shared:
# a temporary link to the project's ../shared (if there is one) keeps the shared data sets in reach.
mutation: setup
	$(BIN)/pip install --quiet "$(MUTMUT_SPEC)"
	@link=; if [ -d ../shared ] && [ ! -e shared ]; then ln -s ../shared shared && link=shared; fi; \
	start=$$(date +%s); \
	$(BIN)/mutmut run --max-children $(MUTATION_JOBS) $(QUOTED_SCOPE); status=$$?; \
	if [ -n "$$link" ]; then rm -f "$$link"; fi; \
	echo "mutmut run took $$(( $$(date +%s) - start )) s"; \
	$(BIN)/python scripts/mutation_report.py --survivors $(MUTATION_SURVIVORS) $(QUOTED_SCOPE) && exit $$status

clean:
	rm -rf $(VENV)
