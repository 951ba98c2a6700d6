"""``python -m learn.chooser fit|evaluate|cross|ceiling|strength|convert|tendencies|who|identify``:
fit the chooser on records of judged positions, measure it on experts' records beside ``Selection
likely`` (``cross``: each expert by the chooser fitted on the others'; ``ceiling``: fitted on the
records themselves, the most its features give; ``strength``: drawn at the engine's strength beside
``Selection calibrated``), make records from a play-time record; fit each expert's tendencies on the
expert's records, rank the experts for records of anyone's games (``who``) and measure how often
that names the true expert (``identify``)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import chess.engine
import numpy as np

from casebase.format import CasebaseError
from common.cli import positive_int
from common.files import file_sha256
from engine.outside.launch import LaunchError
from engine.strength.chooser import Chooser, ChooserError
from engine.strength.tendencies import TendencyError
from engine.style.model import ModelError
from learn.chooser.ceiling import ceiling
from learn.chooser.convert import convert, write_records
from learn.chooser.evaluate import cross, default_calibration, evaluate, table
from learn.chooser.fit import DEFAULT_L2, fit
from learn.chooser.records import Record, RecordError, read_records
from learn.chooser.strength import REFERENCE_POSITIONS, reading, reference_of, strength_table
from learn.chooser.tendencies import (
    DEFAULT_PRIOR_SD,
    fit_tendencies,
    identification,
    load_pair,
    rank,
)


def _expert_file(text: str) -> tuple[str, Path]:
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give EXPERT=FILE.jsonl (EXPERT: the casebase's name, e.g. carlsen-2800)"
        )
    return name, Path(path)


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text}: give a number above 0")
    return value


def _nonnegative_float(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"{text}: give a number of at least 0")
    return value


def _add_records(parser: argparse.ArgumentParser, folder: str | None) -> None:
    """The experts' records (--records EXPERT=FILE) and where their casebases are
    (--casebase-folder, ``folder`` its help), as the commands that measure by expert take them."""
    parser.add_argument(
        "--records", nargs="+", type=_expert_file, required=True, metavar="EXPERT=FILE"
    )
    parser.add_argument("--casebase-folder", type=Path, default=Path("casebases"), help=folder)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m learn.chooser", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    fitting = commands.add_parser("fit", help="fit the chooser's weights on records (JSON lines)")
    fitting.add_argument("records", nargs="+", type=Path)
    fitting.add_argument("--out", type=Path, required=True, help="the chooser file to write (.npz)")
    fitting.add_argument(
        "--l2",
        type=_nonnegative_float,
        default=DEFAULT_L2,
        help="the L2 penalty on the standardised weights",
    )
    fitting.add_argument(
        "--reference",
        type=positive_int,
        default=REFERENCE_POSITIONS,
        help="the first this many positions kept as the reference its strength is set on",
    )
    measuring = commands.add_parser(
        "evaluate", help="the chooser's top-1 beside Selection likely's, by expert"
    )
    measuring.add_argument("chooser", type=Path)
    _add_records(measuring, "where EXPERT.npz is, with its profile (and personal model)")
    crossing = commands.add_parser(
        "cross", help="each expert measured by the chooser fitted on the other experts' records"
    )
    _add_records(crossing, None)
    crossing.add_argument("--l2", type=_nonnegative_float, default=DEFAULT_L2)
    topping = commands.add_parser(
        "ceiling",
        help="the chooser fitted on the experts' records themselves: the most its"
        " features match there",
    )
    topping.add_argument(
        "--records", nargs="+", type=_expert_file, required=True, metavar="EXPERT=FILE"
    )
    topping.add_argument("--l2", type=_nonnegative_float, default=DEFAULT_L2)
    strength = commands.add_parser(
        "strength",
        help="the chooser drawn at each expert's strength beside Selection"
        " calibrated, on the expert's records",
    )
    strength.add_argument("chooser", type=Path)
    _add_records(strength, "where EXPERT.npz is, with its profile and records")
    referring = commands.add_parser(
        "reference", help="give a chooser the reference positions its strength is set on"
    )
    referring.add_argument("chooser", type=Path)
    referring.add_argument(
        "records", nargs="+", type=Path, help="judged positions (masters' games)"
    )
    referring.add_argument(
        "--positions", type=positive_int, default=REFERENCE_POSITIONS, help="the first this many"
    )
    referring.add_argument(
        "--out", type=Path, help="the chooser file to write (default: the chooser itself)"
    )
    converting = commands.add_parser(
        "convert", help="records from a play-time record and the expert's PGN"
    )
    converting.add_argument(
        "play", type=Path, help="e.g. data/profiles/kosteniuk-2200.heldout.play.jsonl"
    )
    converting.add_argument(
        "--pgn", type=Path, required=True, help="the expert's games the record's keys name"
    )
    converting.add_argument("--out", type=Path, required=True)
    converting.add_argument(
        "--judge", help="an engine to score the candidates at the shallow depths"
    )
    converting.add_argument(
        "--casebase", help="the name of the casebase the record was played on, for the header"
    )
    tending = commands.add_parser(
        "tendencies", help="each expert's deviations from the shared chooser on the move's features"
    )
    tending.add_argument("--chooser", type=Path, required=True, help="the shared chooser (.npz)")
    tending.add_argument(
        "--records", nargs="+", type=_expert_file, required=True, metavar="EXPERT=FILE"
    )
    tending.add_argument(
        "--out", type=Path, required=True, help="the tendencies file to write (.json)"
    )
    tending.add_argument(
        "--prior-sd",
        type=_positive_float,
        default=DEFAULT_PRIOR_SD,
        help="the prior's deviation of each tendency in log-odds (smaller: nearer the shared"
        " chooser)",
    )
    who = commands.add_parser(
        "who", help="the experts ranked by how likely they are to have played the records' moves"
    )
    who.add_argument("records", nargs="+", type=Path)
    identify = commands.add_parser(
        "identify", help="how often each expert's held-out records rank that expert first"
    )
    identify.add_argument(
        "--records", nargs="+", type=_expert_file, required=True, metavar="EXPERT=FILE"
    )
    identify.add_argument(
        "--games", type=positive_int, default=20, help="the games of one chunk of records ranked"
    )
    for command in (who, identify):
        command.add_argument(
            "--chooser", type=Path, required=True, help="the shared chooser (.npz)"
        )
        command.add_argument(
            "--tendencies", type=Path, required=True, help="the experts' tendencies (.json)"
        )
    return parser


def _read(paths: list[Path]) -> list[Record]:
    return [p for path in paths for p in read_records(path)[1]]


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "fit":
            positions = _read(args.records)
            fitted = fit(positions, args.l2, [p.name for p in args.records])
            replace(fitted.chooser, reference=reference_of(positions, args.reference)).save(
                args.out
            )
            print(
                f"{args.out}: fitted on {fitted.positions} positions ({fitted.left_out} left out:"
                " the move played not a candidate), mean log-likelihood"
                f" {fitted.mean_log_likelihood:.4f}"
            )
            weights = fitted.chooser.weights
            for i in np.argsort(-np.abs(weights), kind="stable"):
                print(f"  {fitted.chooser.names[i]:>18} {weights[i]:+.4f}")
        elif args.command == "evaluate":
            chooser = Chooser.load(args.chooser)
            print(
                table(
                    [
                        evaluate(
                            chooser,
                            read_records(path)[1],
                            default_calibration(args.casebase_folder / f"{name}.npz"),
                            name,
                        )
                        for name, path in args.records
                    ]
                )
            )
        elif args.command == "cross":
            print(
                table(
                    cross(
                        {name: read_records(path)[1] for name, path in args.records},
                        args.casebase_folder,
                        args.l2,
                    )
                )
            )
        elif args.command == "ceiling":
            print(
                ceiling(
                    {name: read_records(path)[1] for name, path in args.records}, args.l2
                ).report()
            )
        elif args.command == "strength":
            chooser = Chooser.load(args.chooser)
            print(
                strength_table(
                    [
                        reading(
                            chooser,
                            default_calibration(args.casebase_folder / f"{name}.npz"),
                            read_records(path)[1],
                            name,
                        )
                        for name, path in args.records
                    ]
                )
            )
        elif args.command == "reference":
            chooser = replace(
                Chooser.load(args.chooser),
                reference=reference_of(_read(args.records), args.positions),
            )
            chooser.save(args.out or args.chooser)
            assert chooser.reference is not None
            print(
                f"{args.out or args.chooser}: {len(chooser.reference.loss)} reference positions;"
                f" the chooser as fitted loses {100 * chooser.expected_loss():.2f} % of the"
                " expected score a move there"
            )
        elif args.command == "convert":
            write_records(args.out, convert(args.play, args.pgn, args.judge, args.casebase))
        elif args.command == "tendencies":
            tendencies = fit_tendencies(
                Chooser.load(args.chooser),
                {name: read_records(path)[1] for name, path in args.records},
                args.prior_sd,
                {name: path.name for name, path in args.records},
                file_sha256(args.chooser),
            )
            tendencies.save(args.out)
            for name, tendency in tendencies.experts.items():
                print(f"{name} ({tendency.positions} positions): {tendency.describe()}")
        elif args.command == "who":
            print(rank(*load_pair(args.chooser, args.tendencies), _read(args.records)).report())
        else:
            print(
                identification(
                    *load_pair(args.chooser, args.tendencies),
                    {name: read_records(path)[1] for name, path in args.records},
                    args.games,
                )
            )
    except (
        RecordError,
        ChooserError,
        TendencyError,
        CasebaseError,
        ModelError,
        ValueError,
        OSError,
        LaunchError,
        chess.engine.EngineError,
    ) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
