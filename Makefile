# Everything runs inside a project-local virtual environment made from pyproject.toml.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: install demo test bench casebases experiment clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

test: install
	$(PY) -m pytest -q -n 2

# One casebase per shipped expert, named after its PGN, with the player's name from
# data/experts.tsv; a casebase is rebuilt only when its PGN, the registry or the builder changes.
CASEBASES := $(patsubst data/experts/%.pgn,casebases/%.npz,$(wildcard data/experts/*.pgn))

casebases: $(CASEBASES)

casebases/%.npz: data/experts/%.pgn data/experts.tsv $(wildcard casebase/*.py) | $(STAMP)
	$(PY) -m casebase build $< -o $@ \
	    --player "$$(awk -F'\t' '$$1 == "$*" {print $$2}' data/experts.tsv)"

bench: install
	$(PY) bench/bench_build.py
	$(PY) bench/bench_retrieval.py
	$(PY) bench/bench_startup.py
	$(PY) bench/bench_tournament.py

# The demo: Carlsen against Ivanchuk, each side a UCI engine process, every move explained.
demo: install casebases
	$(PY) -m tournament demo --white casebases/carlsen-2800.npz --black casebases/ivanchuk-2700.npz

# The thesis's experiment on the seven FIDE experts: 5 configurations x 42 ordered pairs x 3 rounds
# = 630 pure-mode games at 40/5400 into results/ (run it again to resume an interrupted run).
LADDER := kosteniuk-2200 gaprindashvili-2300 paehtz-2400 miles-2500 vanwely-2600 ivanchuk-2700 carlsen-2800

experiment: install casebases
	$(PY) -m tournament run --casebases $(LADDER:%=casebases/%.npz) --configs thesis \
	    --rounds 3 --mode pure --tc 40/5400 --out results

clean:
	rm -rf $(VENV) casebases results bench/out
