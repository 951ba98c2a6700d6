"""``cbr-chess web``: serve the page on this machine (127.0.0.1 unless --host says otherwise)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from common.paths import casebase_folder, casebase_path, games_store
from engine.search.limits import SearchLimits, to_limit

#: Connections and requests at once (websockets included); uvicorn answers 503 beyond.
CONNECTIONS = 64


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="cbr-chess web", description="Play the expert in a browser (docs/web.md)."
    )
    parser.add_argument(
        "--casebase",
        metavar="PATH",
        help="the expert chosen first (a casebase .npz or a bare name)",
    )
    parser.add_argument(
        "--data",
        metavar="FOLDER",
        type=Path,
        help="a folder of your own casebases (*.npz) to offer beside the shipped ones",
    )
    parser.add_argument(
        "--judge",
        metavar="PATH",
        help="an outside UCI engine that judges the expert's proposals, e.g. /usr/games/stockfish",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another host name the page is opened as (e.g. this machine's name on the network "
        "with --host 0.0.0.0); repeatable. Requests for any other name are refused",
    )
    parser.add_argument(
        "--max-games",
        type=int,
        default=4,
        metavar="N",
        help="games (engine processes) at once (default 4)",
    )
    parser.add_argument(
        "--idle",
        type=float,
        default=1800,
        metavar="SECONDS",
        help="a game idle this long ends with its engine (default 1800)",
    )
    parser.add_argument(
        "--store",
        type=Path,
        default=games_store(),
        metavar="PATH",
        help="the games kept across reloads and restarts, and the finished ones (default"
        f" {games_store()})",
    )
    parser.add_argument(
        "--grace",
        type=float,
        default=60,
        metavar="SECONDS",
        help="a game whose tab closed waits this long for a reload before its engine ends (default"
        " 60)",
    )
    parser.add_argument(
        "--depth",
        type=int,
        metavar="D",
        help="quick games: the engine searches to depth D instead of using its clock",
    )
    parser.add_argument(
        "--no-fetch",
        action="store_true",
        help="do not fetch the board widget (chessground) from npm",
    )
    parser.add_argument(
        "--no-setup",
        action="store_true",
        help="an installed engine: start without making the shipped experts not made yet"
        " (cbr-chess setup)",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None, prepare: Callable[[], int] | None = None) -> int:
    """Start the server (blocks until interrupted); ``prepare`` first (unless ``--no-setup``): what
    makes the shipped experts not made yet (``cbr-chess setup``, which this layer cannot import),
    its exit status."""
    args = parse_args(argv)
    try:
        import uvicorn

        from web.app import create_app
        from web.config import Config
        from web.experts import Experts
        from web.guard import served_as
        from web.store import StoreError
        from web.vendor import VendorError, fetch
    except ImportError as exc:
        print(
            f"cbr-chess web needs the web extra: pip install -e '.[web]' ({exc})", file=sys.stderr
        )
        return 2
    if not args.no_fetch:
        try:
            fetch()
        except VendorError as exc:
            print(f"cbr-chess web: {exc}", file=sys.stderr)
            return 1
    if prepare is not None and not args.no_setup and (status := prepare()) != 0:
        print(
            "cbr-chess web: the shipped experts could not all be made; --no-setup starts with"
            " those made",
            file=sys.stderr,
        )
        return status
    folders = [("shipped", casebase_folder())]
    if args.data is not None:
        if not args.data.is_dir():
            print(f"cbr-chess web: --data {args.data}: not a folder", file=sys.stderr)
            return 2
        folders.append(("data folder", args.data))
    extra = Path(casebase_path(args.casebase)) if args.casebase else None
    if extra is not None and not extra.is_file():
        print(f"cbr-chess web: --casebase {args.casebase}: no such file", file=sys.stderr)
        return 2
    limit = to_limit(SearchLimits(depth=args.depth)) if args.depth else None
    hosts = served_as(args.host, args.allow_host)
    config = Config(
        Experts(folders, extra),
        judge=args.judge,
        limit=limit,
        max_games=args.max_games,
        idle_seconds=args.idle,
        hosts=hosts,
        port=args.port,
        store=args.store,
        grace_seconds=args.grace,
    )
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"cbr-chess web: listening on {args.host}: other machines can reach the page",
            file=sys.stderr,
        )
    # a name it answers to
    print(f"cbr-chess web: open http://{hosts[0]}:{args.port}", file=sys.stderr)
    try:
        app = create_app(config)
    except StoreError as exc:
        print(f"cbr-chess web: {exc}", file=sys.stderr)
        return 1
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        ws_max_size=1_000_000,
        limit_concurrency=CONNECTIONS,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
