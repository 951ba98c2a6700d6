"""A stand-in for lichess.org on 127.0.0.1: one bot account, one challenge, one game (issue #28).

lichess-bot (github.com/lichess-bot-devs/lichess-bot) plays real games through Lichess's HTTP
API. This server implements the few endpoints it calls for one bot account (``lib/lichess.py``):
the token test, the account, the games being played, the event stream (one ``challenge``, then
``gameStart`` once it is accepted, ``gameFinish`` at the end), the accept and decline of a
challenge, the game stream (``gameFull``, then a ``gameState`` after every move, as chunked
NDJSON with keep-alive blank lines), the move, chat, abort and resign endpoints, the export of the
game's PGN, the online status and public data. The stand-in plays the other side itself
(Stockfish at a low ``Skill Level``, or random legal moves) and keeps both clocks: the bot's runs
from the moment the position is sent until its move arrives, and a bot that runs out of time
loses, as on Lichess (where, too, each side's first move is not timed).

Two steps (lichess-bot's own ``config.yml.default``, changed only where it must be: the token,
the URL, the engine's folder and name; every default engine option is kept):

    python -m testing.lichess_standin config --template LICHESS_BOT/config.yml.default \\
        --engine /tmp/cbr-guided.sh --port 8765 -o /tmp/lb/config.yml
    python -m testing.lichess_standin serve --port 8765 --pgn /tmp/lb/game.pgn \\
        --bot "LB_VENV/bin/python lichess-bot.py --config /tmp/lb/config.yml -v -l
            /tmp/lb/bot.log" \\
        --bot-cwd LICHESS_BOT

``serve`` starts the bot (``--bot``), plays one game at ``--tc`` (default 3+2), stops the bot with
SIGINT when the game is over, and prints the game, its result and how it ended, the bot's moves
that were refused, and the lines of the bot's log (``--bot-log``, default: the file after ``-l``)
with ERROR, WARNING or a traceback. It listens on 127.0.0.1 only and ends after ``--time-limit``
seconds whatever happens (the game is then aborted). Python and python-chess only.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import chess
import chess.engine
import chess.pgn

from testing.lichess_standin_game import TOKEN, Game, game_pgn
from testing.lichess_standin_http import StandinServer


def opponent_loop(
    server: StandinServer, kind: str, stockfish: str, skill: int, movetime: float, seed: int
) -> None:
    """Play the stand-in's side: Stockfish at ``skill`` for ``movetime`` seconds, or random legal
    moves."""
    game = server.game
    rng = random.Random(seed)
    engine = None
    if kind == "stockfish":
        engine = chess.engine.SimpleEngine.popen_uci(stockfish)
        engine.configure({"Skill Level": skill, "Threads": 1, "Hash": 16})
    try:
        while not server.stopping.is_set():
            with game.changed:
                if game.status == "started" and game.board.turn != game.bot_color:
                    board = game.board.copy()
                else:
                    game.changed.wait(0.2)
                    continue
            if engine is not None:
                move = engine.play(board, chess.engine.Limit(time=movetime)).move
            else:
                time.sleep(movetime)
                move = rng.choice(list(board.legal_moves))
            with game.changed:
                if game.status == "started" and game.board == board and move is not None:
                    game.play(move)
                    game.version += 1
                    game.changed.notify_all()
    finally:
        if engine is not None:
            engine.quit()


def problems_in_log(path: Path) -> list[str]:
    """The lines of lichess-bot's log with ERROR, WARNING, Traceback or 'illegal' (and what follows
    a traceback)."""
    if not path.exists():
        return [f"(no log at {path})"]
    found: list[str] = []
    following = 0
    for line in path.read_text(errors="replace").splitlines():
        if re.search(
            r"\b(ERROR|WARNING|CRITICAL)\b|Traceback|[Ii]llegal|EngineError|EngineTerminated", line
        ):
            found.append(line)
            following = 12 if "Traceback" in line or "ERROR" in line else 0
        elif following:
            found.append("    " + line)
            following -= 1
    return found


def serve(args: argparse.Namespace) -> int:
    base, increment = (int(x) for x in args.tc.split("+"))
    game = Game(
        chess.WHITE if args.bot_color == "white" else chess.BLACK,
        base * 60_000,
        increment * 1000,
        args.max_plies,
    )
    server = StandinServer(args.port, game, args.server_log)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    opponent = threading.Thread(
        target=opponent_loop,
        args=(server, args.opponent, args.stockfish, args.skill, args.movetime, args.seed),
        daemon=True,
    )
    opponent.start()
    print(
        f"stand-in listening on http://127.0.0.1:{args.port}/ (bot plays {args.bot_color},"
        f" {args.tc})",
        flush=True,
    )
    bot: subprocess.Popen[bytes] | None = None
    bot_output = args.bot_output.open("wb") if args.bot_output else subprocess.DEVNULL
    if args.bot:
        bot = subprocess.Popen(
            shlex.split(args.bot),
            cwd=args.bot_cwd,
            stdout=bot_output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + args.time_limit
    started = None
    try:
        while time.monotonic() < deadline:
            if game.flag_fall():
                pass
            if game.status not in ("created", "started") or (
                game.challenge_answer or ""
            ).startswith("declined"):
                break
            if game.status == "started" and started is None:
                started = time.monotonic()
            if bot is not None and bot.poll() is not None:
                print(f"the bot ended before the game did (exit status {bot.returncode})")
                break
            time.sleep(0.2)
        else:
            with game.changed:
                game.end("aborted", None)
                game.version += 1
                game.changed.notify_all()
            print(f"time limit of {args.time_limit} s reached: game aborted")
        time.sleep(args.linger)  # the bot sees the end, says goodbye, fetches the PGN
    finally:
        if bot is not None:
            stop_bot(bot)
        server.stopping.set()
        server.shutdown()
    return report(args, game, started)


def stop_bot(bot: subprocess.Popen[bytes]) -> None:
    """SIGINT (lichess-bot's way out), a second SIGINT, then SIGKILL, to the bot's process group."""
    for sig, wait in ((signal.SIGINT, 20), (signal.SIGINT, 10), (signal.SIGKILL, 5)):
        if bot.poll() is not None:
            return
        try:
            os.killpg(bot.pid, sig)
        except ProcessLookupError:
            return
        try:
            bot.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue


def report(args: argparse.Namespace, game: Game, started: float | None) -> int:
    record = chess.pgn.Game.from_board(game.board)
    moves = record.board().variation_san(game.board.move_stack)
    print(f"challenge: {game.challenge_answer}")
    print(f"moves ({game.board.ply()} plies): {moves}")
    print(f"status: {game.status}, winner: {game.winner or '-'}")
    print(f"clocks left (ms): white {game.clock.white}, black {game.clock.black}")
    if game.bot_thinking:
        print(
            "bot's thinking per move (s, as charged): mean"
            f" {sum(game.bot_thinking) / len(game.bot_thinking):.2f}, max"
            f" {max(game.bot_thinking):.2f}, {len(game.bot_thinking)} moves"
        )
    print(f"bot's draw offers: {game.draw_offers}; chat lines: {len(game.chat)}")
    print(f"refused bot moves: {game.refused or 'none'}")
    if args.pgn:
        args.pgn.write_text(game_pgn(game))
        print(f"PGN written to {args.pgn}")
    log = args.bot_log or _log_from(args.bot)
    if log is not None:
        problems = problems_in_log(log)
        print(
            f"lichess-bot's log {log}: {len(problems)} lines with ERROR/WARNING/Traceback/illegal"
        )
        for line in problems[:60]:
            print("  " + line[:400])
    return (
        0
        if game.status in ("mate", "resign", "stalemate", "outoftime", "draw") and not game.refused
        else 1
    )


def _log_from(command: str) -> Path | None:
    words = shlex.split(command or "")
    for flag in ("-l", "--logfile"):
        if flag in words and words.index(flag) + 1 < len(words):
            return Path(words[words.index(flag) + 1])
    return None


def make_config(args: argparse.Namespace) -> int:
    """lichess-bot's default configuration with only the token, URL and engine changed."""
    text = args.template.read_text()
    engine = Path(args.engine).resolve()
    replacements = (
        (r'^token: ".*?"', f'token: "{TOKEN}"'),
        (r'^url: ".*?"', f'url: "http://127.0.0.1:{args.port}/"'),
        (r'^  dir: ".*?"', f'  dir: "{engine.parent}/"'),
        (r'^  name: ".*?"', f'  name: "{engine.name}"'),
    )
    for pattern, new in replacements:
        text, count = re.subn(pattern, new, text, count=1, flags=re.MULTILINE)
        if count != 1:
            print(f"{args.template}: no line matches {pattern!r}", file=sys.stderr)
            return 2
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text)
    print(
        f"wrote {args.output}: {args.template} with token, url, engine.dir and engine.name changed"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m testing.lichess_standin", description=__doc__.split("\n\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    config = commands.add_parser("config", help="make lichess-bot's configuration for the stand-in")
    config.add_argument(
        "--template", type=Path, required=True, help="lichess-bot's config.yml.default"
    )
    config.add_argument("--engine", required=True, help="the engine's program (a wrapper script)")
    config.add_argument("--port", type=int, default=8765)
    config.add_argument("-o", "--output", type=Path, required=True)
    run = commands.add_parser("serve", help="serve one game (and run the bot, with --bot)")
    run.add_argument("--port", type=int, default=8765)
    run.add_argument("--tc", default="3+2", help="minutes+increment seconds")
    run.add_argument("--bot-color", choices=["white", "black"], default="white")
    run.add_argument("--opponent", choices=["stockfish", "random"], default="stockfish")
    run.add_argument("--stockfish", default="/usr/games/stockfish")
    run.add_argument("--skill", type=int, default=3, help="Stockfish's Skill Level (0-20)")
    run.add_argument("--movetime", type=float, default=0.3, help="the stand-in's seconds per move")
    run.add_argument("--seed", type=int, default=1, help="the random opponent's seed")
    run.add_argument("--max-plies", type=int, default=300, help="a draw after this many half-moves")
    run.add_argument(
        "--bot", default="", help="lichess-bot's command line, started after the server"
    )
    run.add_argument("--bot-cwd", default=None, help="its working folder (lichess-bot's clone)")
    run.add_argument("--bot-output", type=Path, help="where the bot's console output goes")
    run.add_argument(
        "--bot-log", type=Path, help="lichess-bot's log file to scan (default: its -l)"
    )
    run.add_argument("--server-log", type=Path, help="log every request here")
    run.add_argument("--pgn", type=Path, help="write the game here")
    run.add_argument(
        "--linger", type=float, default=5.0, help="seconds the bot gets after the game"
    )
    run.add_argument(
        "--time-limit", type=float, default=1500.0, help="seconds before the game is aborted"
    )
    args = parser.parse_args(argv)
    return make_config(args) if args.command == "config" else serve(args)


if __name__ == "__main__":
    sys.exit(main())
