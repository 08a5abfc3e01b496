"""Pull throughput over loopback against a local ingest of the same file.

A generated ``ordersage-longterm`` campaign (native JSON Lines) is put in a spool
and served by a real ``perfwarehouse agent serve`` process on 127.0.0.1. Each
repeat ingests it into a fresh warehouse twice, alternating the order:

* baseline: ``ingest_jsonl`` of the local file (one batch, what ``perfwarehouse
  ingest jsonl`` does);
* pull: ``ingest.pull`` through HTTP range requests, chunk by chunk, each chunk
  landed with its cursor in one transaction (what ``perfwarehouse ingest pull``
  does), for each chunk size asked for.

Both run in this process (no interpreter start-up counted). Prints the median
trials/s of each and the ratio pull / local.

    .venv/bin/python benchmarks/bench_pull.py [--scale 0.13] [--repeats 5] [--chunk-mb 32 64]
"""

from __future__ import annotations

import argparse
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from perfwarehouse.generate import generate_to_file
from perfwarehouse.ingest.pull import PullOptions, load_sources, pull
from perfwarehouse.ingest.service import ingest_jsonl
from perfwarehouse.warehouse.store import Warehouse


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=0.13,
                        help="fraction of the 2.3M-trial campaign (0.13: about 300,000 trials)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--chunk-mb", type=float, nargs="+", default=[32.0, 64.0])
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-pull-") as tmp_name:
        tmp = Path(tmp_name)
        spool = tmp / "spool"
        spool.mkdir()
        generated = tmp / "campaign.jsonl"
        trials, _truth = generate_to_file("ordersage-longterm", generated, seed=1, scale=args.scale)
        segment = spool / "campaign-0001.jsonl"
        shutil.move(generated, segment)
        size_mb = segment.stat().st_size / 1e6
        token = tmp / "token"
        token.write_text(secrets.token_urlsafe(32))
        token.chmod(0o600)
        server = subprocess.Popen(
            [sys.executable, "-m", "perfwarehouse", "agent", "serve", "--spool", str(spool),
             "--port", "0", "--token-file", str(token)], stdout=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            url = "http://" + line.split("http://", 1)[1].split()[0]
            sources = tmp / "sources.toml"
            sources.write_text(f'[[agent]]\nname = "bench"\nurl = "{url}"\n'
                               f'token_file = "{token}"\n')
            agents = load_sources(sources)
            print(f"{trials:,} trials, {size_mb:.0f} MB, served at {url}; "
                  f"{args.repeats} repeats", flush=True)
            local: list[float] = []
            pulled: dict[float, list[float]] = {c: [] for c in args.chunk_mb}
            for repeat in range(args.repeats):
                steps = [("local", None)] + [("pull", c) for c in args.chunk_mb]
                if repeat % 2:
                    steps.reverse()
                for kind, chunk_mb in steps:
                    home = tmp / f"wh-{repeat}-{kind}-{chunk_mb}"
                    warehouse = Warehouse(home)
                    start = time.perf_counter()
                    if kind == "local":
                        summary = ingest_jsonl(warehouse, [segment])
                        added = summary.trials_added
                    else:
                        assert chunk_mb is not None
                        reports = pull(warehouse, agents,
                                       PullOptions(chunk_bytes=int(chunk_mb * (1 << 20))))
                        added = reports[0].trials_added
                        assert reports[0].ok, reports[0].lines()
                    seconds = time.perf_counter() - start
                    assert added == trials, (kind, added, trials)
                    (local if kind == "local" else pulled[chunk_mb]).append(seconds)
                    shutil.rmtree(home)
        finally:
            server.terminate()
            server.wait(timeout=30)

    base = statistics.median(local)
    print(f"local ingest jsonl        : median {base:6.2f} s  {trials / base:>10,.0f} trials/s  "
          f"(runs: {', '.join(f'{s:.2f}' for s in local)})")
    for chunk_mb, times in pulled.items():
        median = statistics.median(times)
        print(f"pull, {chunk_mb:g} MB chunks".ljust(26) + f": median {median:6.2f} s  "
              f"{trials / median:>10,.0f} trials/s  (runs: {', '.join(f'{s:.2f}' for s in times)})"
              f"  pull/local throughput = {base / median:.2f}")


if __name__ == "__main__":
    main()
