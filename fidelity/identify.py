"""Who played these? Each expert's own network (``learn personalise``) asked how likely the moves of
a chunk of held-out games are: the expert whose network gives them the highest mean log-likelihood
is named, as McIlroy-Young et al. ("Learning Models of Individual Behavior in Chess", 2022) named
players.

    python -m fidelity identify --heldout casebases/heldout/*.pgn --networks
        casebases/heldout/*.pb.gz --games 20

Files pair by name (``ID.pgn`` with ``ID.pb.gz``); each network's ``ID.toml`` names its expert,
whose moves in the PGN are asked (each position with its game's history, as the engine sees it). A
network made from the same games it is asked about would know them: give it the held-out games of a
casebase it was not made on.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import chess
import numpy as np
from tqdm import tqdm

from common.stats import chunks_by_group
from engine.style.lc0 import load_network
from engine.style.loader import PriorModel
from fidelity.positions import Position, read_positions


@dataclass
class Identification:
    """For each expert's held-out games (rows): the log-likelihood of each of their moves under each
    network (columns), and the chunks of ``games`` games they split into (position indices)."""

    experts: list[str]
    likelihoods: dict[str, np.ndarray]  # row ID -> positions x networks
    chunks: dict[str, list[list[int]]]
    games: int

    def firsts(self, row: str) -> int:
        """How many of the row's chunks rank the row's own network first."""
        own = self.experts.index(row)
        return sum(
            int(np.argmax(self.likelihoods[row][chunk].mean(axis=0)) == own)
            for chunk in self.chunks[row]
        )

    def rank_on_all(self, row: str) -> int:
        """Where the row's own network ranks on all of the row's positions together (1: first)."""
        means = self.likelihoods[row].mean(axis=0)
        return 1 + int((means > means[self.experts.index(row)]).sum())


@dataclass
class Asked:
    """The expert's positions as the networks are asked about them: each board with its game's moves
    behind it, its legal moves, and the move the expert played."""

    boards: list[chess.Board]
    legal: list[list[chess.Move]]
    played: list[chess.Move]

    @classmethod
    def of(cls, positions: Sequence[Position]) -> Asked:
        boards = [p.board() for p in positions]
        return cls(
            boards,
            [list(b.legal_moves) for b in boards],
            [chess.Move.from_uci(p.expert) for p in positions],
        )


def log_likelihoods(network: PriorModel, asked: Asked) -> np.ndarray:
    """The log of ``network``'s probability of the expert's move in each position ``asked``."""
    priors = network.priors(asked.boards, asked.legal)
    return np.array(
        [math.log(max(prior.get(move, 0.0), 1e-12)) for move, prior in zip(asked.played, priors)]
    )


def identify(
    heldout: Sequence[Path], networks: Sequence[Path], games: int, progress: bool | None = None
) -> Identification:
    """Every held-out file's expert moves asked of every network (:class:`Identification`), a
    progress bar on stderr (by default where it is a terminal); ValueError where the files do not
    pair by name or a network does not say whose it is."""
    ids = {path.name.removesuffix(".pb.gz"): path for path in networks}
    pgns = {path.stem: path for path in heldout}
    if set(ids) != set(pgns):
        raise ValueError(
            f"held-out games and networks pair by name: {', '.join(sorted(set(ids) ^ set(pgns)))}"
            " have no partner"
        )
    loaded = {name: load_network(path) for name, path in sorted(ids.items())}
    experts = list(loaded)
    asked = {}
    for name in experts:
        personal = loaded[name].personal
        if personal is None or not personal.get("expert"):
            raise ValueError(
                f"{ids[name]}: its .toml names no expert (make it with python -m learn personalise)"
            )
        asked[name] = read_positions(pgns[name], str(personal["expert"])).positions
    likelihoods, chunks = {}, {}
    with tqdm(
        total=len(experts) * sum(map(len, asked.values())),
        unit="pos",
        desc="who played these",
        file=sys.stderr,
        disable=not (sys.stderr.isatty() if progress is None else progress),
    ) as bar:
        for name, positions in asked.items():
            # the boards replayed once, asked of every network
            columns, questions = [], Asked.of(positions)
            for other in experts:
                columns.append(log_likelihoods(loaded[other], questions))
                bar.update(len(positions))
            likelihoods[name] = np.stack(columns, axis=1)
            chunks[name] = chunks_by_group([p.game for p in positions], games)
    return Identification(experts, likelihoods, chunks, games)


def table(result: Identification) -> str:
    """Markdown: each expert's chunks, how many name them first, their rank on all their positions,
    and the mean log-likelihood of their moves under each network."""
    head = [
        "| held-out games \\ network | positions | chunks | first | rank on all |",
        "|---|---|---|---|---|",
    ]
    head[0] += "".join(f" {name} |" for name in result.experts)
    head[1] += "---|" * len(result.experts)
    rows = []
    for name in result.experts:
        means = result.likelihoods[name].mean(axis=0)
        rows.append(
            f"| {name} | {len(result.likelihoods[name])} | {len(result.chunks[name])} |"
            f" {result.firsts(name)}/{len(result.chunks[name])} | {result.rank_on_all(name)} |"
            + "".join(f" {value:.4f} |" for value in means)
        )
    firsts = sum(result.firsts(name) for name in result.experts)
    total = sum(len(result.chunks[name]) for name in result.experts)
    return "\n".join(
        [
            f"The true expert's network first in {firsts} of {total} chunks of {result.games} games"
            f" ({100 * firsts / max(1, total):.0f} %; chance {100 / len(result.experts):.0f} %).",
            "",
            *head,
            *rows,
        ]
    )
