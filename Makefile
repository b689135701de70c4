# Two self-contained entry points (each creates the environment, installs, runs):
#   make demo   - the main job: a generated walk retargeted onto Unitree G1, into ./kinemorph-demo/
#   make test   - the test suite without the tests marked slow (what CI runs)
#   make test-all - every test
# Offline machines: robot models come from MENAGERIE_ROOT (defaults to ../shared/menagerie when it
# exists); the LAFAN1/dog data tests need KINEMORPH_DATA (defaults to ../shared/data when it exists).

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
SHARED := $(abspath ../shared)

ifeq ($(origin MENAGERIE_ROOT), undefined)
  ifneq ($(wildcard $(SHARED)/menagerie),)
    export MENAGERIE_ROOT := $(SHARED)/menagerie
  endif
endif
ifeq ($(origin KINEMORPH_DATA), undefined)
  ifneq ($(wildcard $(SHARED)/data),)
    export KINEMORPH_DATA := $(SHARED)/data
  endif
endif

.PHONY: demo test test-all bench lint clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev,ray,app,video]"
	touch $@

demo: $(VENV)/.installed
	$(VENV)/bin/kinemorph demo --force

test: $(VENV)/.installed
	$(PY) -m pytest -q -m "not slow"

test-all: $(VENV)/.installed
	$(PY) -m pytest -q

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check src tests benchmarks examples
	$(VENV)/bin/ruff format --check src tests benchmarks examples
	$(VENV)/bin/mypy

bench: $(VENV)/.installed
	$(PY) benchmarks/bench_retarget.py --clip $(KINEMORPH_DATA)/motions/walk.bvh --robot unitree_g1
	$(PY) benchmarks/bench_retarget.py --clip $(KINEMORPH_DATA)/motions/dance.bvh --robot unitree_g1

clean:
	rm -rf $(VENV) kinemorph-demo .pytest_cache
