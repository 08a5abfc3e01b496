"""``perfwarehouse cluster``: start a Dask cluster that ``--scheduler`` can run analyses on.

Only click is imported at module level; ``distributed`` is imported when a cluster
starts, so ``perfwarehouse --help`` does not pay for it.
"""

from __future__ import annotations

import time

import click

from perfwarehouse.cli.context import CONTEXT


@click.group(context_settings=CONTEXT)
def cluster() -> None:
    """Start a Dask cluster to run analyses on (see the global --scheduler option).

    On a real cluster, start `dask scheduler` and one `dask worker ADDRESS` per
    machine instead, with the same perfwarehouse installed everywhere and the
    warehouse on a file system every worker mounts at the same path.
    """


@cluster.command("local", context_settings=CONTEXT)
@click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True,
              help="Worker processes.")
@click.option("--memory-limit", default="auto", show_default=True,
              help="Memory limit of each worker (4GB, 0.5 of the machine, auto = an equal "
                   "share); a worker above 95 % of it is restarted.")
@click.option("--threads-per-worker", type=click.IntRange(min=1), default=1, show_default=True,
              help="Pieces each worker computes at once (DuckDB and numba use the cores of "
                   "one piece anyway).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Interface the scheduler and workers listen on (0.0.0.0 for all).")
@click.option("--port", type=click.IntRange(min=0, max=65535), default=8786, show_default=True,
              help="Scheduler port (0: any free port).")
@click.option("--dashboard/--no-dashboard", default=True, show_default=True,
              help="Serve Dask's dashboard on port 8787 (needs the bokeh package).")
def cluster_local(workers: int, memory_limit: str, threads_per_worker: int, host: str,
                  port: int, dashboard: bool) -> None:
    """A Dask LocalCluster on this machine (worker processes, each with its memory limit):
    prints its address for --scheduler and runs until Ctrl-C."""
    import importlib.util
    import logging

    try:
        from distributed import LocalCluster
    except ImportError:
        raise click.ClickException("this needs the `distributed` package (pinned in "
                                   ".ci/requirements.lock): pip install distributed") from None

    if dashboard and importlib.util.find_spec("bokeh") is None:
        dashboard = False  # distributed would only warn about it
    local = LocalCluster(
        n_workers=workers, threads_per_worker=threads_per_worker, processes=True,
        memory_limit=memory_limit, host=host, scheduler_port=port,
        dashboard_address=":8787" if dashboard else None, silence_logs=logging.ERROR)
    try:
        address = local.scheduler_address
        click.echo(f"Dask scheduler at {address} with {workers} worker processes "
                   f"({threads_per_worker} thread(s) each, memory limit {memory_limit})")
        if dashboard:
            click.echo(f"dashboard: {local.dashboard_link}")
        click.echo(f"run analyses on it with: perfwarehouse --scheduler {address} analyze JOB")
        click.echo("Ctrl-C stops the cluster")
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        click.echo("stopping the cluster", err=True)
    finally:
        local.close()
