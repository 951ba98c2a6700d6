"""A played game as a PGN record with the experiment's tags (experiment.md §2), and back."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import chess
import chess.pgn

from engine.outside.clock import TimeControl
from tournament.game import WHITE_POINTS, GameRecord, points
from tournament.schedule import GameSpec


@dataclass(frozen=True)
class RunTags:
    """The tags that are the same for every game of a run."""

    event: str
    site: str
    date: str  # PGN form, "2025.01.31"
    control: TimeControl
    mode: str


def game_pgn(record: GameRecord, spec: GameSpec, tags: RunTags, elos: dict[str, int | None]) -> str:
    """The PGN text of a finished scheduled game (one record, ending with a blank line)."""
    game = chess.pgn.Game.from_board(record.board)
    h = game.headers
    h["Event"], h["Site"], h["Date"] = tags.event, tags.site, tags.date
    h["Round"], h["White"], h["Black"] = spec.round_tag, spec.white, spec.black
    h["Result"] = record.result
    h["WhiteElo"], h["BlackElo"] = _elo(elos.get(spec.white)), _elo(elos.get(spec.black))
    h["TimeControl"] = str(tags.control)
    h["Termination"] = record.termination
    h["PlyCount"] = str(record.plies)
    h["WeightConfig"] = spec.config.label
    h["Mode"] = tags.mode
    h["WhiteSeed"], h["BlackSeed"] = str(spec.white_seed), str(spec.black_seed)
    h["TimeRequirementMet"] = "yes" if record.clock.requirement_met else "no"
    return (
        game.accept(chess.pgn.StringExporter(headers=True, variations=False, comments=False))
        + "\n\n"
    )


def _elo(elo: int | None) -> str:
    return "-" if elo is None else str(elo)


def elo_tag(value: str) -> int | None:
    """The rating of a ``WhiteElo``/``BlackElo`` value, None when unknown."""
    try:
        return int(value)
    except ValueError:
        return None


@dataclass(frozen=True)
class GameResult:
    """What the report needs of one game, read from its PGN tags."""

    config_number: int
    round: int
    config_label: str
    white: str
    black: str
    white_elo: int | None
    black_elo: int | None
    result: str
    termination: str
    plies: int
    time_met: bool

    def score(self, player: str) -> float:
        """Points ``player`` scored in this game (0, 0.5 or 1)."""
        return points(self.result, player == self.white)

    @property
    def decisive(self) -> bool:
        return self.result in ("1-0", "0-1")


def read_results(source: Path | str | TextIO) -> Iterator[GameResult]:
    """Every finished game of a PGN file (or text stream) with the experiment's tags.

    Raises ValueError naming the game when a tag is missing or malformed.
    """
    stream = open(source, encoding="utf-8") if isinstance(source, (str, Path)) else source
    with stream:
        number = 0
        while (headers := chess.pgn.read_headers(stream)) is not None:
            number += 1
            try:
                config, round_ = (int(x) for x in headers["Round"].split("."))
                result = headers["Result"]
                if result not in WHITE_POINTS:
                    continue  # an unfinished game carries no score
                yield GameResult(
                    config_number=config,
                    round=round_,
                    config_label=headers["WeightConfig"],
                    white=headers["White"],
                    black=headers["Black"],
                    white_elo=elo_tag(headers.get("WhiteElo", "-")),
                    black_elo=elo_tag(headers.get("BlackElo", "-")),
                    result=result,
                    termination=headers.get("Termination", "?"),
                    plies=int(headers.get("PlyCount", 0)),
                    time_met=headers.get("TimeRequirementMet") == "yes",
                )
            except (KeyError, ValueError) as exc:
                raise ValueError(f"game {number}: missing or malformed tag ({exc})") from None
