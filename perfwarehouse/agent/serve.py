"""``perfwarehouse agent serve``: the spool, read-only over HTTP (11).

Two resources, both ``GET`` (and ``HEAD``) only, both behind a bearer token:

* ``/segments``: ``{"segments": [{"name": ..., "size": ...}, ...]}``, the
  segments of the spool, sorted by name;
* ``/segments/NAME``: the bytes of one segment; a single ``Range: bytes=a-b``
  (or ``a-``, or ``-n``) is answered with ``206 Partial Content`` and a
  ``Content-Range`` header, a range starting at or past the end with ``416``.

Security (the server is meant to run on every worker of a fleet):

* the token is read from a file (never the command line) and compared with
  :func:`hmac.compare_digest`; a request without the right token gets ``401``
  and nothing else, whatever it asks for;
* it binds to 127.0.0.1 unless ``--host`` says otherwise;
* a segment name must match :data:`~perfwarehouse.protocol.SEGMENT_NAME`
  (no ``/``, no leading dot, so no ``..``, no absolute path; encoded slashes
  are decoded before routing and then fail the match); the file is opened
  relative to a descriptor of the spool directory with ``O_NOFOLLOW`` (no
  symlinks), must be a regular file (no FIFO, device or directory), and its
  resolved path must be inside the spool. (A hard link *is* a file in the spool:
  it is served. Linux's ``fs.protected_hardlinks``, on by default, stops anyone
  linking a file they could not already read and write.)
* nothing writes: there is no route that could, unless measuring is switched on
  (``--measure-root DIR``): then ``POST /measure`` runs a measuring request of a
  bisection on a repository inside DIR and appends its trials to the spool
  (:mod:`perfwarehouse.bisect.service`, given to :func:`serve` by the command line, so that
  the agent does not import the bisection; docs/agents.md).
"""

from __future__ import annotations

import builtins
import hmac
import json
import os
import re
import signal
import socket
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from perfwarehouse.errors import UsageError
from perfwarehouse.protocol import SEGMENT_NAME, is_segment_name, read_token  # noqa: F401

BLOCK = 1 << 20
_RANGE = re.compile(r"bytes=(\d*)-(\d*)")
MAX_OFFSET_DIGITS = 18  # an offset of more digits is past any file: a first byte
# there is answered 416, a last byte (or a suffix length) is clamped to the file (206)
# What one client can hold (slow or idle clients, slowloris). Authenticated requests
# and connections that wait (no request in progress: idle, or trickling headers) have
# separate limits, so unauthenticated sockets never take the capacity authenticated
# clients need: at most LIMIT_CONCURRENCY authenticated requests at once (more get 503,
# which a pull retries); at most WAITING_MAX waiting connections, the oldest closed when
# a new one arrives past it (an attacker's many sockets are evicted by a client's new
# one). A request's line and headers must arrive whole within HEADER_TIMEOUT_S and be at
# most MAX_HEADER_BYTES; an unauthenticated request is answered 401 at once; an idle
# keep-alive connection is closed after KEEP_ALIVE_S; a client that stops reading a
# response for SEND_TIMEOUT_S loses its connection.
LIMIT_CONCURRENCY = 64
WAITING_MAX = 64
HEADER_TIMEOUT_S = 10.0
KEEP_ALIVE_S = 5
MAX_HEADER_BYTES = 16 * 1024
SEND_TIMEOUT_S = 60.0
MEDIA_TYPE = "application/jsonl"


class Spool:
    """The served directory: lists segments and opens them safely."""

    def __init__(self, root: Path) -> None:
        self.root = Path(os.path.realpath(root))
        if not self.root.is_dir():
            raise UsageError(f"the spool {root} is not a directory")
        self.dir_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)

    def list(self) -> list[dict[str, object]]:
        segments = []
        with os.scandir(self.root) as entries:
            for entry in entries:
                if is_segment_name(entry.name) and entry.is_file(follow_symlinks=False):
                    size = entry.stat(follow_symlinks=False).st_size
                    segments.append({"name": entry.name, "size": size})
        return sorted(segments, key=lambda s: str(s["name"]))

    def refused(self) -> builtins.list[str]:  # (list: the method above, in this class)
        """``*.jsonl`` entries of the spool that are not served, each with the reason."""
        reasons = []
        with os.scandir(self.root) as entries:
            for entry in entries:
                if not entry.name.endswith(".jsonl"):
                    continue
                if not is_segment_name(entry.name):
                    reasons.append(f"{entry.name!r}: segment names must match "
                                   f"{SEGMENT_NAME.pattern}")
                elif entry.is_symlink():
                    reasons.append(f"{entry.name}: a symbolic link")
                elif not entry.is_file(follow_symlinks=False):
                    reasons.append(f"{entry.name}: not a regular file")
        return sorted(reasons)

    def open(self, name: str) -> int | None:
        """A read-only descriptor of segment ``name``, or None if it is not a servable segment."""
        if not is_segment_name(name):
            return None
        resolved = os.path.realpath(self.root / name)
        if os.path.dirname(resolved) != str(self.root):
            return None
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                         dir_fd=self.dir_fd)
        except OSError:
            return None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            return None
        return fd


def _read_range(fd: int, start: int, length: int) -> Iterator[bytes]:
    """Blocks of ``length`` bytes from ``start``; closes ``fd`` when done (or dropped)."""
    try:
        position, end = start, start + length
        while position < end:
            block = os.pread(fd, min(BLOCK, end - position), position)
            if not block:
                return
            position += len(block)
            yield block
    finally:
        os.close(fd)


MAX_MEASURE_BODY = 64 * 1024  # a measuring request's JSON body


def create_app(spool_dir: Path, token: str, measurer=None):
    """The ASGI application: the two routes and ``POST /measure`` (answered by
    ``measurer.answer(body) -> (status, JSON)``, :class:`perfwarehouse.bisect.service.Measurer`;
    403 without one) behind the bearer-token check."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response, StreamingResponse
    from starlette.routing import Route

    spool = Spool(spool_dir)

    def not_found() -> Response:
        return JSONResponse({"error": "no such segment"}, status_code=404)

    async def list_segments(request: Request) -> Response:
        return JSONResponse({"segments": spool.list()}, headers={"Cache-Control": "no-store"})

    async def get_segment(request: Request) -> Response:
        fd = spool.open(request.path_params["name"])
        if fd is None:
            return not_found()
        size = os.fstat(fd).st_size
        headers = {"Accept-Ranges": "bytes", "Cache-Control": "no-store",
                   "X-Segment-Size": str(size)}
        wanted = request.headers.get("range")
        status, start, end = 200, 0, size - 1
        if wanted is not None:
            match = _RANGE.fullmatch(wanted.strip())
            if not match or not (match.group(1) or match.group(2)):
                os.close(fd)
                return JSONResponse({"error": "only one range, as bytes=FIRST-LAST, is supported"},
                                    status_code=400)
            first, last = match.group(1), match.group(2)
            if len(first) > MAX_OFFSET_DIGITS:  # starts past any file
                os.close(fd)
                return Response(status_code=416, headers={**headers,
                                                          "Content-Range": f"bytes */{size}"})
            # RFC 9110 14.1.2: a last position (or suffix length) past the end is clamped
            # to the file; one of more than 18 digits is past any file (never int()-ed)
            huge = len(last) > MAX_OFFSET_DIGITS
            if first:
                start = int(first)
                end = min(int(last), size - 1) if last and not huge else size - 1
            else:
                start, end = (0 if huge else max(0, size - int(last))), size - 1
            if start >= size or end < start:
                os.close(fd)
                return Response(status_code=416, headers={**headers,
                                                          "Content-Range": f"bytes */{size}"})
            status = 206
            headers["Content-Range"] = f"bytes {start}-{end}/{size}"
        length = max(0, end - start + 1)
        headers["Content-Length"] = str(length)
        if request.method == "HEAD":
            os.close(fd)
            return Response(status_code=status, headers=headers, media_type=MEDIA_TYPE)
        return StreamingResponse(_read_range(fd, start, length), status_code=status,
                                 headers=headers, media_type=MEDIA_TYPE)

    async def measure(request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        if measurer is None:
            return JSONResponse({"error": "this agent does not measure (start it with "
                                          "--measure-root DIR)"}, status_code=403)
        body = b""
        async for piece in request.stream():
            body += piece
            if len(body) > MAX_MEASURE_BODY:
                return JSONResponse({"error": f"the request is over {MAX_MEASURE_BODY} bytes"},
                                    status_code=413)
        status, answer = await run_in_threadpool(measurer.answer, body)  # blocks: a thread
        return JSONResponse(answer, status_code=status, headers={"Cache-Control": "no-store"})

    app = Starlette(routes=[
        Route("/segments", list_segments, methods=["GET"]),
        Route("/segments/{name}", get_segment, methods=["GET"]),
        Route("/measure", measure, methods=["POST"]),
    ])
    app.router.redirect_slashes = False  # /segments/ is not a resource: 404, not a redirect
    return BearerAuth(app, token)


class BearerAuth:
    """ASGI wrapper: every HTTP request needs ``Authorization: Bearer <token>``."""

    def __init__(self, app, token: str) -> None:
        self.app = app
        self.expected = token.encode()
        self.active = 0  # authenticated requests in progress (one event loop: no lock)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            return  # no websockets: the connection is refused
        given = b""
        for key, value in scope.get("headers", ()):
            if key == b"authorization":
                given = value
        scheme, _, credential = given.partition(b" ")
        authorised = hmac.compare_digest(credential.strip(), self.expected) \
            and scheme.lower() == b"bearer"
        if authorised:
            if self.active >= LIMIT_CONCURRENCY:
                await _plain(send, 503, b"the agent is busy: retry", [(b"retry-after", b"1")])
                return
            self.active += 1
            try:
                await self.app(scope, receive, _bounded(send))
            finally:
                self.active -= 1
            return
        body = json.dumps({"error": "missing or wrong bearer token"}).encode()
        await send({"type": "http.response.start", "status": 401, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"www-authenticate", b'Bearer realm="perfwarehouse-agent"')]})
        await send({"type": "http.response.body", "body": body})


async def _plain(send, status: int, text: bytes, headers: list) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"text/plain"), (b"content-length", str(len(text)).encode()),
        *headers]})
    await send({"type": "http.response.body", "body": text})


def _bounded(send):
    """``send`` that gives up (closing the connection) on a client that stops reading."""
    import asyncio

    async def bounded_send(message) -> None:
        await asyncio.wait_for(send(message), SEND_TIMEOUT_S)

    return bounded_send


def _protocol(header_timeout_s: float, waiting_max: int = WAITING_MAX):
    """uvicorn's h11 protocol, closing a connection whose request line and headers do not
    arrive whole within ``header_timeout_s`` (uvicorn itself only times out idle
    keep-alive connections, so a client trickling headers could hold one forever), and
    keeping at most ``waiting_max`` connections without a request in progress (the
    oldest is closed when a new one arrives past the limit)."""
    from collections import OrderedDict

    from uvicorn.protocols.http.h11_impl import H11Protocol

    waiting: OrderedDict[H11Protocol, None] = OrderedDict()  # oldest first

    class BoundedH11Protocol(H11Protocol):
        _deadline = None
        _cycle_when_armed = None

        def _arm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            self._cycle_when_armed = self.cycle
            self._deadline = self.loop.call_later(header_timeout_s, self._too_slow)
            waiting[self] = None
            waiting.move_to_end(self)
            while len(waiting) > waiting_max:
                oldest, _ = waiting.popitem(last=False)
                if not oldest.transport.is_closing():
                    oldest.transport.close()

        def _too_slow(self) -> None:
            self._deadline = None
            if self.cycle is self._cycle_when_armed and not self.transport.is_closing():
                waiting.pop(self, None)
                self.transport.close()  # no new request started in time

        def handle_events(self) -> None:
            super().handle_events()
            if self.cycle is not self._cycle_when_armed:
                waiting.pop(self, None)  # a request is in progress: no longer waiting

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            waiting.pop(self, None)
            super().connection_lost(exc)

    return BoundedH11Protocol


def serve(spool_dir: Path, port: int, token_file: Path, host: str = "127.0.0.1",
          ready: Callable[[str], None] | None = None, measurer=None) -> None:
    """Serve ``spool_dir`` until interrupted; ``ready`` gets one line with the URL. With
    ``measurer`` (:class:`perfwarehouse.bisect.service.Measurer`), also measure on request
    (``POST /measure``)."""
    import uvicorn

    token = read_token(token_file)
    mode = Path(token_file).stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        print(f"warning: the token file {token_file} is readable by other users "
              f"(chmod 600 {token_file})", file=sys.stderr)
    app = create_app(spool_dir, token, measurer)
    for reason in Spool(spool_dir).refused():
        print(f"warning: not serving {reason}", file=sys.stderr)
    try:
        family, kind, proto, _name, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc}") from None
    sock.listen(128)
    bound_host, bound_port = sock.getsockname()[:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                            server_header=False, http=_protocol(HEADER_TIMEOUT_S),
                            timeout_keep_alive=KEEP_ALIVE_S,  # limits: BearerAuth, _protocol
                            h11_max_incomplete_event_size=MAX_HEADER_BYTES, backlog=128)
    server = uvicorn.Server(config)
    if ready:
        how = "read-only" if measurer is None else \
            f"and measuring in repositories under {measurer.root}"
        ready(f"serving {Path(spool_dir).resolve()} {how} on http://{shown}:{bound_port} "
              "(Ctrl-C to stop)")
    if measurer is not None:  # uvicorn re-raises a SIGTERM after its shutdown: let it
        signal.signal(signal.SIGTERM, _exit_on_sigterm)  # end here, checkouts removed
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
        if measurer is not None:
            measurer.close()


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)
