"""What each command of ``python -m learn`` runs and prints (its parser, and its errors said as the
command's: :mod:`learn.__main__`)."""

from __future__ import annotations

import argparse
from pathlib import Path


def personalise_command(args: argparse.Namespace) -> None:
    """``learn personalise``: the expert's own network (an lc0 ``.pb.gz``) or personal 8x96, by
    ``--out``'s name."""
    from engine.style.lc0 import is_network
    from engine.style.loader import default_model
    from engine.style.personal import beside, network_candidates

    # the base's kind, else the default's
    network = is_network(args.base) if args.base else is_network(default_model()[0])
    out = args.out or (network_candidates(args.casebase)[0] if network else beside(args.casebase))
    if is_network(out):
        from learn.own_network import OwnConfig, make_own_network

        base = args.base or default_model()[0]
        if not is_network(base):
            raise ValueError(
                f"an lc0 network starts from an lc0 network (.pb.gz), not {base}"
                f"{'' if args.base else ': ' + default_model()[1]}"
            )
        config = OwnConfig(
            tune=args.tune or OwnConfig.tune,
            epochs=args.epochs,
            lr=args.lr,
            seed=args.seed,
            mix=OwnConfig.mix if args.mix is None else args.mix,
            epoch_positions=args.epoch_positions,
        )
        o = make_own_network(args.casebase, out, base, config, progress=True, device=args.device)
        print(
            f"{out}: on the expert's latest {o.validation_games} games ({o.validation_positions}"
            f" positions) top-1 {o.top1:.1%} against {Path(base).name}'s {o.base_top1:.1%} (the fit"
            f" alone {o.fit_top1:.1%}, moved {config.mix:g} of the way); fitted for {o.epochs}"
            f" epochs on {o.positions} positions in {o.seconds:.0f} s"
        )
        return
    if args.mix is not None or args.epoch_positions is not None:
        raise ValueError(
            "--mix and --epoch-positions are for an expert's own lc0 network (.pb.gz), not the"
            f" personal 8x96 {out}"
        )
    from learn.personal import PersonalConfig, personalise

    r = personalise(
        args.casebase,
        out,
        args.base,
        PersonalConfig(
            tune=args.tune or PersonalConfig.tune, epochs=args.epochs, lr=args.lr, seed=args.seed
        ),
        progress=True,
    )
    print(
        f"{out}: on the expert's latest {r.validation_games} games ({r.validation_positions}"
        f" positions) top-1 {r.top1:.1%} against the generic model's {r.generic_top1:.1%}; fitted"
        f" for {r.epochs} epochs on {r.cases} cases in {r.seconds:.0f} s"
    )


def run(args: argparse.Namespace) -> None:
    """Run the command ``args`` asks for (parsed by :func:`learn.__main__.build_parser`), printing
    what it made."""
    if args.command == "train":
        from learn.train import TrainConfig, train

        config = TrainConfig(
            blocks=args.blocks,
            filters=args.filters,
            epochs=args.epochs,
            positions=args.positions,
            batch=args.batch,
            lr=args.lr,
            seed=args.seed,
        )
        result = train(
            args.casebases,
            args.out,
            config,
            checkpoint=args.checkpoint,
            device=args.device,
            progress=True,
        )
        print(
            f"{args.out}: validation top-1 {result.validation_top1:.1%} on"
            f" {result.validation_positions} positions; {result.steps} steps in"
            f" {result.seconds:.0f} s on {result.device}"
        )
    elif args.command == "personalise":
        personalise_command(args)
    elif args.command == "master":
        from learn.master import export
        from learn.master import read_recipe as master_recipe
        from learn.master import train as train_master

        recipe = master_recipe(args.recipe)
        facts = (export if args.export else train_master)(recipe, args.checkpoints, args.out)
        print(
            f"{args.out}: validation top-1 {facts['validation_top1']:.1%} as the engine plays"
            f" it on {facts['validation_positions']} positions, against"
            f" {facts['validation_top1_base']:.1%} for the network it started from;"
            f" {facts['positions_trained']} positions trained on"
        )
    elif args.command == "pack":
        from learn.master_pack import pack

        facts = pack(
            args.sources,
            args.experts,
            args.out,
            validation_games=args.validation_games,
            seed=args.seed,
            validation_pgn=args.validation_pgn,
        )
        print(
            f"{args.out}: {facts['training_games']} training and {facts['validation_games']}"
            f" validation games ({facts['games_of_experts_dropped']} of the experts' and"
            f" {facts['duplicates_dropped']} duplicates dropped), the latest games of"
            f" {len(facts['experts'])} experts"
        )
    elif args.command == "master-gpu":
        from learn.master_gpu import Settings
        from learn.master_gpu import train as train_gpu

        settings = Settings(
            positions=args.positions,
            batch=args.batch,
            lr=args.lr,
            seed=args.seed,
            share=args.share,
            check=args.check,
        )
        facts = train_gpu(
            args.pack, args.start, args.out, settings, device=args.device, workers=args.workers
        )
        print(
            f"{args.out}: the experts' latest games {facts['experts_latest_top1']:.1%} (from"
            f" {facts['experts_latest_top1_base']:.1%}), master validation"
            f" {facts['validation_top1']:.1%} (from {facts['validation_top1_base']:.1%});"
            f" chosen at {facts['positions_chosen']} of {facts['positions_run']} positions"
        )
    elif args.command == "kbnk":
        from learn.kbnk import report

        print(report(args.tables, args.ending, args.designs, args.positions, args.deep))
    elif args.command == "kbnk-deep":
        from endgame.tablebase import Stored
        from learn.kbnk_deep import train as train_deep

        print(
            train_deep(
                Stored.load(args.tables / "KBNK.npz"),
                args.out,
                args.hidden,
                args.hidden_layers,
                args.epochs,
            )
        )
    else:
        from learn.evaluate import legal_top1

        for path in args.casebases:
            share, n = legal_top1(args.model, path, args.positions)
            print(
                f"{path}: the model's favourite legal move is the case's in {share:.1%} of"
                f" {n} cases"
            )
