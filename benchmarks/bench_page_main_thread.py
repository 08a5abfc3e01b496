"""Main-thread time of a report page in headless Chromium (issue 40, item 8).

    .venv/bin/python benchmarks/bench_page_main_thread.py PAGE.html [PAGE.html ...]
        [--repeat 3] [--settle 2.0]

    # a page with four 1,880-row tables, without a warehouse:
    .venv/bin/python benchmarks/bench_page_main_thread.py --synthetic 1880 --out /tmp/big.html

Opens each page in headless Chromium (Debian's ``chromium``, offline: every host name
resolves to nothing) over the Chrome DevTools Protocol, waits until the page's charts
say they are done (``#report-status[data-state=done]``) and ``--settle`` seconds more,
then reads ``Performance.getMetrics``: ``TaskDuration`` (all the renderer main thread's
task time since the page started loading: parsing, style, layout, paint, scripts),
``ScriptDuration``, ``LayoutDuration``, ``RecalcStyleDuration``, and the number of DOM
``Nodes``. Prints the median of ``--repeat`` loads of each page (each in a fresh browser).

Standard library only: a WebSocket client small enough for CDP's text frames.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--disable-dev-shm-usage", "--hide-scrollbars",
         "--host-resolver-rules=MAP * ~NOTFOUND", "--window-size=1400,1000"]


class Socket:
    """A WebSocket client for CDP: text frames, client frames masked (RFC 6455)."""

    def __init__(self, url: str) -> None:
        m = re.match(r"ws://([^:/]+):(\d+)(/.*)", url)
        if m is None:
            raise ValueError(url)
        self.sock = socket.create_connection((m.group(1), int(m.group(2))), timeout=120)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {m.group(3)} HTTP/1.1\r\nHost: {m.group(1)}:{m.group(2)}\r\n"
                           "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
                          .encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError(head.decode(errors="replace"))
        self.next_id = 0

    def _exact(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise RuntimeError("the browser closed the connection")
            out += chunk
        return out

    def send(self, method: str, **params: Any) -> int:
        self.next_id += 1
        data = json.dumps({"id": self.next_id, "method": method, "params": params}).encode()
        n = len(data)
        header = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else
                                  bytes([0x80 | 126]) + n.to_bytes(2, "big") if n < 65536 else
                                  bytes([0x80 | 127]) + n.to_bytes(8, "big"))
        mask = os.urandom(4)
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
        return self.next_id

    def receive(self) -> dict[str, Any]:
        message = b""
        while True:
            b0, b1 = self._exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = int.from_bytes(self._exact(2), "big")
            elif n == 127:
                n = int.from_bytes(self._exact(8), "big")
            message += self._exact(n)
            if b0 & 0x80:
                return dict(json.loads(message))

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        wanted = self.send(method, **params)
        while True:
            reply = self.receive()
            if reply.get("id") == wanted:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))


def main_thread_cpu(ws: Socket) -> float:
    """Seconds of CPU time of the renderer main thread's top-level tasks while tracing
    (the trace events' ``tdur``: thread time, which other processes on a busy machine do
    not inflate, unlike the wall-clock ``TaskDuration``)."""
    ws.send("Tracing.end")
    events: list[dict[str, Any]] = []
    while True:
        message = ws.receive()
        if message.get("method") == "Tracing.dataCollected":
            events.extend(message["params"]["value"])
        elif message.get("method") == "Tracing.tracingComplete":
            break
    main = {(e["pid"], e["tid"]) for e in events
            if e.get("name") == "thread_name" and e.get("args", {}).get("name") == "CrRendererMain"}
    return sum(e.get("tdur", 0) for e in events
               if e.get("ph") == "X" and (e["pid"], e["tid"]) in main
               and e.get("name") in ("ThreadControllerImpl::RunTask", "RunTask")) / 1e6


def measure(page: Path, settle: float) -> dict[str, float]:
    """One load of ``page`` in a fresh browser: the Performance.getMetrics figures."""
    with tempfile.TemporaryDirectory(prefix="pw-cdp-") as profile:
        proc = subprocess.Popen(["chromium", *FLAGS, f"--user-data-dir={profile}",
                                 "--remote-debugging-port=0", "about:blank"],
                                stderr=subprocess.PIPE, text=True)
        try:
            assert proc.stderr is not None
            url = ""
            while not url:
                line = proc.stderr.readline()
                if not line:
                    raise RuntimeError("chromium exited")
                m = re.search(r"DevTools listening on (ws://\S+)", line)
                url = m.group(1) if m else ""
            port = re.search(r":(\d+)/", url).group(1)  # type: ignore[union-attr]
            import urllib.request

            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list") as r:
                target = next(t for t in json.load(r) if t["type"] == "page")
            ws = Socket(target["webSocketDebuggerUrl"])
            ws.call("Performance.enable")
            ws.call("Page.enable")
            ws.call("Tracing.start", categories="toplevel,devtools.timeline",
                    transferMode="ReportEvents")
            ws.call("Page.navigate", url=page.resolve().as_uri())
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline:
                state = ws.call("Runtime.evaluate", expression=(
                    "document.readyState + ' ' + ((document.getElementById('report-status')"
                    " || {dataset: {}}).dataset.state || '')"), returnByValue=True)
                value = state["result"].get("value", "")
                if value.startswith("complete") and value.endswith("done"):
                    break
                time.sleep(0.2)
            time.sleep(settle)
            metrics = {m["name"]: float(m["value"])
                       for m in ws.call("Performance.getMetrics")["metrics"]}
            metrics["CpuDuration"] = main_thread_cpu(ws)
            return metrics
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def synthetic_page(rows: int, out: Path, tables: int = 4) -> Path:
    """A page of ``tables`` per-configuration tables of ``rows`` rows each (the columns
    of the order-effects page's tables), written with the report renderer."""
    import numpy as np
    import pyarrow as pa

    from perfwarehouse.reports.page import CONFIGURATION_COLUMNS, Column, Page, Section, Table
    from perfwarehouse.reports.render import write_report

    rng = np.random.default_rng(1)
    columns = CONFIGURATION_COLUMNS + (
        Column("n_fixed", "trials fixed", "int"), Column("n_random", "trials random", "int"),
        Column("median_fixed", "median fixed", "float"),
        Column("median_random", "median random", "float"),
        Column("diff_pct", "difference (%)", "pct"), Column("p", "p", "pvalue"),
        Column("p_adj", "p adjusted", "pvalue"), Column("matters", "order matters", "bool"),
        Column("drill", "drill-down", "link"))
    data = pa.table({
        "benchmark": [f"bench-{i % 61}" for i in range(rows)],
        "settings": [json.dumps({"threads": i % 8, "size": f"{i % 5}G"}) for i in range(rows)],
        "hardware_type": [f"c{220 + i % 7}g5" for i in range(rows)],
        "campaign": ["ordersage-longterm"] * rows,
        "metric": [["throughput", "latency"][i % 2] for i in range(rows)],
        "unit": [["MB/s", "us"][i % 2] for i in range(rows)],
        "n_fixed": rng.integers(10, 400, rows), "n_random": rng.integers(10, 400, rows),
        "median_fixed": rng.lognormal(5, 1, rows), "median_random": rng.lognormal(5, 1, rows),
        "diff_pct": rng.normal(0, 5, rows), "p": rng.uniform(0, 1, rows) ** 3,
        "p_adj": rng.uniform(0, 1, rows), "matters": rng.uniform(0, 1, rows) < 0.1,
        "drill": [f"configuration/{i}.html" for i in range(rows)]})
    page = Page("Synthetic big tables", "Tables of the size of the demo's order-effects page.",
                tuple(Section(f"Section {t}", "", (Table(f"Table {t}", "Rows.", columns, data),))
                      for t in range(tables)))
    return write_report(page, out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--settle", type=float, default=2.0)
    parser.add_argument("--synthetic", type=int, default=0,
                        help="write a page of four tables of this many rows to --out first")
    parser.add_argument("--out", type=Path, default=Path("big-tables.html"))
    args = parser.parse_args()
    pages = list(args.pages)
    if args.synthetic:
        pages.append(synthetic_page(args.synthetic, args.out))
    print(f"load average {os.getloadavg()[0]:.2f}")
    for page in pages:
        runs = [measure(page, args.settle) for _ in range(args.repeat)]

        def med(name: str, runs: list[dict[str, float]] = runs) -> float:
            return statistics.median(r.get(name, float("nan")) for r in runs)

        times = ", ".join(f"{r['TaskDuration']:.2f}" for r in runs)
        cpu = ", ".join(f"{r['CpuDuration']:.2f}" for r in runs)
        print(f"{page} ({page.stat().st_size / 1e6:.2f} MB): main thread "
              f"{med('TaskDuration'):.2f} s (runs {times}), of it CPU "
              f"{med('CpuDuration'):.2f} s (runs {cpu}),"
              f" script {med('ScriptDuration'):.2f} s, layout {med('LayoutDuration'):.2f} s, "
              f"style {med('RecalcStyleDuration'):.2f} s, {med('Nodes'):,.0f} DOM nodes")


if __name__ == "__main__":
    main()
