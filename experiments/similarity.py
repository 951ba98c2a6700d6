"""What the learned similarity's settings cost and buy (issue #61,
docs/results/2026-11-29-learned-similarity.md): the cases alone, nearest
by the cosine of their embeddings, vote for the expert's move in held-out positions.

    python -m experiments.similarity --experts kosteniuk-2200 gaprindashvili-2300
        [--network PATH ...]
        [--dimensions 64 128 256 512] [--positions 1000] [--k 64] [--temperature 0.02]
    python -m experiments.similarity --precedents --experts ID ... [--positions 1000]
    python -m experiments.similarity --choose --experts ID ... [--positions 300]

For each expert, the held-out casebase ``casebases/heldout/ID.npz`` (every case embedded with its
game's history) and its held-out games ``casebases/heldout/ID.pgn`` (``make fidelity`` makes both):
in each of ``--positions`` of the expert's held-out positions, the ``--k`` cases nearest (same side
to move) vote for their move where it is legal, each weighted by exp((similarity - 1) /
temperature); the share of positions whose winner is the expert's move, for each network, each
number of dimensions (float32 and int8 as stored), and the full activations where the casebase is
small enough to hold them.

``--centred``: each variant also centred on the cases' mean embedding. ``--choose``: the engine's
learned index (centred) on positions of the held-out games that ``make fidelity`` never plays (its
200 left out), every k, temperature and vote (``legal``: each case for its move where legal;
``adapted``: for the moves §5 adapts it to; ``own``: its move where legal, else the adapted ones, as
pure mode votes).

``--precedents``: the precedent a move cites, alone: in each position the nearest case by the
shallow similarity (the most similar, ties drawn with seed 1: pure mode's case) and by the learned
one (the nearest by the embeddings beside the casebase, ``X.embed.npz``), each case's move adapted
to the board as the thesis adapts it: how often it is the expert's move, by phase.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import chess
import numpy as np

from casebase.embeddings import Embeddings, all_games, case_boards, read_embeddings
from casebase.format import Casebase
from engine.cbr.adaptation import best_moves, candidate_moves, draw, draw_index
from engine.cbr.learned import learned_index
from engine.cbr.retrieval import CaseIndex
from engine.cbr.weights import WEIGHT_CONFIGS
from engine.style.lc0 import load_network
from engine.style.loader import default_model
from fidelity.positions import plain_uci, read_positions, spread
from lc0net.embedding import SEED, quantized, unit
from lc0net.forward import Forward
from lc0net.planes import planes
from lc0net.weights import read_network

ROOT = Path(__file__).resolve().parent.parent
#: The largest casebase whose full activations (64 x filters floats a case) are compared too.
FULL_UP_TO = 20_000


def features(
    forward: Forward, boards: list[chess.Board], projections: dict[str, np.ndarray | None]
) -> dict[str, np.ndarray]:
    """Each variant's embeddings of ``boards`` (float32, unit rows): a projection's, or the full
    activations (None)."""
    out: dict[str, list[np.ndarray]] = defaultdict(list)
    for start in range(0, len(boards), 256):
        trunk = forward.trunk(planes(boards[start : start + 256]))
        flat = trunk.reshape(len(trunk), -1)
        for name, projection in projections.items():
            out[name].append(unit(flat if projection is None else flat @ projection))
    return {name: np.concatenate(parts) for name, parts in out.items()}


def top1(
    cases: np.ndarray,
    queries: np.ndarray,
    moves: list[chess.Move],
    colours: np.ndarray,
    boards: list[chess.Board],
    expert: list[str],
    k: int,
    temperature: float,
) -> float:
    """The share of ``boards`` whose cases' vote names the expert's move (``cases``, ``moves``,
    ``colours``: the cases' embeddings, moves and sides to move, row for row)."""
    hits = 0
    for query, board, wanted in zip(queries, boards, expert):
        rows = np.flatnonzero(colours == board.turn)
        sims = cases[rows] @ query
        near = rows[np.argsort(-sims)[:k]]
        votes: dict[chess.Move, float] = defaultdict(float)
        for row, sim in zip(near, np.sort(sims)[::-1][:k]):
            move = moves[row]
            if move in board.legal_moves:
                votes[move] += float(np.exp((sim - 1) / temperature))
        if votes and plain_uci(board, max(votes, key=votes.__getitem__)) == wanted:
            hits += 1
    return hits / max(1, len(boards))


def precedents(expert_id: str, count: int) -> dict[str, list[int]]:
    """For each phase and overall: [positions, the shallow precedent's hits, the learned one's]."""
    casebase = Casebase.load(ROOT / "casebases" / "heldout" / f"{expert_id}.npz", tell=False)
    network_path = default_model()[0]
    network = load_network(network_path)
    learned = learned_index(
        casebase, network, lambda: read_embeddings(casebase, network_path, network.weights_sha256)
    )
    shallow, weights, rng = (
        CaseIndex.of(casebase),
        WEIGHT_CONFIGS["balanced"],
        np.random.default_rng(1),
    )
    held = read_positions(
        ROOT / "casebases" / "heldout" / f"{expert_id}.pgn", casebase.expert
    ).positions
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for position in (held[i] for i in spread(len(held), count)):
        board = position.board()
        candidates = candidate_moves(board)
        rows, _ = shallow.most_similar(board)
        nearest, _ = learned.nearest(board, 1)
        hits = []
        for found in (rows, nearest):
            if not len(found):
                hits.append(False)
                continue
            row = int(found[draw_index(len(found), rng)])
            tied, _ = best_moves(
                casebase.move(row), casebase.board(row), board, weights, candidates
            )
            hits.append(plain_uci(board, draw(tied, rng)) == position.expert)
        for key in (position.phase.value, "all"):
            counts[key][0] += 1
            counts[key][1] += hits[0]
            counts[key][2] += hits[1]
    return counts


Grid = dict[tuple[int, float, str], list[int]]


def choose(expert_ids: list[str], count: int, ks: list[int], temperatures: list[float]) -> Grid:
    """[hits, positions] of every (k, temperature, vote) on positions make fidelity never plays."""
    network_path = default_model()[0]
    network = load_network(network_path)
    weights = WEIGHT_CONFIGS["balanced"]
    grid: Grid = defaultdict(lambda: [0, 0])
    for expert_id in expert_ids:
        casebase = Casebase.load(ROOT / "casebases" / "heldout" / f"{expert_id}.npz", tell=False)

        def read(c: Casebase = casebase) -> Embeddings:
            return read_embeddings(c, network_path, network.weights_sha256)

        index = learned_index(casebase, network, read)
        held = read_positions(
            ROOT / "casebases" / "heldout" / f"{expert_id}.pgn", casebase.expert
        ).positions
        # make fidelity's positions: never chosen on
        played = {held[i].index for i in spread(len(held), 200)}
        rest = [p for p in held if p.index not in played]
        for position in (rest[i] for i in spread(len(rest), count)):
            board = position.board()
            candidates, legal = candidate_moves(board), set(board.legal_moves)
            rows, sims = index.nearest(board, max(ks))
            spoken = []
            for row in rows.tolist():
                move = casebase.move(row)
                adapted = best_moves(move, casebase.board(row), board, weights, candidates)[0]
                spoken.append(
                    {
                        "legal": [move] if move in legal else [],
                        "adapted": adapted,
                        "own": [move] if move in legal else adapted,
                    }
                )
            for k in ks:
                for temperature in temperatures:
                    weight = np.exp((sims[:k] - 1) / temperature)
                    for vote in ("legal", "adapted", "own"):
                        votes: dict[chess.Move, float] = defaultdict(float)
                        for moves, w in zip(spoken[:k], weight):
                            for move in moves[vote]:
                                votes[move] += w / len(moves[vote])
                        hit = (
                            bool(votes)
                            and plain_uci(board, max(votes, key=votes.__getitem__))
                            == position.expert
                        )
                        cell = grid[(k, temperature, vote)]
                        cell[0] += hit
                        cell[1] += 1
    return grid


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.similarity",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--experts", nargs="+", required=True)
    parser.add_argument(
        "--network",
        nargs="+",
        default=[str(ROOT / "engine/style/models/master.pb.gz")],
        help="networks to embed by; the word 'own' is each expert's held-out own network,"
        " casebases/heldout/ID.pb.gz (make's: learn personalise)",
    )
    parser.add_argument("--dimensions", nargs="+", type=int, default=[64, 128, 256, 512])
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--k", type=int, default=64)
    parser.add_argument("--temperature", type=float, default=0.02)
    parser.add_argument(
        "--precedents",
        action="store_true",
        help="the nearest case alone by each similarity, by phase",
    )
    parser.add_argument(
        "--centred", action="store_true", help="each variant also centred on the cases' mean"
    )
    parser.add_argument(
        "--choose",
        action="store_true",
        help="k, temperature and vote on positions make fidelity leaves",
    )
    parser.add_argument("--ks", type=int, nargs="+", default=[64, 128, 256])
    parser.add_argument("--temperatures", type=float, nargs="+", default=[0.02, 0.05, 0.1, 0.2])
    args = parser.parse_args()
    if args.choose:
        grid = choose(args.experts, args.positions, args.ks, args.temperatures)
        print("| k | temperature | vote | positions | top-1 |\n|---:|---:|---|---:|---:|")
        for (k, temperature, vote), (hits, n) in sorted(grid.items(), key=lambda kv: -kv[1][0]):
            print(f"| {k} | {temperature} | {vote} | {n} | {100 * hits / n:.1f} % |")
        return
    if args.precedents:
        print(
            "| expert | phase | positions | shallow precedent | learned precedent |\n"
            "|---|---|---:|---:|---:|"
        )
        pooled: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        for expert_id in args.experts:
            for phase, (n, shallow, learned) in sorted(
                precedents(expert_id, args.positions).items()
            ):
                print(
                    f"| {expert_id} | {phase} | {n} | {100 * shallow / n:.1f} % |"
                    f" {100 * learned / n:.1f} % |",
                    flush=True,
                )
                pooled[phase] = [a + b for a, b in zip(pooled[phase], (n, shallow, learned))]
        for phase, (n, shallow, learned) in sorted(pooled.items()):
            print(
                f"| pooled | {phase} | {n} | {100 * shallow / n:.1f} % |"
                f" {100 * learned / n:.1f} % |"
            )
        return
    print(
        "| expert | positions | network | variant | cases alone, top-1 |\n|---|---:|---|---|---:|"
    )
    for expert_id in args.experts:
        casebase = Casebase.load(ROOT / "casebases" / "heldout" / f"{expert_id}.npz", tell=False)
        made = [(row, board) for row, board, _ in case_boards(casebase, all_games(casebase))]
        rows = np.array([row for row, _ in made])
        held = read_positions(
            ROOT / "casebases" / "heldout" / f"{expert_id}.pgn", casebase.expert
        ).positions
        held = [held[i] for i in spread(len(held), args.positions)]
        boards, expert = [p.board() for p in held], [p.expert for p in held]
        colours = np.asarray(casebase.turn)[rows]
        moves = [casebase.move(int(row)) for row in rows]
        for named in args.network:
            network = (
                str(ROOT / "casebases" / "heldout" / f"{expert_id}.pb.gz")
                if named == "own"
                else named
            )
            forward = Forward(read_network(network))
            rng = np.random.default_rng(SEED)
            inputs = 64 * forward.filters
            projections: dict[str, np.ndarray | None] = {
                f"{d} dims": (rng.standard_normal((inputs, d)) / np.sqrt(d)).astype(np.float32)
                for d in args.dimensions
            }
            if len(casebase) <= FULL_UP_TO:
                projections[f"full ({inputs})"] = None
            centred = args.centred
            cases = features(forward, [b for _, b in made], projections)
            queries = features(forward, boards, projections)
            if centred:
                for name in list(projections):
                    mean = cases[name].mean(axis=0)
                    cases[name + " centred"] = unit(cases[name] - mean)
                    queries[name + " centred"] = unit(queries[name] - mean)
                    projections[name + " centred"] = projections[name]
            for name in projections:
                variants = {name: cases[name]}
                if name.endswith("dims"):
                    variants[f"{name}, int8"] = unit(quantized(cases[name]))
                for variant, vectors in variants.items():
                    share = top1(
                        vectors,
                        queries[name],
                        moves,
                        colours,
                        boards,
                        expert,
                        args.k,
                        args.temperature,
                    )
                    print(
                        f"| {expert_id} | {len(boards)} | {Path(network).name} | {variant} |"
                        f" {100 * share:.1f} % |",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
