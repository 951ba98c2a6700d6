# Everything runs inside a project-local virtual environment made from pyproject.toml.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
TRAIN_STAMP := $(VENV)/.installed-train
WEB_STAMP := $(VENV)/.installed-web

.PHONY: help install demo web test test-all check docs lint embeddings bench bench-cluster casebases profiles fitted profile-report experiment fidelity fidelity-judge fidelity-ceiling personal own-networks identify personal-table master-pack master-cpu strength stockfish-match ladder model master tables kbnk chess0 clean

## help: this list of targets
help:
	@awk '/^## / {sub(/^## /, ""); i = index($$0, ":"); printf "  make %-18s %s\n", substr($$0, 1, i - 1), substr($$0, i + 2)}' $(MAKEFILE_LIST)


## install: the virtual environment .venv with the runtime packages and the pictures' (no torch)
install: $(STAMP)

# The engine needs only the runtime packages (pip install .); the demo, the reports and the tests
# draw pictures too: the extra plots (matplotlib).
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[plots]'
	touch $(STAMP)

# The tests also need their tools, torch to train a tiny model, and Ray to start a local cluster.
$(TEST_STAMP): $(STAMP)
	$(PY) -m pip install -q -e '.[test]'
	touch $(TEST_STAMP)

# The suite starts some 450 Python processes (engines, judges, workers). Where the environment sets
# PYTHONDONTWRITEBYTECODE, every one of them compiled the project's modules again (70 ms of each start,
# half a minute of the suite): the tests keep them compiled in __pycache__ (which git ignores).
SUITE := PYTHONDONTWRITEBYTECODE=

# The suite's tiers (docs/testing.md): make check, the edit loop's; make test, what a change can break, within 5
# minutes of pytest on 2 cores; make test-all, what CI runs: make test and the end-to-end scenarios of many seconds
# each (marked scenario: a Ray cluster's node killed, cbr-chess new killed at each stage, the wheel installed, the
# shipped numbers recomputed from the PGN, the longer browser journeys).
## test: lint (ruff, the import layers), type checks (mypy), then the suite but its scenarios, on 2 workers (5 minutes)
test: lint
	$(PY) -m mypy
	$(SUITE) $(PY) -m pytest -q -n 2 --dist loadgroup -m "not scenario"

## test-all: what CI runs: make test's checks, then the whole suite, its scenarios included (6 minutes)
test-all: lint
	$(PY) -m mypy
	$(SUITE) $(PY) -m pytest -q -n 2 --dist loadgroup

## check: the fast tier for the edit loop, within a minute: ruff, the import layers, the tests not marked slow
check: $(TEST_STAMP)
	$(PY) -m ruff check .
	$(VENV)/bin/lint-imports
	$(SUITE) $(PY) -m pytest -q -n 2 --dist loadgroup -m "not slow"

## docs: the options table of docs/usage.md, made from the option registry
docs: $(STAMP)
	$(PY) -m engine.agents.optiontable

# The browser app needs its server (the [web] extra) and the board widget, fetched from npm.
$(WEB_STAMP): $(STAMP)
	$(PY) -m pip install -q -e '.[web,plots]'
	touch $(WEB_STAMP)

WEB_ARGS ?=

## web: play the expert in a browser at http://127.0.0.1:8000 (WEB_ARGS, e.g. "--judge /usr/games/stockfish")
web: $(WEB_STAMP) casebases
	$(PY) -m web.vendor
	$(VENV)/bin/cbr-chess web $(WEB_ARGS)

# Training (make model, make personal) needs torch: the [train] extra.
$(TRAIN_STAMP): $(STAMP)
	$(PY) -m pip install -q -e '.[train]'
	touch $(TRAIN_STAMP)

## lint: ruff (its checks, and the format of the files formatted at line length 100), the import contracts (lint-imports)
lint: $(TEST_STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(VENV)/bin/lint-imports

# One casebase per shipped expert, named after its PGN, with the player's name from
# data/experts.tsv; a casebase is rebuilt only when its PGN, the registry or the builder changes.
CASEBASES := $(patsubst data/experts/%.pgn,casebases/%.npz,$(wildcard data/experts/*.pgn))
# Their cases' embeddings (make embeddings), for the learned similarity; said by make casebases where some are missing.
EMBEDDINGS := $(CASEBASES:%.npz=%.embed.npz)
EMBEDDINGS_AHEAD := casebases: pure mode's Similarity learned makes a casebase's embeddings on its first use, in the \
    background (the shallow similarity plays meanwhile); make embeddings makes them all ahead (13 minutes on 2 cores)
# The ladder: the experts marked so in data/experts.tsv, in the file's order (by rating).
LADDER := $(shell awk -F'\t' 'NR > 1 && $$4 == "yes" {print $$1}' data/experts.tsv)

# The experts whose judged positions ship (data/profiles/ID.jsonl): their casebases get a profile.
PROFILED := $(filter $(CASEBASES:casebases/%.npz=%),$(patsubst data/profiles/%.jsonl,%,$(wildcard data/profiles/*.jsonl)))

## casebases: one casebase per shipped expert (data/experts/*.pgn) into casebases/, with its error profile
casebases: $(CASEBASES) $(PROFILED:%=casebases/%.profile.npz)
	@$(if $(filter-out $(wildcard $(EMBEDDINGS)),$(EMBEDDINGS)),echo "$(EMBEDDINGS_AHEAD)")

# Each profiled one gets its error profile beside it (casebases/ID.profile.npz), fitted from the shipped
# judged positions (data/profiles/, made by make profiles) without a judge.
# (PROFILE_CODE: the code that fits and stores it, and the style networks whose prior its fit and records
# weigh, whose change refits them: a profile fitted with another network than the engine plays is refused.
# An own network stands here by its X.toml, which changes with it: named by its .pb.gz, which make knows how
# to make from the casebase, a fresh casebase would have make fit the network again.)
PROFILE_CODE = $(wildcard profiling/*.py) engine/strength/errormodel.py engine/strength/rating.py engine/strength/profile.py \
    engine/strength/calibration.py engine/strength/fitted.py engine/strength/models/fitted.json \
    $(wildcard engine/style/models/*.pb.gz engine/style/models/personal/*.toml)
# The games the shipped engines' games records are drawn from: the calibrated round robin of the seven
# ladder engines at 40/20 before those records (docs/results/2026-11-23-as-strong-as-the-expert.md,
# issue #29).
GAMES_PGN := data/games/round-robin-40-20.pgn
casebases/%.npz: data/experts/%.pgn data/experts.tsv $(wildcard casebase/*.py) | $(STAMP)
	$(PY) -m casebase build $< -o $@ \
	    --player "$$(awk -F'\t' '$$1 == "$*" {print $$2}' data/experts.tsv)"
casebases/%.profile.npz: casebases/%.npz $(PROFILE_CODE) $(wildcard data/profiles/*.jsonl) $(GAMES_PGN) | $(STAMP)
	$(call PROFILE,$<,$*,,data/profiles/$*.play.jsonl,data/profiles/$*.games.play.jsonl)

# $(call PROFILE,casebase,id[,flags[,play journal[,games play journal]]]): the error profile from
# data/profiles/id.jsonl, where it exists, the play-time record of the engine's own choices (strength.md §3)
# from the play journal, and the games record of its choices in positions of its own games (GAMES_PGN,
# judged in data/profiles/id.games.jsonl) from the games play journal, where those exist.
PROFILE = if [ -f data/profiles/$(2).jsonl ]; then $(PY) -m profiling $(1) --journal data/profiles/$(2).jsonl --quiet $(3) \
    $(if $(wildcard $(4)),--play $(4)) $(if $(wildcard $(5)),--engine-games $(GAMES_PGN) \
        --engine-games-journal data/profiles/$(2).games.jsonl --engine-games-play $(5)); fi
# The held-out casebases (the fidelity benches) keep the 400 positions their profiles were judged at;
# the shipped casebases have 1,200 (profiling's default, issue #29).
HELDOUT_POSITIONS := 400

# The judged positions behind the shipped profiles: every expert's casebase and its held-out casebase
# judged by JUDGE (Stockfish 15.1 made the shipped ones; about 8 minutes an expert on one core), and the
# engine's own choices on the first 400 of them played with JUDGE as the judge (data/profiles/id.play.jsonl
# and id.heldout.play.jsonl; about 4 minutes an expert).
## profiles: judge the shipped experts' own moves with Stockfish again (data/profiles/; 2 hours)
profiles: install $(CASEBASES) $(LADDER:%=casebases/heldout/%.npz) $(LADDER:%=casebases/heldout/%.model.npz)
	for id in $(patsubst casebases/%.npz,%,$(CASEBASES)); do \
	    $(PY) -m profiling casebases/$$id.npz --judge $(JUDGE) --journal data/profiles/$$id.jsonl \
	        --play data/profiles/$$id.play.jsonl \
	        $$(if [ -f data/profiles/$$id.games.play.jsonl ]; then echo --engine-games $(GAMES_PGN) \
	            --engine-games-journal data/profiles/$$id.games.jsonl --engine-games-play data/profiles/$$id.games.play.jsonl; fi) \
	        || exit 1; \
	    if [ -f casebases/heldout/$$id.npz ]; then \
	        $(PY) -m profiling casebases/heldout/$$id.npz --judge $(JUDGE) --journal data/profiles/$$id.jsonl \
	            --positions $(HELDOUT_POSITIONS) --play data/profiles/$$id.heldout.play.jsonl \
	            $$(if [ -f data/profiles/$$id.heldout.games.play.jsonl ]; then echo --engine-games $(GAMES_PGN) \
	                --engine-games-journal data/profiles/$$id.games.jsonl --engine-games-play data/profiles/$$id.heldout.games.play.jsonl; fi) \
	            || exit 1; fi; \
	done
	$(PY) -m experiments.profiles casebases/*.npz

## fitted: the rating line and the shipped parameters fitted across the profiles (engine/strength/models/fitted.json)
fitted: install casebases
	$(PY) -m profiling.fitted $(PROFILED:%=casebases/%.npz) --out engine/strength/models/fitted.json

## profile-report: the picture of Carlsen's error profile beside the other shipped experts' (docs/strength/)
profile-report: install casebases
	$(PY) -m profiling casebases/carlsen-2800.npz --report docs/strength/profile-carlsen.png

## bench: the speed benchmarks' tables (build, retrieval, start-up, tournament, search, the compiled search, model, tables)
bench: install
	$(PY) -m bench.build
	$(PY) -m bench.retrieval
	$(PY) -m bench.startup
	$(PY) -m bench.round_robin
	$(PY) -m bench.search
	$(PY) -m bench.compiled
	$(PY) -m bench.model
	$(PY) -m bench.tables

## bench-cluster: games per hour on a local Ray cluster of 1 and 2 nodes, beside the local pool (12 minutes; root)
bench-cluster: install casebases
	$(PY) -m pip install -q -e '.[cluster]'
	$(PY) -m bench.cluster --rounds 2

# The style model: a residual network trained on every move of the masters collection
# (data/masters-2500plus.pgn.gz, which holds no game of the ladder experts), written to
# engine/style/models/style.npz, the model the engine ships with, by the recipe engine/style/models/style.toml (a GPU's
# recipe; MODEL_ARGS override it, e.g. "--blocks 5 --filters 48 --positions 2500000" for about
# 40 minutes on 2 CPU cores). Needs torch (the project's [train] extra); resumable.
MODEL_ARGS ?=

## model: train the style model by engine/style/models/style.toml (torch; resumable)
model: casebases/masters.npz | $(TRAIN_STAMP)
	$(PY) -m learn train casebases/masters.npz -o engine/style/models/style.npz --recipe engine/style/models/style.toml $(MODEL_ARGS)

# The master network (learn/master_gpu.py): Maia-1900 fine-tuned on every master game, on a GPU. `make master-pack`
# packs the games (MASTERS_2300: the larger collection, not in the repository; the shipped experts' games and
# duplicates dropped) with the ladder experts' held-out casebases, whose latest training games choose the network
# (10 minutes on 2 cores; 13 MB). `make master` trains on it in two stages, close to the shipped network's
# (engine/style/models/master.toml, which it rewrites): that one's second stage went on from the first stage's
# last network (master-gpu writes its best check) and drew 55 % of the masters-2300plus games that masters-2500plus
# lacks (--share 0.4 of the whole pack matches it in size). A few minutes on an H200.
# `make master-cpu`: the older recipe for 2 CPU cores (learn/master.py, hours, resumable, .train/master-cpu.pb.gz).
MASTERS_2300 ?= ../shared/data/masters-2300plus.pgn.gz
MASTER_PACK ?= .train/master-pack.npz

## master-pack: the master games and the experts' latest games packed for a GPU (10 minutes)
master-pack: install $(LADDER:%=casebases/heldout/%.npz) | $(TRAIN_STAMP)
	$(PY) -m learn pack $(MASTER_PACK) --sources data/masters-2500plus.pgn.gz $(MASTERS_2300) \
	    --experts $(LADDER:%=casebases/heldout/%.npz)

## master: Maia-1900 fine-tuned on every packed master game into engine/style/models/master.pb.gz (a GPU: minutes)
master: | $(TRAIN_STAMP)
	$(PY) -m learn master-gpu $(MASTER_PACK) -o .train/master-stage1.pb.gz --positions 3358720
	$(PY) -m learn master-gpu $(MASTER_PACK) --start .train/master-stage1.pb.gz -o engine/style/models/master.pb.gz \
	    --positions 7073792 --share 0.4 --seed 7

## master-cpu: the older CPU recipe (a sample of masters-2500plus) into .train/master-cpu.pb.gz (hours, resumable)
master-cpu: | $(TRAIN_STAMP)
	$(PY) -m learn master --recipe engine/style/models/master-cpu.toml --out .train/master-cpu.pb.gz --checkpoints .train/master-cpu

# Personal models (learn/personal.py): for each shipped expert, the generic model's last block and head
# fitted to the expert's casebase as long as it helps on the expert's latest games, into
# engine/style/models/personal/ (shipped: the engine plays them for the shipped casebases). Needs torch;
# from 11 s (Kosteniuk) to 7 minutes (Ivanchuk) an expert on 2 cores, about 25 minutes in all.
EXPERTS := $(patsubst data/experts/%.pgn,%,$(wildcard data/experts/*.pgn))

## personal: a personal model for each shipped expert into engine/style/models/personal/ (torch; 25 minutes)
personal: $(EXPERTS:%=engine/style/models/personal/%.npz)

engine/style/models/personal/%.npz: casebases/%.npz | $(TRAIN_STAMP)
	$(PY) -m learn personalise $< -o $@

# The fidelity bench's personal models: made from the casebases without the held-out games.
casebases/heldout/%.model.npz: casebases/heldout/%.npz | $(TRAIN_STAMP)
	$(PY) -m learn personalise $< -o $@

# Each expert's own lc0 network (learn/own_network.py, docs/personal.md §1b): the default network's last two
# blocks and policy head fitted to the expert's games as long as it helps on the latest ones, with X.toml
# beside it naming the casebase (Model auto plays it for that casebase alone). Needs torch and lc0's backend;
# from 20 s (Kosteniuk) to 12 minutes (van Wely) an expert on 2 busy cores; `learn personalise --device cuda`: seconds.
## own-networks: each shipped expert's own lc0 network into engine/style/models/personal/ (torch; 45 minutes)
own-networks: $(EXPERTS:%=engine/style/models/personal/%.pb.gz)

engine/style/models/personal/%.pb.gz: casebases/%.npz | $(TRAIN_STAMP)
	$(PY) -m learn personalise $< -o $@

# The fidelity bench's own networks: made from the casebases without the held-out games.
casebases/heldout/%.pb.gz: casebases/heldout/%.npz | $(TRAIN_STAMP)
	$(PY) -m learn personalise $< -o $@

## identify: who played these? the ladder experts' own networks name the player of 20-game chunks of their held-out games
identify: install $(LADDER:%=casebases/heldout/%.pgn) $(LADDER:%=casebases/heldout/%.pb.gz)
	$(PY) -m fidelity identify --heldout $(LADDER:%=casebases/heldout/%.pgn) \
	    --networks $(LADDER:%=casebases/heldout/%.pb.gz) --games 20 --out results/identify/table.md

casebases/masters.npz: data/masters-2500plus.pgn.gz $(wildcard casebase/*.py) | $(STAMP)
	$(PY) -m casebase build $< --all-players -o $@

# Endgame tables (endgames.md §1-2): distance to mate for KQK, KRK, KBBK and KBNK by retrograde analysis
# into tables/ (about 5 minutes and 1.3 GB of memory on 2 cores, 2 MB on disk), each then checked
# against python-chess's rules on 2000 sampled positions. The engine makes KQK and KRK itself at
# first use (a second each); the four-man tables need this.
## tables: the endgame tables KQK, KRK, KBBK, KBNK into tables/ (about 5 minutes)
tables: install
	$(PY) -m endgame build
	$(PY) -m endgame check --positions 2000

# Bergbom's study (docs/results/2026-11-22-kbnk-networks.md): networks learn KBNK distance to mate from the
# tables, then play 100
# random positions against the tables' defence (needs make tables; about 10 minutes on 2 cores).
# KBNK_DEEP names a network made by `python -m learn kbnk-deep` (torch; 1 minute on a GPU) to play too.
KBNK_DEEP ?=

## kbnk: Bergbom's KBNK networks, trained and played (about 10 minutes)
kbnk: tables
	$(PY) -m learn kbnk --designs study mutual best $(if $(KBNK_DEEP),--deep $(KBNK_DEEP))

# Chess0's classic against its adaptive engine (endgames.md §3): 100 games, mode chess0, no casebase,
# into results/chess0/ (resumable; about an hour on 2 cores).
CHESS0 = cmd='$(PY) uci_main.py --mode chess0'

## chess0: Chess0's classic against its adaptive engine, 100 games (about an hour)
chess0: install
	$(PY) -m tournament run --configs balanced --rounds 50 --tc 40/60 --out results/chess0 \
	    --event "Chess0 classic vs adaptive" \
	    --engine "name=classic $(CHESS0) option.Style=classic option.Depth=3" \
	    --engine "name=adaptive $(CHESS0) option.Style=adaptive option.Depth=3 option.DepthDeviation=1"

# The demo builds only the two casebases it plays (seconds): the other eight and the error profiles
# (about a minute on 2 cores) stay make casebases's, since the demo's engines play without a judge,
# where no profile is read (Selection auto is argmax).
DEMO_WHITE := casebases/carlsen-2800.npz
DEMO_BLACK := casebases/ivanchuk-2700.npz

## demo: Carlsen against Ivanchuk in guided mode, each side a UCI engine process, every move explained
demo: install $(DEMO_WHITE) $(DEMO_BLACK)
	$(PY) -m tournament demo --white $(DEMO_WHITE) --black $(DEMO_BLACK)

# The thesis's experiment on the seven FIDE experts: 5 configurations x 42 ordered pairs x 3 rounds
# = 630 pure-mode games at 40/5400 into results/ (run it again to resume an interrupted run).

## experiment: the thesis's round robin of the seven experts, 630 pure-mode games at 40/90
experiment: install casebases
	$(PY) -m tournament run --casebases $(LADDER:%=casebases/%.npz) --configs thesis \
	    --rounds 3 --mode pure --tc 40/5400 --out results

# Fidelity (experiment.md): per FIDE expert, a casebase without the latest 15 % of the games and those
# games as PGN (casebases/heldout/), then how often each mode plays the expert's own move in
# FIDELITY_POSITIONS of them (results/fidelity/ID.json), and one table over the experts
# (results/fidelity/summary.md and .png), and the personal prior against the generic model alone, paired.
# About 10 minutes on 2 cores with the defaults, after 25 to make the held-out casebases' personal models.
FIDELITY_POSITIONS ?= 200
FIDELITY_MODES ?= pure pure-learned generic prior alphabeta guided stockfish
HELD_OUT := 0.15
EXPERT_NAME = "$$(awk -F'\t' '$$1 == "$*" {print $$2}' data/experts.tsv)"

## fidelity: how often each mode plays the expert's own move on held-out games (10 minutes; personalising 25 more)
fidelity: install $(LADDER:%=casebases/heldout/%.npz) $(LADDER:%=casebases/heldout/%.pgn) $(LADDER:%=casebases/heldout/%.model.npz) $(LADDER:%=casebases/heldout/%.pb.gz) $(LADDER:%=casebases/heldout/%.profile.npz) $(LADDER:%=casebases/heldout/%.embed.npz)
	for id in $(LADDER); do \
	    $(PY) -m fidelity run --casebase casebases/heldout/$$id.npz --heldout casebases/heldout/$$id.pgn \
	        --modes $(FIDELITY_MODES) --positions $(FIDELITY_POSITIONS) --out results/fidelity/$$id.json || exit 1; \
	done
	$(PY) -m fidelity summary $(LADDER:%=results/fidelity/%.json) --out results/fidelity/summary.md
	$(PY) -m fidelity compare prior generic $(LADDER:%=results/fidelity/%.json)

# Each expert's personal model on each expert's held-out games (the models alone, no cases), into
# results/personal/: the table and its heat map; then what every personal model gained on its
# expert's latest games against the expert's games, as a table and a plot (a few minutes).
## personal-table: the cross-expert table of personal models (heat map), and their gains (plot)
personal-table: install $(LADDER:%=casebases/heldout/%.npz) $(LADDER:%=casebases/heldout/%.pgn) $(LADDER:%=casebases/heldout/%.model.npz)
	$(PY) -m fidelity personal-table $(LADDER:%=casebases/heldout/%.npz) --out results/personal/table.md
	$(PY) -m fidelity personal-gains $(wildcard engine/style/models/personal/*.npz) --out results/personal/gains.md

# The outside judge (search.md §7): guided mode's proposals judged by JUDGE at depth 10 ("judged"),
# the error model's likeliest move and its draw among them ("judged-likely", "judged-calibrated"; strength.md) and
# JUDGE alone at depth 10 ("stockfish"), on make fidelity's positions, into results/judge/; then
# the table and the paired differences judged - stockfish and judged-likely - judged. About 8 minutes.
JUDGE ?= /usr/games/stockfish

## fidelity-judge: the same with a Stockfish judge, the error model's choices, and Stockfish alone (8 minutes)
fidelity-judge: install $(LADDER:%=casebases/heldout/%.npz) $(LADDER:%=casebases/heldout/%.pgn) $(LADDER:%=casebases/heldout/%.model.npz) $(LADDER:%=casebases/heldout/%.pb.gz) $(LADDER:%=casebases/heldout/%.profile.npz)
	for id in $(LADDER); do \
	    $(PY) -m fidelity run --casebase casebases/heldout/$$id.npz --heldout casebases/heldout/$$id.pgn \
	        --modes judged judged-likely judged-calibrated stockfish --judge $(JUDGE) --positions $(FIDELITY_POSITIONS) --out results/judge/$$id.json || exit 1; \
	done
	$(PY) -m fidelity summary $(LADDER:%=results/judge/%.json) --out results/judge/summary.md
	$(PY) -m fidelity compare judged stockfish $(LADDER:%=results/judge/%.json)
	$(PY) -m fidelity compare judged-likely judged $(LADDER:%=results/judge/%.json)

# Where guided mode's fidelity comes from (prior, search, their combination) and the most a
# perfect choice among its sound proposals could reach, on make fidelity's positions. ~6 minutes.
## fidelity-ceiling: where guided mode's fidelity comes from, and its ceiling (6 minutes)
fidelity-ceiling: install $(LADDER:%=casebases/heldout/%.npz) $(LADDER:%=casebases/heldout/%.pgn)
	$(PY) -m experiments.fidelity_ceiling --positions $(FIDELITY_POSITIONS)

casebases/heldout/%.npz: data/experts/%.pgn data/experts.tsv $(wildcard casebase/*.py) | $(STAMP)
	$(PY) -m casebase build $< -o $@ --exclude-latest $(HELD_OUT) --player $(EXPERT_NAME)
# made once the held-out personal model and own network are: its records' fit is with the model the benches play
# (Model auto: the own network), and a profile whose records were made with another network is refused
casebases/heldout/%.profile.npz: casebases/heldout/%.npz casebases/heldout/%.model.npz casebases/heldout/%.pb.gz $(PROFILE_CODE) $(wildcard data/profiles/*.jsonl) $(GAMES_PGN) | $(STAMP)
	$(call PROFILE,$<,$*,--positions $(HELDOUT_POSITIONS),data/profiles/$*.heldout.play.jsonl,data/profiles/$*.heldout.games.play.jsonl)

# The cases' embeddings for the learned similarity (pure mode's Similarity learned, cbr-agent.md §4.1), by the
# default network's trunk: about 2 minutes for 100,000 cases on 2 cores (the ten experts' 573,671 in 12m39s). The
# engine makes a casebase's on their first use, in the background; this makes them ahead.
EMBED_NETWORK := engine/style/models/master.pb.gz
casebases/%.embed.npz: casebases/%.npz $(EMBED_NETWORK) casebase/embeddings.py $(wildcard lc0net/*.py) | $(STAMP)
	$(PY) -m casebase embed $< --network $(EMBED_NETWORK) --quiet

## embeddings: every shipped casebase's embeddings, for option Similarity learned (about 13 minutes on 2 cores)
embeddings: $(EMBEDDINGS)

casebases/heldout/%.pgn: data/experts/%.pgn data/experts.tsv $(wildcard casebase/*.py) | $(STAMP)
	$(PY) -m casebase holdout $< -o $@ --latest $(HELD_OUT) --player $(EXPERT_NAME)

# The guided Carlsen against Stockfish 15.1 (UCI_LimitStrength) at UCI_Elo
# 1350 and 1800, MATCH_GAMES games each at MATCH_TC, 2 workers, into bench/out/ (resumable;
# about an hour with the defaults on 2 cores). Needs /usr/games/stockfish (apt-get install stockfish).
MATCH_GAMES ?= 100
MATCH_TC ?= 40/20

## stockfish-match: the guided Carlsen against Stockfish at UCI_Elo 1350 and 1800 (about an hour)
stockfish-match: install casebases
	$(PY) -m experiments.strength --games $(MATCH_GAMES) --tc $(MATCH_TC)

# As strong as the expert (strength.md §5): each ladder expert's calibrated engine (guided, Selection
# calibrated, judged by JUDGE) against Stockfish at LADDER_ELOS, LADDER_GAMES games a level at LADDER_TC,
# into bench/out/ladder/ (resumable), with the plot; then the calibrated round robin of the seven,
# CALIBRATED_ROUNDS rounds at CALIBRATED_TC, into results/calibrated/: what
# docs/results/2026-11-23-as-strong-as-the-expert.md reports ("The ladder",
# "The calibrated round robin"). Hours on 2 cores: give LADDER_ARGS="--cluster ADDRESS".
LADDER_ELOS ?= 1800 2200 2600
LADDER_GAMES ?= 6
LADDER_TC ?= 40/10
CALIBRATED_ROUNDS ?= 6
CALIBRATED_TC ?= 40/20

## ladder: the calibrated engines against Stockfish's UCI_Elo ladder, then their round robin (hours)
ladder: install casebases
	$(PY) -m experiments.ladder --elos $(LADDER_ELOS) --games $(LADDER_GAMES) --tc $(LADDER_TC) --judge $(JUDGE) \
	    --plot docs/strength/ladder.png $(LADDER_ARGS)
	$(PY) -m tournament run --casebases $(LADDER:%=casebases/%.npz) --mode guided --configs balanced \
	    --rounds $(CALIBRATED_ROUNDS) --tc $(CALIBRATED_TC) --judge $(JUDGE) --option Selection=calibrated --out results/calibrated

# The calibrated round robin's figures made again (docs/results/2026-11-23-as-strong-as-the-expert.md,
# "The calibrated round robin"): STRENGTH_RUNS
# runs (seeds 0, 1, ...) of the seven ladder engines judged by JUDGE at CALIBRATED_TC, CALIBRATED_ROUNDS rounds,
# each engine then rated by its moves (experiments/intrinsic.py), into results/strength/run-K/ with their
# reports and plots; then the spread over the runs (results/strength/summary.md, .png). Resumable; about 1.5
# hours a run on 2 cores. STRENGTH_ARGS: e.g. "--cluster ADDRESS", "--games-records" (the games records
# made again from each run's games, into copies of the casebases; "--games-records --ship": run 1's into data/).
STRENGTH_RUNS ?= 3
STRENGTH_ARGS ?=

## strength: the calibrated round robin, its intrinsic ratings and plots, STRENGTH_RUNS runs and their spread (hours)
strength: install casebases
	$(PY) -m experiments.calibrated --runs $(STRENGTH_RUNS) --rounds $(CALIBRATED_ROUNDS) --tc $(CALIBRATED_TC) \
	    --judge $(JUDGE) --out results/strength $(STRENGTH_ARGS)

## clean: remove the environment and everything built
clean:
	rm -rf $(VENV) casebases results bench/out tables
