"""What a local server checks before it answers (docs/web.md, Security): the Host it is served as
(against DNS rebinding), the Origin of the websocket and of every request that changes something
(same origin only), JSON bodies sent as ``application/json`` only, and bounds on what may wait.

A missing Origin is let through: browsers send one on every websocket and every POST, so only
programs that are not browsers (curl, python's clients, the tests) come without one, and they
could write any Origin they liked.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocketClose

#: The names of this machine's loopback addresses, the ones a server bound to loopback is served as.
LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: Listening on every address: the loopback names reach it too.
WILDCARDS = ("0.0.0.0", "::", "")
#: Requests that change nothing (the rest must come from the page's own origin).
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
#: The one content type of a request body.
JSON_TYPE = "application/json"
#: What a websocket refused at its handshake is closed with (policy violation: the client sees 403).
POLICY_VIOLATION = 1008


class Busy(RuntimeError):
    """Too much waits already: the request is refused at once (503) rather than queued."""


class Bound:
    """At most ``most`` of one kind of work in flight (running or waiting); one more is
    :class:`Busy`."""

    def __init__(self, most: int, what: str) -> None:
        self.most, self.what, self.count = most, what, 0

    @contextmanager
    def hold(self) -> Iterator[None]:
        if self.count >= self.most:
            raise Busy(
                f"too many {self.what} waiting (at most {self.most} at once): try again when"
                " one is answered"
            )
        self.count += 1
        try:
            yield
        finally:
            self.count -= 1


def served_as(host: str, also: Iterable[str] = ()) -> tuple[str, ...]:
    """The host names a server listening on ``host`` is served as: ``host`` itself, the loopback
    names when it listens on loopback or on every address, and ``also`` (names given by hand)."""
    host = _name(host)
    names = [host] if host not in WILDCARDS else []
    if host in LOOPBACK or host in WILDCARDS:
        names += LOOPBACK
    return tuple(dict.fromkeys(_name(name) for name in [*names, *also]))


def _name(host: str) -> str:
    """A host name as a Host header's is compared: lower case, an IPv6 address without brackets."""
    return host.lower().strip("[]")


def split_host(value: str) -> tuple[str, int | None] | None:
    """A Host header (``name``, ``name:port``, ``[::1]:port``) as its lower-case name and port, or
    None when it is not one."""
    try:
        parts = urlsplit(f"//{value}")
        return (parts.hostname or "").lower(), parts.port
    except ValueError:
        return None


class Guard:
    """ASGI middleware: refuses, before the app sees it, an HTTP request or a websocket whose Host
    is not one the server is served as (400), whose Origin is another site's (403), or a body that
    is not ``application/json`` (415). ``port`` None accepts any port (the tests' clients)."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str], port: int | None = None) -> None:
        self.app, self.hosts, self.port = app, tuple(hosts), port

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            refused = self.refusal(scope)
            if refused is not None:
                status, message = refused
                if scope["type"] == "websocket":
                    await WebSocketClose(POLICY_VIOLATION, message)(scope, receive, send)
                else:
                    await JSONResponse({"error": message}, status_code=status)(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """Why this request is refused, as a status and a message, or None."""
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        split = split_host(host)
        if split is None or split[0] not in self.hosts or not self._port_ok(split[1], scope):
            return 400, (
                f"this server is not served as {host[:100]!r} (it answers to"
                f" {', '.join(self.hosts)}; cbr-chess web --host or --allow-host names others)"
            )
        websocket = scope["type"] == "websocket"
        if websocket or scope["method"] not in SAFE_METHODS:
            origin = headers.get("origin")
            if origin is not None and not same_origin(origin, host):
                return (
                    403,
                    f"requests from another site ({origin[:100]}) are refused: use the page itself",
                )
        if not websocket and scope["method"] not in SAFE_METHODS:
            kind = headers.get("content-type", "").split(";")[0].strip().lower()
            if kind != JSON_TYPE:
                return 415, f"send the body as {JSON_TYPE} (not {kind or 'no content type'!r})"
        return None

    def _port_ok(self, port: int | None, scope: Scope) -> bool:
        if self.port is None:
            return True
        default = 443 if scope.get("scheme") in ("https", "wss") else 80
        return (port or default) == self.port


def same_origin(origin: str, host: str) -> bool:
    """Whether the Origin header names the site the request's Host names (http or https)."""
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return (
        parts.scheme in ("http", "https")
        and parts.netloc.lower() == host.lower()
        and not parts.path
    )
