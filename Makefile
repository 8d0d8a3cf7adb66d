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

.PHONY: setup demo test test-fast bench clean

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

test: setup
	$(BIN)/python -m pytest -q -p no:cacheprovider

test-fast: setup
	$(BIN)/python -m pytest -q -p no:cacheprovider -m "not slow"

bench: setup
	for f in benchmarks/*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV)
