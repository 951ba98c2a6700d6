"""The stand-in's HTTP endpoints (testing/lichess_standin.py): those lichess-bot's
``lib/lichess.py`` calls for one bot account, with the event and game streams as chunked NDJSON, on
127.0.0.1."""

from __future__ import annotations

import datetime
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import chess

from testing.lichess_standin_game import BOT, CHALLENGE_ID, GAME_ID, KEEPALIVE, Game, game_pgn


class Handler(BaseHTTPRequestHandler):
    """The endpoints lichess-bot calls, for one bot account and one game."""

    protocol_version = "HTTP/1.1"
    server: StandinServer

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base class's name)
        self.server.log(f"{self.command} {self.path} " + (format % args))

    # -- plumbing --------------------------------------------------------------------------

    def send_json(self, payload: object, status: int = 200) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def send_text(self, text: str, content_type: str = "text/plain") -> None:
        body = text.encode()
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def chunk(self, line: str) -> bool:
        """One NDJSON line as one chunk; False if the client has gone."""
        data = (line + "\n").encode()
        try:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()
        except OSError:
            return False
        return True

    def end_stream(self) -> None:
        try:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except OSError:
            pass
        self.close_connection = True

    def body(self) -> str:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length).decode(errors="replace") if length else ""

    # -- the endpoints ---------------------------------------------------------------------

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        game = self.server.game
        path = urlparse(self.path).path
        if path == "/api/account":
            self.send_json(
                {
                    **BOT,
                    "online": True,
                    "perfs": {"blitz": {"rating": BOT["rating"], "games": 0}},
                    "url": "http://127.0.0.1/@/cbrbot",
                }
            )
        elif path == "/api/account/playing":
            playing = [game.summary()] if game.status == "started" else []
            self.send_json({"nowPlaying": playing})
        elif path == "/api/stream/event":
            self.event_stream()
        elif path == f"/api/bot/game/stream/{GAME_ID}":
            self.game_stream()
        elif path == f"/game/export/{GAME_ID}":
            self.send_text(self.server.pgn(), "application/x-chess-pgn")
        elif path == "/api/users/status":
            self.send_json(
                [{"id": BOT["id"], "name": BOT["username"], "title": "BOT", "online": True}]
            )
        elif path.startswith("/api/user/"):
            self.send_json({**BOT, "perfs": {}})
        elif path == "/api/bot/online":
            self.send_text("", "application/x-ndjson")
        else:
            self.server.log(f"unknown GET {self.path}")
            self.send_json({"error": "Not found"}, 404)

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        game = self.server.game
        url = urlparse(self.path)
        path, query = url.path, parse_qs(url.query)
        body = self.body()
        if path == "/api/token/test":
            self.send_json(
                {
                    body.strip(): {
                        "scopes": "bot:play,challenge:read,challenge:write",
                        "userId": BOT["id"],
                        "expires": None,
                    }
                }
            )
        elif path == f"/api/challenge/{CHALLENGE_ID}/accept":
            game.challenge_answer = "accepted"
            self.send_json({"ok": True})
            game.start()
        elif path == f"/api/challenge/{CHALLENGE_ID}/decline":
            game.challenge_answer = f"declined: {body}"
            self.send_json({"ok": True})
            game.notify()
        elif (found := re.fullmatch(rf"/api/bot/game/{GAME_ID}/move/(\w+)", path)) is not None:
            self.bot_move(found.group(1), query.get("offeringDraw", ["false"])[0] == "true")
        elif path == f"/api/bot/game/{GAME_ID}/chat":
            game.chat.append(body)
            self.send_json({"ok": True})
        elif path in (f"/api/bot/game/{GAME_ID}/abort", f"/api/bot/game/{GAME_ID}/resign"):
            with game.changed:
                if path.endswith("abort"):
                    game.end("aborted", None)
                else:
                    game.end("resign", not game.bot_color)
                game.version += 1
                game.changed.notify_all()
            self.send_json({"ok": True})
        elif path == "/api/bot/account/upgrade":
            self.send_json({"ok": True})
        else:
            self.server.log(f"unknown POST {self.path}")
            self.send_json({"error": "Not found"}, 404)

    def bot_move(self, text: str, offering_draw: bool) -> None:
        game = self.server.game
        with game.changed:
            if game.status != "started" or game.board.turn != game.bot_color:
                game.refused.append(
                    f"{text}: not your turn, or game already over (status {game.status})"
                )
                self.send_json({"error": "Not your turn, or game already over"}, 400)
                return
            try:
                move = chess.Move.from_uci(text)
            except ValueError:
                move = chess.Move.null()
            if not move or move not in game.board.legal_moves:
                game.refused.append(f"{text}: illegal in {game.board.fen()}")
                self.send_json({"error": f"Illegal move {text}"}, 400)
                return
            game.bot_thinking.append(time.monotonic() - game.clock.running_since)
            game.draw_offers += offering_draw
            game.play(move)
            game.version += 1
            game.changed.notify_all()
        self.send_json({"ok": True})

    # -- the streams ---------------------------------------------------------------------------

    def event_stream(self) -> None:
        game = self.server.game
        self.start_stream()
        sent_challenge = sent_start = sent_finish = False
        while not self.server.stopping.is_set():
            with game.changed:
                if (
                    not sent_challenge
                    and game.status == "created"
                    and game.challenge_answer is None
                ):
                    line, sent_challenge = (
                        json.dumps({"type": "challenge", "challenge": game.challenge()}),
                        True,
                    )
                elif not sent_start and game.status != "created":
                    line, sent_start = (
                        json.dumps({"type": "gameStart", "game": game.summary()}),
                        True,
                    )
                elif sent_start and not sent_finish and game.status not in ("created", "started"):
                    line, sent_finish = (
                        json.dumps({"type": "gameFinish", "game": game.summary()}),
                        True,
                    )
                else:
                    game.changed.wait(KEEPALIVE)
                    line = ""
            if not self.chunk(line):
                return
        self.end_stream()

    def game_stream(self) -> None:
        game = self.server.game
        self.start_stream()
        with game.changed:
            first, seen = json.dumps(game.full()), game.version
        if not self.chunk(first):
            return
        while not self.server.stopping.is_set():
            with game.changed:
                if game.version == seen:
                    game.changed.wait(KEEPALIVE)
                if game.version == seen:
                    line = ""
                else:
                    seen = game.version
                    line = json.dumps(game.state())
                over = game.status not in ("created", "started")
            if not self.chunk(line):
                return
            if over and line:
                break
        self.end_stream()


class StandinServer(ThreadingHTTPServer):
    """The HTTP server, its game, and a log of the requests."""

    daemon_threads = True

    def __init__(self, port: int, game: Game, log_path: Path | None) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        self.game = game
        self.stopping = threading.Event()
        self.log_file = log_path.open("w") if log_path else None
        self.log_lock = threading.Lock()

    def log(self, text: str) -> None:
        if self.log_file is not None:
            with self.log_lock:
                self.log_file.write(
                    f"{datetime.datetime.now().isoformat(timespec='milliseconds')} {text}\n"
                )
                self.log_file.flush()

    def pgn(self) -> str:
        return game_pgn(self.game)
