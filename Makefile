# Every target creates .venv when it is missing; pip runs again only when pyproject.toml changes.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench audit clean mutation

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# [all]: both frameworks and the emulator (not the optional model); [test] includes [all].
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[all]'
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/python -m examples.demo

# The whole suite on one pytest-xdist worker per core (PYTEST_XDIST_AUTO_NUM_WORKERS=N for N).
# loadfile: a file's tests run on one worker, in order, as in a serial run (a docs page's blocks
# share a namespace; module fixtures start once). Not loadgroup: on pytest 9.2 it ignores
# xdist_group marks without a word (pytest-xdist issue 1386).
test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -n auto --dist loadfile

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

audit: $(VENV)/.installed-test
	.ci/audit

bench: $(VENV)/.installed-test
	$(BIN)/python -m benchmarks

# Mutation testing of the core's modules ([tool.mutmut] in pyproject.toml), then the score
# per module (tests/core/mutation_score.py). Minutes, so not part of `make test` or CI.
# MUTANTS='grounding_core.offsets.*' re-runs one module and keeps the other results, but
# deletes mutants/mutmut-stats.json first: mutmut records which tests reach which function only
# for tests it has not seen, so with kept stats a test whose calls changed never runs against the
# new code (false survivors). A module newly added to only_mutate needs its stale unmutated copy
# deleted: rm mutants/grounding_core/<module>.py
MUTANTS ?=
MUTATION_CHILDREN ?= 2
$(VENV)/.installed-mutmut: | $(VENV)/.installed-test
	$(BIN)/python -m pip install --quiet 'mutmut>=3.8'
	touch $@

mutation: $(VENV)/.installed-test $(VENV)/.installed-mutmut
	$(if $(MUTANTS),rm -f mutants/mutmut-stats.json,rm -rf mutants)
	$(BIN)/mutmut run --max-children $(MUTATION_CHILDREN) $(foreach m,$(MUTANTS),'$(m)')
	$(BIN)/python -m tests.core.mutation_score

# The emulator on 127.0.0.1:8123 until Ctrl-C, as `grounding serve` (docs/cli.md): CORPUS=./kb
# serves a folder too (the default data store then), ARGS='--port 0' passes other flags. The
# other commands: .venv/bin/grounding search "...", or `source .venv/bin/activate` first.
CORPUS ?=
ARGS ?=
.PHONY: serve
serve: $(VENV)/.installed
	$(BIN)/grounding serve $(if $(CORPUS),--corpus '$(CORPUS)') $(ARGS)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache mutants
