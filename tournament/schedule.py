"""The round robin's schedule and per-side seeds (experiment.md §1).

For every configuration and every ordered pair (White, Black) of distinct players, ``rounds``
games, listed configuration by configuration, then round by round, then pair by pair.
Every side of every game gets its own seed from one master seed through
:class:`numpy.random.SeedSequence`, keyed by (configuration, White, Black, round, colour):
names, not list positions, so adding a player leaves the other games' seeds alone.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import chess
import numpy as np

from engine.agents.modes import SEED_MAX
from engine.cbr.configurations import Configuration


@dataclass(frozen=True)
class GameSpec:
    """One scheduled game: position ``index`` in the schedule, and what makes it reproducible."""

    index: int
    config_number: int  # 1-based, the "c" of Round "c.r"
    config: Configuration
    round: int  # 1-based repetition of this ordered pair
    white: str
    black: str
    white_seed: int
    black_seed: int

    @property
    def round_tag(self) -> str:
        return f"{self.config_number}.{self.round}"


def _name_key(text: str) -> int:
    """A stable 64-bit integer for a name (Python's hash() changes between runs)."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


def side_seed(
    master: int, config: Configuration, white: str, black: str, round_: int, colour: chess.Color
) -> int:
    """The seed (1 .. SEED_MAX, the UCI engine's Seed option, where 0 means "random")."""
    key = (_name_key(config.label), _name_key(white), _name_key(black), round_, int(colour))
    state = np.random.SeedSequence(master, spawn_key=key).generate_state(1, np.uint64)
    return int(state[0]) % SEED_MAX + 1


def build_schedule(
    players: Sequence[str],
    configs: Sequence[Configuration],
    rounds: int,
    master_seed: int,
    *,
    reference: Sequence[str] = (),
) -> list[GameSpec]:
    """All games of the round robin in schedule order.

    ``reference`` players (outside engines) meet every other player like the rest, but
    not each other: their games would tell nothing about the casebases.
    """
    names = list(players)
    if len(set(names)) != len(names):
        raise ValueError(f"player names must be distinct: {names}")
    if not set(reference) <= set(names):
        raise ValueError("every reference player must be a player")
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, not {rounds}")
    if master_seed < 0:
        raise ValueError(f"the master seed must be a non-negative integer, not {master_seed}")
    specs: list[GameSpec] = []
    for number, config in enumerate(configs, start=1):
        for round_ in range(1, rounds + 1):
            for white, black in itertools.permutations(names, 2):
                if white in reference and black in reference:
                    continue
                specs.append(
                    GameSpec(
                        index=len(specs),
                        config_number=number,
                        config=config,
                        round=round_,
                        white=white,
                        black=black,
                        white_seed=side_seed(
                            master_seed, config, white, black, round_, chess.WHITE
                        ),
                        black_seed=side_seed(
                            master_seed, config, white, black, round_, chess.BLACK
                        ),
                    )
                )
    return specs
