"""A job worker ignores Ctrl-C from its first instruction: a Ctrl-C while it is still
starting (unpickling its target, importing perfwarehouse: a second or more on a busy
machine) must not print a KeyboardInterrupt traceback from the worker (CI saw one in
test_ctrl_c_stops_every_worker_and_no_job_finishes_after_it)."""

from __future__ import annotations

import multiprocessing
import signal

from perfwarehouse.jobs.parallel import _sigint_ignored


def _report_sigint(queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    # what the interpreter made of SIGINT at start-up, before anything here changed it
    queue.put(signal.getsignal(signal.SIGINT) == signal.SIG_IGN)


def _started_ignoring(ignored: bool) -> bool:
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=_report_sigint, args=(queue,))
    if ignored:
        with _sigint_ignored():
            process.start()
    else:  # the control: spawned while the parent has Python's handler (a parent
        # started in the background, e.g. by nohup ... &, inherits SIGINT ignored)
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            process.start()
        finally:
            signal.signal(signal.SIGINT, previous)
    result = queue.get(timeout=120)
    process.join(60)
    return bool(result)


def test_a_worker_spawned_with_sigint_ignored_ignores_it_from_birth() -> None:
    before = signal.getsignal(signal.SIGINT)
    assert _started_ignoring(True)
    assert signal.getsignal(signal.SIGINT) == before  # the parent's handler is back
    assert not _started_ignoring(False)  # the control: a plain spawn gets Python's handler
