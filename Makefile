# Two commands matter: `make run` and `make test`. Both create .venv on first use.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test fuzz bench screenshots clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# With no ARGS, the bundled sample by name: config.toml's `sources` apply only when no source is named.
run: $(STAMP)
	$(BIN)/cachetui $(or $(ARGS),cachetui/sample)

test: $(STAMP)
	$(BIN)/lint-imports
	$(BIN)/ruff check cachetui
	$(BIN)/mypy
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The long fuzz run: the same property tests with a much larger example budget.
fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest tests/test_fuzz.py tests/test_settings_fuzz.py tests/test_key_fuzz.py tests/test_frontmatter.py tests/test_values.py tests/test_spec_syntax_properties.py tests/test_fast_lane.py tests/test_hostile_mirrors.py::test_a_damaged_record_costs_exactly_itself $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python benchmarks/bench.py $(BENCH_ARGS)
	$(BIN)/python benchmarks/cold_tail.py benchmarks/corpora/L --rounds 5
	$(BIN)/python benchmarks/cold_parts.py benchmarks/corpora/L --rounds 3
	$(BIN)/python benchmarks/blas_threads.py benchmarks/corpora/L --rounds 5
	$(BIN)/python benchmarks/pty_keys.py
	$(BIN)/python benchmarks/dependency_queries.py
	$(BIN)/python benchmarks/table_plan.py
	$(BIN)/python benchmarks/coverage_bench.py
	$(BIN)/python benchmarks/plan_bench.py
	$(BIN)/python benchmarks/first_line.py
	$(BIN)/python benchmarks/settings_bench.py
	$(BIN)/python benchmarks/push_dates_bench.py
	$(BIN)/python benchmarks/sort_bench.py

screenshots: $(STAMP)
	$(BIN)/python scripts/screenshots.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .hypothesis
