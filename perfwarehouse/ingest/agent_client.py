"""The agents a pull reads (``ingest/sources.toml``) and the HTTP client of one agent:
bearer token, bounded retries with exponential backoff on transient failures, listing
and byte-range reads that never take more bytes than asked for, an overall deadline.

The transport of :mod:`perfwarehouse.ingest.pull` (which keeps the cursors and lands
what it fetches).
"""

from __future__ import annotations

import json
import random
import re
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from perfwarehouse.errors import (
    AgentError,
    SegmentChangedError,
    TransientAgentError,
    UsageError,
)
from perfwarehouse.protocol import is_segment_name, read_token

MAX_LISTING_BYTES = 16 << 20  # the segment list of one agent
RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})


# ----------------------------------------------------------------- sources
@dataclass(frozen=True)
class AgentSource:
    """One ``[[agent]]`` of ``sources.toml``."""

    name: str
    url: str
    token_file: Path


def load_sources(path: Path) -> list[AgentSource]:
    """The agents listed in ``path``; a relative ``token_file`` is relative to that file."""
    path = Path(path)
    try:
        content = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"no sources file {path}; list your agents there as [[agent]] tables "
                         "with name, url and token_file (see docs/agents.md)") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path}: not a valid TOML file ({exc})") from None
    agents = content.get("agent", [])
    if not isinstance(agents, list) or not agents:
        raise UsageError(f"{path} lists no agents; add [[agent]] tables with name, url and "
                         "token_file")
    sources, names = [], set()
    for number, table in enumerate(agents, 1):
        if not isinstance(table, dict):
            raise UsageError(f"{path}: [[agent]] number {number} is not a table")
        missing = [k for k in ("name", "url", "token_file") if not isinstance(table.get(k), str)
                   or not table.get(k)]
        if missing:
            raise UsageError(f"{path}: [[agent]] number {number} needs {', '.join(missing)} "
                             "(strings)")
        unknown = sorted(set(table) - {"name", "url", "token_file"})
        if unknown:
            raise UsageError(f"{path}: [[agent]] {table['name']!r} has unknown key(s) "
                             f"{', '.join(unknown)}")
        if table["name"] in names:
            raise UsageError(f"{path}: two agents are named {table['name']!r}; names identify "
                             "cursors, so they must be unique")
        names.add(table["name"])
        url = table["url"].rstrip("/")
        if not url.startswith(("http://", "https://")):
            raise UsageError(f"{path}: agent {table['name']!r} url must start with http:// or "
                             "https://")
        token_file = Path(table["token_file"]).expanduser()
        if not token_file.is_absolute():
            token_file = path.parent / token_file
        sources.append(AgentSource(table["name"], url, token_file))
    return sources


# ------------------------------------------------------------------ client
class AgentClient:
    """HTTP client of one agent: bearer token, bounded retries with exponential backoff."""

    def __init__(self, source: AgentSource, *, retries: int = 5, backoff_s: float = 0.5,
                 timeout_s: float = 60.0, on_retry: Callable[[str], None] | None = None,
                 deadline_s: float = float("inf")) -> None:
        import httpx

        self.source = source
        self.deadline = time.monotonic() + deadline_s  # the whole pull of this agent
        self.deadline_s = deadline_s
        self.retries = retries
        self.backoff_s = backoff_s
        self.on_retry = on_retry
        token = read_token(source.token_file)
        self.http = httpx.Client(base_url=source.url, headers={"Authorization": f"Bearer {token}"},
                                 timeout=httpx.Timeout(timeout_s, connect=min(10.0, timeout_s)))
        self._transient = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)

    def close(self) -> None:
        self.http.close()

    def _get(self, path: str, headers: dict[str, str] | None = None,
             limit: int = MAX_LISTING_BYTES) -> tuple[int, dict[str, str], bytes]:
        """(status, headers, body) of one GET, retried on transient failures. The body is
        streamed and never read past ``limit`` bytes: an agent sending more is refused."""
        where = f"agent {self.source.name} ({self.source.url})"
        headers = {**(headers or {}), "Accept-Encoding": "identity"}
        for attempt in range(self.retries + 1):
            self.check_deadline()
            try:
                with self.http.stream("GET", path, headers=headers) as response:
                    status = response.status_code
                    if status not in RETRYABLE_STATUS:
                        if status in (401, 403):
                            raise AgentError(
                                f"{where} refused the token in {self.source.token_file} (HTTP "
                                f"{status}); it must match the agent's --token-file")
                        return status, dict(response.headers), _capped(
                            response, limit, where, path, self.check_deadline)
                    problem = f"HTTP {status}"
            except self._transient as exc:
                problem = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            if attempt == self.retries:
                raise TransientAgentError(f"{where}: {problem}; gave up after {attempt + 1} "
                                          "attempts")
            delay = self.backoff_s * 2**attempt * (1 + 0.25 * random.random())
            delay = max(0.0, min(delay, self.deadline - time.monotonic()))
            if self.on_retry:
                self.on_retry(f"{where}: {problem}; retrying in {delay:.1f} s")
            time.sleep(delay)
        raise AssertionError("unreachable")

    def check_deadline(self) -> None:
        """:class:`AgentError` once the agent's overall deadline has passed (an agent
        answering a byte a second would otherwise hold a pull for ever: each read is
        within the read timeout)."""
        if time.monotonic() > self.deadline:
            raise AgentError(f"agent {self.source.name} ({self.source.url}) did not finish "
                             f"within the deadline of {self.deadline_s:g} s (--agent-deadline); "
                             "what landed before stays, the next pull goes on from there")

    def segments(self) -> list[tuple[str, int]]:
        status, _headers, body = self._get("/segments")
        if status != 200:
            raise AgentError(f"agent {self.source.name}: listing segments answered HTTP "
                             f"{status}")
        try:
            listed = json.loads(body)["segments"]
            segments = [(str(s["name"]), s["size"]) for s in listed]
        except (ValueError, KeyError, TypeError):
            raise AgentError(f"agent {self.source.name} ({self.source.url}) did not answer with a "
                             "segment list; is it a perfwarehouse agent?") from None
        for name, size in segments:  # a size is a whole number of bytes a file can have
            if type(size) is not int or not 0 <= size < 10**18:
                raise AgentError(f"agent {self.source.name} ({self.source.url}) lists segment "
                                 f"{name[:80]!r} with size {str(size)[:40]}, not a byte count; "
                                 "refused, nothing of this agent was pulled")
        return [(name, size) for name, size in segments if is_segment_name(name)]

    def fetch(self, segment: str, start: int, end: int) -> bytes:
        """Bytes ``[start, end)`` of ``segment``; fewer only if the segment is shorter.

        Never reads more than ``end - start`` bytes of the answer, and checks its
        ``Content-Range`` against what was asked: an agent answering with more (or other)
        bytes is refused with :class:`AgentError` before anything is parsed or landed.
        """
        status, headers, body = self._get(f"/segments/{segment}",
                                          {"Range": f"bytes={start}-{end - 1}"},
                                          limit=end - start)
        if status == 404:
            raise SegmentChangedError(f"segment {segment} is no longer on the agent")
        if status == 416:
            return b""
        if status != 206:
            raise AgentError(f"agent {self.source.name}: range request for {segment} answered "
                             f"HTTP {status}")
        content_range = headers.get("content-range", "")
        match = _CONTENT_RANGE.fullmatch(content_range.strip())
        if not match or int(match.group(1)) != start:
            raise AgentError(f"agent {self.source.name}: {segment} came back as {content_range!r}"
                             f", not from byte {start}")
        first, last = int(match.group(1)), int(match.group(2))
        if last >= end or last - first + 1 != len(body):
            raise AgentError(
                f"agent {self.source.name}: {segment} answered bytes {first}-{last} with "
                f"{len(body):,} bytes of body for bytes {start}-{end - 1} asked; refused, "
                "nothing of it was ingested")
        return body


_CONTENT_RANGE = re.compile(r"bytes (\d{1,18})-(\d{1,18})/(\d{1,18}|\*)")


def _capped(response, limit: int, where: str, path: str,
            check_deadline: Callable[[], None] = lambda: None) -> bytes:
    """The body of a streamed ``response``, refused as soon as it exceeds ``limit`` bytes
    (or the agent's deadline passes: checked at every piece received)."""
    declared = response.headers.get("content-length")
    if declared is not None and (not (declared.isascii() and declared.isdigit())
                                 or int(declared) > limit):
        raise AgentError(f"{where} answered {path} with {declared} bytes, more than the "
                         f"{limit:,} asked for; refused, nothing of it was ingested")
    chunks, size = [], 0
    for chunk in response.iter_raw():
        check_deadline()
        size += len(chunk)
        if size > limit:
            raise AgentError(f"{where} sent more than the {limit:,} bytes asked for {path}; "
                             "refused, nothing of it was ingested")
        chunks.append(chunk)
    return b"".join(chunks)
