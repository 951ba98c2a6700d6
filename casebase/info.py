"""Describing a casebase in words: the build summary, its error profile's line, and ``python -m
casebase info``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from casebase.format import Casebase
from casebase.profilefile import profile_path
from casebase.speed import SPEEDS, UNKNOWN


def summary(casebase: Casebase) -> str:
    """One paragraph: the expert, accepted spellings, games used and skipped, cases, Elo."""
    meta, counts = casebase.meta, casebase.meta["counts"]
    spellings = meta.get("spellings") or {}
    skipped = [
        f"{counts.get(key, 0)} {label}"
        for key, label in (
            ("games_without_expert", "without the expert"),
            ("games_both_match", "with the expert on both sides (skipped)"),
            ("games_variant_skipped", "of a non-standard variant (skipped)"),
            ("games_elo_filtered", "outside the rating range"),
            (
                "games_speed_filtered",
                f"of another speed than {meta.get('options', {}).get('speed')}",
            ),
            ("games_held_out", "held out as the latest"),
            ("games_beyond_max_games", "beyond --max-games"),
        )
        if counts.get(key) or key == "games_without_expert"
    ]
    parts = [
        f"{casebase.expert}:",
        f"{counts['games_used']} games used of {counts['games_read']} read"
        f" ({', '.join(skipped)}; {counts['games_damaged']} damaged, kept up to the bad move);",
        f"{len(casebase)} cases ({counts['cases_white']} as White, {counts['cases_black']} as"
        " Black);",
        f"median own Elo {_elo(casebase)}.",
    ]
    if spellings:
        parts.insert(
            1,
            "spellings "
            + ", ".join(
                f"{name!r} ({n})"
                for name, n in sorted(spellings.items(), key=lambda s: (-s[1], s[0]))
            )
            + ";",
        )
    return " ".join(parts)


def _elo(casebase: Casebase) -> str:
    return "unknown" if casebase.elo is None else str(casebase.elo)


def _rows(*columns: np.ndarray) -> np.ndarray:
    """Each row of the columns side by side as one opaque value, for exact np.unique."""
    table = np.ascontiguousarray(np.column_stack([np.asarray(c, dtype=np.uint64) for c in columns]))
    return table.view(np.dtype((np.void, 8 * table.shape[1]))).ravel()


def first_moves(casebase: Casebase, white: bool, top: int = 5) -> list[tuple[str, int]]:
    """The expert's most frequent first moves with ``white`` (or black), in SAN, with counts."""
    rows = np.flatnonzero((np.asarray(casebase.ply) <= 1) & (np.asarray(casebase.turn) == white))
    _, first, times = np.unique(
        _rows(
            casebase.boards[rows],
            casebase.from_square[rows],
            casebase.to_square[rows],
            casebase.promotion[rows],
        ),
        return_index=True,
        return_counts=True,
    )
    counts: Counter[str] = Counter()
    for i, n in zip(rows[first], times):
        counts[_san(casebase, int(i))] += int(n)
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:top]


def _san(casebase: Casebase, i: int) -> str:
    board, move = casebase.board(i), casebase.move(i)
    return board.san(move) if board.is_legal(move) else move.uci()


def distinct_positions(casebase: Casebase) -> int:
    """Number of different (pieces, side to move) positions among the cases."""
    return len(np.unique(_rows(casebase.boards, casebase.turn))) if len(casebase) else 0


def speed_counts(casebase: Casebase) -> dict[str, tuple[int, int]]:
    """Games and cases of each speed class (:data:`casebase.speed.SPEEDS`, then unknown), every
    class named."""
    games, cases = Counter(casebase.game_speeds().tolist()), Counter(casebase.speeds().tolist())
    return {speed: (games[speed], cases[speed]) for speed in (*SPEEDS, UNKNOWN)}


def describe_profile(casebase: Casebase) -> str:
    """The ``error profile:`` line: what ``meta["profile"]`` says of the fit and the judged moves
    (docs/strength.md; ``python -m profiling`` stores it, :mod:`engine.strength.profile` reads the
    arrays)."""
    meta = casebase.meta.get("profile")
    if casebase.profile_problem is not None:
        return (
            f"refused: {casebase.profile_problem} (the engine plays the cases without calibration)"
        )
    if casebase.profile is None or not isinstance(meta, dict):
        return "none (python -m profiling FILE.npz --judge PATH makes one)"
    f, r, a = meta["fit"], meta["rating"], meta["all"]
    # profiles stored before the bootstrap's own interval was kept have only the widened one
    boot = (
        f"positions' bootstrap {r['bootstrap_low']:.0f}..{r['bootstrap_high']:.0f}, "
        if "bootstrap_low" in r
        else ""
    )
    return (
        f"s {f['sensitivity']:.4f}, c {f['consistency']:.2f}; implied rating {r['implied']:.0f}"
        f" (95 %: {boot}{r['low']:.0f}..{r['high']:.0f} with the line's spread);"
        f" {meta['positions']} positions judged by {meta.get('judge')}"
        f" at depth {meta.get('depth')}: mean loss {a['mean_cp_loss']:.1f} cp,"
        f" {100 * a['mistakes']:.1f} %"
        # the profiles stored without their threshold were made with 50 cp
        f" lose {meta.get('mistake_cp', 50)} cp or more, {100 * a['first_choice']:.1f} % the"
        " judge's first choice" + _play_record(meta)
    )


def describe_speeds(casebase: Casebase) -> str | None:
    """The ``by speed:`` line: each speed class's implied rating and loss where the profile fits it
    (docs/strength.md §1), the judged positions of the classes too few to fit, and of the games of
    no known speed (never fitted, whatever their number); None for a profile made without."""
    meta = casebase.meta.get("profile")
    if casebase.profile is None or not isinstance(meta, dict) or "speed_positions" not in meta:
        return None
    fitted = [
        _speed(speed, values, meta.get("mistake_cp", 50))
        for speed, values in meta["speeds"].items()
    ]
    counts = meta["speed_positions"]
    others = [
        f"{speed} {n}"
        for speed, n in counts.items()
        if n and speed not in meta["speeds"] and speed != UNKNOWN
    ]
    return "; ".join(
        [
            *(fitted or ["no speed class has enough judged positions for a fit of its own"]),
            *([f"too few to fit (positions): {', '.join(others)}"] if others else []),
            *([f"no known speed: {counts[UNKNOWN]} positions"] if counts.get(UNKNOWN) else []),
        ]
    )


def _speed(speed: str, values: dict[str, Any], mistake_cp: int) -> str:
    """One speed class's implied rating, its interval and its loss, in words."""
    rating, stats = values["rating"], values["all"]
    return (
        f"{speed} {rating['implied']:.0f} ({rating['low']:.0f}..{rating['high']:.0f}) from"
        f" {values['positions']} positions, mean loss {stats['mean_cp_loss']:.1f} cp,"
        f" {100 * stats['mistakes']:.1f} % lose {mistake_cp} cp or more"
    )


def _provenance(casebase: Casebase) -> str:
    """The ``profile file:`` line: where the error profile is and what made it, or that there is
    none."""
    if casebase.profile_inside:
        return f"inside the casebase file: split it with python -m casebase split {casebase.path}"
    made = casebase.meta.get("profile", {}).get("provenance")
    if casebase.profile is None or not isinstance(made, dict):
        return "none"
    model = made["model_sha256"]
    return (
        f"{profile_path(made['casebase']).name}, made {made['made']} by {made['project']} for"
        f" {made['casebase']} (SHA-256 {made['casebase_sha256'][:12]}…)"
        + (f", records with the model {model[:12]}…" if model else "")
    )


def _play_record(meta: dict[str, Any]) -> str:
    """What the play-time record adds to the ``error profile:`` line (strength.md §3), or
    nothing."""
    play = meta.get("play")
    if not isinstance(play, dict):
        return (
            "; no play-time record (python -m profiling FILE.npz --judge PATH --play J.jsonl"
            " makes one)"
        )
    games = meta.get("games")
    return (
        f"; play-time record of {play['positions']} positions (the engine's judge at depth"
        f" {play['judge_depth']})"
        + (
            f"; games record of {games['positions']} positions of {games['player']}'s games"
            if isinstance(games, dict)
            else ""
        )
    )


def describe(casebase: Casebase, more: Sequence[tuple[str, str]] = ()) -> str:
    """The multi-line report of ``python -m casebase info``; ``more`` adds lines (label, text) that
    the layers above say of the expert (``cbr-chess info``: the tendencies)."""
    meta = casebase.meta
    lines = [
        f"expert:        {casebase.expert}",
        f"median Elo:    {_elo(casebase)}",
        f"games:         {casebase.num_games}",
        f"cases:         {len(casebase)} ({meta['counts'].get('cases_white', 0)} as White,"
        f" {meta['counts'].get('cases_black', 0)} as Black)",
        f"positions:     {distinct_positions(casebase)} distinct",
        "speeds:        "
        + ", ".join(
            f"{speed} {games} games ({cases} cases)"
            for speed, (games, cases) in speed_counts(casebase).items()
        ),
    ]
    for colour, white in (("White", True), ("Black", False)):
        moves = first_moves(casebase, white)
        lines.append(
            f"first moves as {colour}: "
            + (", ".join(f"{san} {n}" for san, n in moves) if moves else "none")
        )
    if casebase.path is not None:
        lines.append(f"file:          {casebase.path} ({casebase.path.stat().st_size:,} bytes)")
    lines.append("sources:")
    lines.extend(
        f"  {source.get('name')}: {source.get('games')} games read, sha256 {source.get('sha256')}"
        for source in meta["sources"]
    )
    lines.append("error profile: " + describe_profile(casebase))
    by_speed = describe_speeds(casebase)
    if by_speed is not None:
        lines.append("by speed:      " + by_speed)
    lines.append("profile file:  " + _provenance(casebase))
    lines.extend(f"{label + ':':<15}{text}" for label, text in more)
    lines.append("summary:       " + summary(casebase))
    return "\n".join(lines)
