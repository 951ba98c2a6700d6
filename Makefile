# Everything runs inside a project-local virtual environment made from pyproject.toml.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: install demo test bench casebases experiment fidelity fidelity-judge fidelity-ceiling strength model tables kbnk chess0 clean

# Playing needs only the runtime packages (no torch): the demo, the engine, the benches.
install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $(STAMP)

# The tests also need their tools, and torch to train a tiny model.
$(TEST_STAMP): $(STAMP)
	$(PY) -m pip install -q -e '.[test]'
	touch $(TEST_STAMP)

# The tests: type checks (mypy, configured in pyproject.toml), then the suite on 2 workers.
test: $(TEST_STAMP)
	$(PY) -m mypy
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
	$(PY) bench/bench_search.py
	$(PY) bench/bench_model.py
	$(PY) bench/bench_tables.py

# The style model (issue 10): a residual network trained on every move of the masters
# collection (data/masters-2500plus.pgn.gz, which holds no game of the ladder experts), written
# to models/style.npz, the model the engine ships with. Needs torch (installed here from the
# project's [train] extra); resumable (run it again after an interrupt). On 2 CPU cores the
# default takes about 40 minutes; on a GPU, train bigger: MODEL_ARGS="--blocks 8 --filters 96 --epochs 3".
MODEL_ARGS ?= --blocks 5 --filters 48 --positions 2500000

model: casebases/masters.npz
	$(PY) -m pip install -q -e '.[train]'
	$(PY) -m learn train casebases/masters.npz -o models/style.npz $(MODEL_ARGS)

casebases/masters.npz: data/masters-2500plus.pgn.gz $(wildcard casebase/*.py) | $(STAMP)
	$(PY) -m casebase build $< --all-players -o $@

# Endgame tables (issue 12): distance to mate for KQK, KRK, KBBK and KBNK by retrograde analysis
# into tables/ (about 5 minutes and 1.3 GB of memory on 2 cores, 2 MB on disk), each then checked
# against python-chess's rules on 2000 sampled positions. The engine makes KQK and KRK itself at
# first use (a second each); the four-man tables need this.
tables: install
	$(PY) -m endgame build
	$(PY) -m endgame check --positions 2000

# Bergbom's study (issue 12): networks learn KBNK distance to mate from the tables, then play 100
# random positions against the tables' defence (needs make tables; about 10 minutes on 2 cores).
# KBNK_DEEP names a network made by `python -m learn kbnk-deep` (torch; 1 minute on a GPU) to play too.
KBNK_DEEP ?=

kbnk: tables
	$(PY) -m learn kbnk --designs study mutual best $(if $(KBNK_DEEP),--deep $(KBNK_DEEP))

# Chess0's classic against its adaptive engine (issue 12): 100 games, mode chess0, no casebase,
# into results/chess0/ (resumable; about an hour on 2 cores).
CHESS0 = cmd='$(PY) uci_main.py --mode chess0'

chess0: install
	$(PY) -m tournament run --configs balanced --rounds 50 --tc 40/60 --out results/chess0 \
	    --event "Chess0 classic vs adaptive" \
	    --engine "name=classic $(CHESS0) option.Style=classic option.Depth=3" \
	    --engine "name=adaptive $(CHESS0) option.Style=adaptive option.Depth=3 option.DepthDeviation=1"

# The demo: Carlsen against Ivanchuk, each side a UCI engine process, every move explained.
demo: install casebases
	$(PY) -m tournament demo --white casebases/carlsen-2800.npz --black casebases/ivanchuk-2700.npz

# The thesis's experiment on the seven FIDE experts: 5 configurations x 42 ordered pairs x 3 rounds
# = 630 pure-mode games at 40/5400 into results/ (run it again to resume an interrupted run).
LADDER := kosteniuk-2200 gaprindashvili-2300 paehtz-2400 miles-2500 vanwely-2600 ivanchuk-2700 carlsen-2800

experiment: install casebases
	$(PY) -m tournament run --casebases $(LADDER:%=casebases/%.npz) --configs thesis \
	    --rounds 3 --mode pure --tc 40/5400 --out results

# Fidelity (issue 5): per FIDE expert, a casebase without the latest 15 % of the games and those
# games as PGN (casebases/heldout/), then how often each mode plays the expert's own move in
# FIDELITY_POSITIONS of them (results/fidelity/ID.json), and one table over the experts
# (results/fidelity/summary.md and .png). About 15 minutes on 2 cores with the defaults.
FIDELITY_POSITIONS ?= 200
FIDELITY_MODES ?= pure prior search guided stockfish
HELD_OUT := 0.15
EXPERT_NAME = "$$(awk -F'\t' '$$1 == "$*" {print $$2}' data/experts.tsv)"

fidelity: install $(LADDER:%=casebases/heldout/%.npz) $(LADDER:%=casebases/heldout/%.pgn)
	for id in $(LADDER); do \
	    $(PY) -m tournament fidelity --casebase casebases/heldout/$$id.npz --games casebases/heldout/$$id.pgn \
	        --modes $(FIDELITY_MODES) --positions $(FIDELITY_POSITIONS) --out results/fidelity/$$id.json || exit 1; \
	done
	$(PY) -m tournament fidelity-summary $(LADDER:%=results/fidelity/%.json) --out results/fidelity/summary.md

# The outside judge (issue 11): guided mode's proposals judged by JUDGE at depth 10 ("judged") and
# JUDGE alone at depth 10 ("stockfish"), on make fidelity's positions, into results/judge/; then
# the table and the paired difference judged - stockfish per expert. About 4 minutes.
JUDGE ?= /usr/games/stockfish

fidelity-judge: install $(LADDER:%=casebases/heldout/%.npz) $(LADDER:%=casebases/heldout/%.pgn)
	for id in $(LADDER); do \
	    $(PY) -m tournament fidelity --casebase casebases/heldout/$$id.npz --games casebases/heldout/$$id.pgn \
	        --modes judged stockfish --judge $(JUDGE) --positions $(FIDELITY_POSITIONS) --out results/judge/$$id.json || exit 1; \
	done
	$(PY) -m tournament fidelity-summary $(LADDER:%=results/judge/%.json) --out results/judge/summary.md
	$(PY) -m tournament fidelity-compare judged stockfish $(LADDER:%=results/judge/%.json)

# Where guided mode's fidelity comes from (prior, search, their combination) and the most a
# perfect choice among its sound proposals could reach, on make fidelity's positions. ~6 minutes.
fidelity-ceiling: install $(LADDER:%=casebases/heldout/%.npz) $(LADDER:%=casebases/heldout/%.pgn)
	$(PY) bench/bench_fidelity_ceiling.py --positions $(FIDELITY_POSITIONS)

casebases/heldout/%.npz: data/experts/%.pgn data/experts.tsv $(wildcard casebase/*.py) | $(STAMP)
	$(PY) -m casebase build $< -o $@ --exclude-latest $(HELD_OUT) --player $(EXPERT_NAME)

casebases/heldout/%.pgn: data/experts/%.pgn data/experts.tsv $(wildcard casebase/*.py) | $(STAMP)
	$(PY) -m casebase holdout $< -o $@ --latest $(HELD_OUT) --player $(EXPERT_NAME)

# Strength (issue 5): the guided Carlsen against Stockfish 15.1 (UCI_LimitStrength) at UCI_Elo
# 1350 and 1800, STRENGTH_GAMES games each at STRENGTH_TC, 2 workers, into bench/out/ (resumable;
# about an hour with the defaults on 2 cores). Needs /usr/games/stockfish (apt-get install stockfish).
STRENGTH_GAMES ?= 100
STRENGTH_TC ?= 40/20

strength: install casebases
	$(PY) bench/bench_strength.py --games $(STRENGTH_GAMES) --tc $(STRENGTH_TC)

clean:
	rm -rf $(VENV) casebases results bench/out tables
