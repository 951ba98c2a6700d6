"""``python -m learn train|personalise|evaluate|master|pack|master-gpu``: train the style model on
casebases, make an expert's personal model, measure a model on casebases, fine-tune an lc0 network
on master games (on the CPU, or packed for a GPU and trained there)."""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path
from typing import Any

from casebase.format import CasebaseError
from casebase.games import BuildError
from common.cli import positive_int
from common.paths import casebase_path
from endgame import default_folder
from endgame.tablebase import TablebaseError
from engine.style.model import ModelError
from learn.commands import run

#: The training options a recipe file (``--recipe``) may set.
RECIPE_KEYS = ("blocks", "filters", "epochs", "positions", "batch", "lr", "seed")


def read_recipe(path: Path) -> dict[str, Any]:
    """The training options of a TOML recipe file; ValueError naming what is wrong."""
    try:
        recipe = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: not a readable recipe ({exc})") from None
    unknown = sorted(set(recipe) - set(RECIPE_KEYS))
    if unknown:
        raise ValueError(
            f"{path}: unknown keys {', '.join(unknown)} (a recipe sets {', '.join(RECIPE_KEYS)})"
        )
    return recipe


def build_parser(recipe: dict[str, Any] | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m learn", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    t = commands.add_parser(
        "train",
        help="train a model on the cases of casebases (resumable)",
        description="Every case is an example: the position before the move, and"
        " the move. Run the same command again to resume an interrupted run.",
    )
    t.add_argument("casebases", nargs="+", type=Path, metavar="X.npz")
    t.add_argument("-o", "--out", type=Path, required=True, metavar="MODEL.npz")
    t.add_argument("--blocks", type=positive_int, default=4, help="residual blocks (default 4)")
    t.add_argument(
        "--filters", type=positive_int, default=32, help="filters per convolution (default 32)"
    )
    t.add_argument(
        "--epochs", type=positive_int, default=1, help="passes over the data (default 1)"
    )
    t.add_argument(
        "--positions",
        type=positive_int,
        metavar="N",
        help="training examples per epoch, a seeded sample (default: all)",
    )
    t.add_argument("--batch", type=positive_int, default=1024, help="batch size (default 1024)")
    t.add_argument("--lr", type=float, default=2e-3, help="peak learning rate (default 2e-3)")
    t.add_argument(
        "--seed", type=int, default=0, help="seed of the weights, split and order (default 0)"
    )
    t.add_argument("--device", help="cpu, cuda, cuda:1 ... (default: cuda when present, else cpu)")
    t.add_argument("--checkpoint", type=Path, help="checkpoint file (default: OUT.ckpt)")
    t.add_argument(
        "--recipe",
        type=Path,
        metavar="RECIPE.toml",
        help="defaults of the options above from a recipe file (e.g."
        " engine/style/models/style.toml)",
    )
    t.set_defaults(**(recipe or {}))
    p = commands.add_parser(
        "personalise",
        help="an expert's own network, or personal 8x96, from their casebase (CPU, minutes)",
        description="Fine-tune the default network's last blocks and policy head (or the generic"
        " 8x96's) on the expert's games, as long as it helps on the expert's latest games; the"
        " engine then plays it for this casebase (option Model auto).",
    )
    p.add_argument(
        "casebase",
        type=lambda name: Path(casebase_path(name)),
        metavar="X.npz",
        help="the expert's casebase (a bare name: the casebase folder's, as the engine reads it)",
    )
    p.add_argument(
        "-o",
        "--out",
        type=Path,
        metavar="X.pb.gz",
        help="where to write it: X.pb.gz an lc0 network, X.model.npz a personal 8x96 (default:"
        " beside the casebase, where the engine looks: of --base's kind, else X.pb.gz)",
    )
    p.add_argument(
        "--base",
        type=Path,
        metavar="NET",
        help="the network or model it starts from (default: the shipped default network, or the"
        " generic 8x96)",
    )
    p.add_argument(
        "--tune",
        type=positive_int,
        help="residual blocks fitted with the head (default 2 for a network, 1 for the 8x96)",
    )
    p.add_argument(
        "--epochs", type=positive_int, default=6, help="the most epochs tried (default 6)"
    )
    p.add_argument("--lr", type=float, default=1e-4, help="learning rate (default 1e-4)")
    p.add_argument(
        "--mix",
        type=float,
        help="an lc0 network: how far the network written moves from the base towards"
        " the fit, in (0, 1] (default half way; 1: the fit itself)",
    )
    p.add_argument(
        "--epoch-positions",
        type=positive_int,
        metavar="N",
        help="an lc0 network: each epoch fits on at most N positions, a seeded sample (default:"
        " all; cbr-chess new's: OWN_EPOCH_POSITIONS)",
    )
    p.add_argument(
        "--device", default="cpu", help="where an lc0 network is fitted: cpu (default), cuda ..."
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the order of the cases (default 0)")
    e = commands.add_parser(
        "evaluate", help="how often a model's favourite legal move is the case's move"
    )
    e.add_argument("model", type=Path)
    e.add_argument("casebases", nargs="+", type=Path, metavar="X.npz")
    e.add_argument(
        "--positions", type=positive_int, default=5000, help="cases per casebase, spread evenly"
    )
    m = commands.add_parser(
        "master",
        help="Maia-1900 fine-tuned on a sample of master games (CPU, hours; resumable)",
        description="Fine-tune an lc0 network by a recipe (its [recipe] table) on master games,"
        " then write the best network by validation top-1, and beside it what it is and scored."
        " Run the same command again to resume from the last checkpoint.",
    )
    m.add_argument(
        "--recipe",
        type=Path,
        default=Path("engine/style/models/master-cpu.toml"),
        metavar="RECIPE.toml",
        help="the recipe (default: %(default)s)",
    )
    m.add_argument(
        "-o",
        "--out",
        type=Path,
        default=Path(".train/master-cpu.pb.gz"),
        metavar="NET.pb.gz",
        help="the network written (default: %(default)s; its provenance beside it, NET.toml)",
    )
    m.add_argument(
        "--checkpoints",
        type=Path,
        default=Path(".train/master"),
        metavar="FOLDER",
        help="the checkpoints' folder (default: %(default)s)",
    )
    m.add_argument(
        "--export",
        action="store_true",
        help="write the best network so far and measure it; no training",
    )
    pk = commands.add_parser(
        "pack",
        help="master games and the experts' latest games packed for a GPU (learn master-gpu)",
        description="The sources' games without the shipped experts' and duplicates, a validation"
        " share held out by game, and the experts' games of the casebases (their latest choose the"
        " network), each move a byte, in one .npz.",
    )
    pk.add_argument("out", type=Path, metavar="PACK.npz")
    pk.add_argument(
        "--sources",
        type=Path,
        nargs="+",
        required=True,
        metavar="PGN",
        help="the master games (.pgn or .pgn.gz)",
    )
    pk.add_argument(
        "--experts",
        type=Path,
        nargs="+",
        required=True,
        metavar="X.npz",
        help="casebases whose latest games choose the network (not the games held out from them)",
    )
    pk.add_argument(
        "--validation-games",
        type=positive_int,
        default=400,
        help="master games held out (default 400)",
    )
    pk.add_argument("--seed", type=int, default=0, help="seed of the games' order (default 0)")
    pk.add_argument(
        "--validation-pgn",
        type=Path,
        metavar="PGN",
        help="also write the validation games there, as PGN",
    )
    g = commands.add_parser(
        "master-gpu",
        help="an lc0 network fine-tuned on a pack's every game (a GPU: minutes)",
        description="Replay the pack's games on every core, fit the network's policy on random"
        " batches, check it on the experts' latest games every --check steps and write the best.",
    )
    g.add_argument("pack", type=Path, metavar="PACK.npz")
    g.add_argument(
        "--start",
        type=Path,
        default=Path("engine/style/models/maia-1900.pb.gz"),
        metavar="NET.pb.gz",
        help="the network it starts from (default: %(default)s)",
    )
    g.add_argument("-o", "--out", type=Path, required=True, metavar="NET.pb.gz")
    g.add_argument(
        "--positions",
        type=positive_int,
        default=3_000_000,
        help="positions drawn (default 3000000)",
    )
    g.add_argument("--batch", type=positive_int, default=2048, help="batch size (default 2048)")
    g.add_argument("--lr", type=float, default=1e-4, help="Adam's learning rate (default 1e-4)")
    g.add_argument(
        "--seed", type=int, default=0, help="seed of the batches and of --share (default 0)"
    )
    g.add_argument(
        "--share", type=float, default=1.0, help="a seeded share of the training games (default 1)"
    )
    g.add_argument(
        "--check", type=positive_int, default=100, help="steps between checks (default 100)"
    )
    g.add_argument("--device", help="cuda, cpu ... (default: cuda where present)")
    g.add_argument(
        "--workers", type=positive_int, help="processes replaying the games (default: every core)"
    )
    k = commands.add_parser(
        "kbnk",
        help="Bergbom's study: networks learn KBNK distance to mate, then play it",
        description="Train each design's two networks on random won KBNK positions labelled by"
        " the tables (make tables), then play random positions against the tables' defence.",
    )
    k.add_argument(
        "--designs",
        nargs="+",
        default=["study", "best"],
        metavar="NAME",
        help="any of study, mutual, best (default: study best)",
    )
    k.add_argument(
        "--deep", type=Path, metavar="MODEL.npz", help="also play a network made by kbnk-deep"
    )
    k.add_argument(
        "--positions", type=positive_int, default=100, help="games per design (default 100)"
    )
    k.add_argument("--ending", default="KBNK", help="KBNK (default) or the study's prototype KRK")
    k.add_argument(
        "--tables",
        type=Path,
        default=default_folder(),
        help="the tables' folder (default: %(default)s)",
    )
    kd = commands.add_parser(
        "kbnk-deep", help="a deep network learns the whole KBNK table (torch, GPU if present)"
    )
    kd.add_argument("-o", "--out", type=Path, required=True, metavar="MODEL.npz")
    kd.add_argument("--hidden", type=positive_int, default=1024)
    kd.add_argument(
        "--hidden-layers", type=positive_int, default=4, help="hidden layers (default 4)"
    )
    kd.add_argument("--epochs", type=positive_int, default=60)
    kd.add_argument("--tables", type=Path, default=default_folder())
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "train" and args.recipe is not None:
        try:
            args = build_parser(read_recipe(args.recipe)).parse_args(argv)
        except ValueError as exc:
            print(f"python -m learn: error: {exc}", file=sys.stderr)
            return 2
    try:
        run(args)
    except (ValueError, OSError, CasebaseError, BuildError, ModelError, TablebaseError) as exc:
        print(f"python -m learn {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:
        if exc.name != "torch":
            raise
        print(
            f"python -m learn {args.command}: error: training needs torch, which playing never"
            " does: pip install -e '.[train]' (or pip install torch)",
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        print(
            "\ninterrupted: run the same command again to resume from the last checkpoint",
            file=sys.stderr,
        )
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
