"""Open a report in headless Chromium (Debian's ``chromium``) and read back what the
page recorded: per chart ``data-chart-status`` (drawn / empty / failed), the number of
drawn mark items and any Vega warning, and in ``#report-status`` the totals, the
resources the page fetched and the Content-Security-Policy violations it caused.

The browser runs offline (every host name resolves to nothing), with a throw-away
profile, and ``--dump-dom`` prints the DOM after the page's scripts ran (virtual time
lets the asynchronous drawing finish without waiting in real time).
"""

from __future__ import annotations

import html.parser
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@dataclass
class Chart:
    name: str
    status: str
    items: int
    warnings: str


@dataclass
class Loaded:
    charts: list[Chart] = field(default_factory=list)
    status: dict[str, str] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    dom: str = ""


class _Reader(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.loaded = Loaded()
        self._in_failure = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "data-chart-id" in a:
            self.loaded.charts.append(Chart(a.get("data-chart-name", ""),
                                            a.get("data-chart-status", ""),
                                            int(a.get("data-chart-items") or 0),
                                            a.get("data-chart-warnings", "")))
        if a.get("id") == "report-status":
            self.loaded.status = {k[5:]: v for k, v in a.items() if k.startswith("data-")}
        self._in_failure = tag == "p" and "chart-failed" in a.get("class", "").split()

    def handle_data(self, data: str) -> None:
        if self._in_failure:
            self.loaded.failures.append(data)
            self._in_failure = False


_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--disable-extensions", "--disable-dev-shm-usage", "--hide-scrollbars",
          "--host-resolver-rules=MAP * ~NOTFOUND"]


def load(page: Path, budget_ms: int = 120_000, timeout_s: float = 300,
         window: tuple[int, int] | None = None, fragment: str = "") -> Loaded:
    """Open ``page`` in headless Chromium (a ``window`` of width x height pixels, when
    given; at ``#fragment``, when given) and return what it recorded."""
    exe = chromium()
    if exe is None:
        raise RuntimeError("chromium is not installed (run .ci/setup --browser)")
    size = [f"--window-size={window[0]},{window[1]}"] if window else []
    with tempfile.TemporaryDirectory(prefix="pw-chromium-") as profile:
        result = subprocess.run(
            [exe, *_FLAGS, *size, f"--user-data-dir={profile}",
             f"--virtual-time-budget={budget_ms}", "--dump-dom",
             page.resolve().as_uri() + (f"#{fragment}" if fragment else "")],
            capture_output=True, text=True, timeout=timeout_s, check=False)
    if result.returncode != 0 or not result.stdout:
        raise RuntimeError(f"chromium failed ({result.returncode}): {result.stderr[-2000:]}")
    reader = _Reader()
    reader.feed(result.stdout)
    reader.loaded.dom = result.stdout
    return reader.loaded


def screenshot(page: Path, out: Path, window: tuple[int, int] = (1400, 4000),
               budget_ms: int = 120_000, timeout_s: float = 300) -> Path:
    """A PNG of ``page`` as Chromium draws it in a window of ``window`` pixels (the
    charts drawn first: virtual time lets the drawing finish)."""
    exe = chromium()
    if exe is None:
        raise RuntimeError("chromium is not installed (run .ci/setup --browser)")
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pw-chromium-") as profile:
        result = subprocess.run(
            [exe, *_FLAGS, f"--window-size={window[0]},{window[1]}",
             f"--user-data-dir={profile}", f"--virtual-time-budget={budget_ms}",
             f"--screenshot={out.resolve()}", page.resolve().as_uri()],
            capture_output=True, text=True, timeout=timeout_s, check=False)
    if result.returncode != 0 or not out.exists():
        raise RuntimeError(f"chromium failed ({result.returncode}): {result.stderr[-2000:]}")
    return out
