"""The operational laws as consistency checks of load-test trials.

Over an observation period T with A arrivals, C completions and B busy time, the
operational laws (Denning and Buzen, "The operational analysis of queueing network
models", ACM Computing Surveys 10(3), 1978) hold exactly for measured quantities,
whatever the distributions: X = C/T, U = B/T = X S with S = B/C, and, with flow
balance (A = C), Little's law N = X R. The essay "On Performance Evaluation" (a
blog essay of July 24, 2019, sections "Operational laws" and "Load vs. Workload")
proposes them as a sanity check of reported measurements: "a paper describes an
experiment with N clients, then reports some numbers for throughput and latency.
A sanity check is that the values satisfy N = X.R. If not, clearly something is
wrong."

Checks, per trial (vectorised over trials), with relative residuals:

* closed loop (N clients with think time Z, each with ``outstanding`` requests in
  flight, default 1): the interactive response time law N = X (R + Z), residual
  ``X (R + Z) / N - 1``. Negative: fewer requests in flight than clients (a client
  bottleneck, the client's own time between a response and the next request, or a
  wrong clients setting); positive: more than N (pipelining not recorded as
  ``outstanding``, or latency in the wrong unit).
* open loop (offered rate ``rate_rps``): flow balance, completions = arrivals,
  residual ``X / A - 1`` with A the measured arrival rate when the tool reports it,
  else the offered rate. Negative: the server did not keep up (saturated: no steady
  state) or requests were lost; where A is measured, also ``A / rate_rps - 1``: the
  client did not generate the load it was asked for (load vs offered load).
* utilization law, where utilization U is measured and a service time S is known
  (``service_time_ms``, else busy time / completions): residual ``X S / U - 1``.

Checks that fit the tool. Where a tool's reported numbers cannot satisfy N = X (R + Z)
by construction, the closed-loop check is not applied (the trial is ``None``, not
checked, with the reason; the load job says it once per family):

* wrk 4 corrects its latency for coordinated omission: at the end of a run it adds
  synthetic samples for every response slower than the expected interval between
  requests (``stats_correct`` in wrk.c), so its mean latency is not the mean response
  time of the requests it counted, and X R exceeds N by up to 12x at low connection
  counts (measured: tests/fixtures/loadtest_sweeps, 1 connection: X R = 13.2);
* a latency printed with a coarse resolution (sysbench: 0.01 ms) leaves N = X R
  undecidable when the rounding alone moves X R by more than the tolerance
  (X * resolution/2 / N > tolerance: sysbench memory, 1.6M events/s at 0.00 ms).

A trial is ``consistent`` when every applicable check is within ``tolerance`` (a
fraction, default 0.10); ``reason`` names the worst violated check and what it
usually means. A trial with nothing to check (no throughput or latency) is
``None`` (unknown), with the reason.
"""

from __future__ import annotations

import numpy as np

from perfwarehouse.loadtest.parameters import DEFAULT_TOLERANCE
from perfwarehouse.loadtest.results import LAW_NAMES, LawChecks

#: generator -> why its trials cannot satisfy N = X(R+Z) by construction.
CLOSED_LAW_UNFIT = {
    "wrk": "wrk corrects its latency for coordinated omission (synthetic samples for "
           "responses slower than the expected interval), so its mean latency cannot "
           "satisfy N = X(R+Z)",
}
#: generator -> the resolution (ms) its latency is printed with.
LATENCY_RESOLUTION_MS = {"sysbench": 0.01}


def closed_law_unfit(generator: np.ndarray, clients: np.ndarray, throughput: np.ndarray,
                     tolerance: float) -> np.ndarray:
    """Per trial, why N = X(R+Z) cannot be checked for its tool (None where it can): the
    tool's latency by construction (:data:`CLOSED_LAW_UNFIT`), or a printed resolution
    whose rounding alone moves X R / N by more than ``tolerance``."""
    out = np.full(generator.size, None, dtype=object)
    for i, tool in enumerate(generator.tolist()):
        if tool in CLOSED_LAW_UNFIT:
            out[i] = CLOSED_LAW_UNFIT[tool]
        elif tool in LATENCY_RESOLUTION_MS:
            step = LATENCY_RESOLUTION_MS[tool]
            with np.errstate(invalid="ignore", divide="ignore"):
                moved = throughput[i] * step / 2e3 / clients[i]
            if moved > tolerance:
                out[i] = (f"{tool} prints latency to {step:g} ms: at its rates the rounding "
                          "alone moves X R by more than the tolerance")
    return out


def _arr(x: object, n: int) -> np.ndarray:
    if x is None:
        return np.full(n, np.nan)
    a = np.asarray(x, dtype=np.float64)
    return np.broadcast_to(a, (n,)).copy() if a.ndim == 0 else a


def check(loop: np.ndarray, *, clients: object = None, think_time_s: object = None,
          outstanding: object = None, rate_rps: object = None, throughput: object = None,
          mean_ms: object = None, arrival_rate: object = None, utilization: object = None,
          service_time_ms: object = None, busy_s: object = None, requests: object = None,
          tolerance: float = DEFAULT_TOLERANCE, unfit: object = None) -> LawChecks:
    """Check the operational laws of each trial (see the module docstring).

    Arrays are per trial: ``loop`` holds ``"open"``/``"closed"`` (anything else is not
    checked); rates in requests per second, ``mean_ms`` in ms, ``think_time_s`` in s,
    utilization as a fraction (a value above 1.5 is taken as percent). NaN (or None
    for a whole argument) means unknown; an unknown think time or outstanding count
    is taken as 0 and 1. ``unfit`` (per trial, None or a text) names the trials whose
    tool cannot satisfy N = X(R+Z) (:func:`closed_law_unfit`): that check is left out
    for them, and the text is their reason when nothing else is checked.
    """
    if not 0.0 < tolerance < 1.0:
        raise ValueError(f"the law tolerance must be a fraction in (0, 1), got {tolerance!r}")
    loop = np.asarray(loop, dtype=object)
    n = loop.size
    N = _arr(clients, n)
    Z = np.nan_to_num(_arr(think_time_s, n), nan=0.0)
    O = _arr(outstanding, n)
    O = np.where(np.isnan(O) | (O <= 0), 1.0, O)
    lam = _arr(rate_rps, n)
    X = _arr(throughput, n)
    R = _arr(mean_ms, n) / 1e3
    A = _arr(arrival_rate, n)
    U = _arr(utilization, n)
    U = np.where(U > 1.5, U / 100.0, U)
    S = _arr(service_time_ms, n) / 1e3
    with np.errstate(invalid="ignore", divide="ignore"):
        S = np.where(np.isnan(S), _arr(busy_s, n) / _arr(requests, n), S)

    why_unfit = (np.full(n, None, dtype=object) if unfit is None
                 else np.asarray(unfit, dtype=object))
    closed = (loop == "closed") & np.array([w is None for w in why_unfit.tolist()], dtype=bool)
    opened = loop == "open"
    with np.errstate(invalid="ignore", divide="ignore"):
        in_system = X * (R + Z)
        n_eff = N * O
        r_closed = np.where(closed, in_system / n_eff - 1.0, np.nan)
        arrivals = np.where(np.isnan(A), lam, A)
        r_flow = np.where(opened, X / arrivals - 1.0, np.nan)
        r_offer = np.where(opened & ~np.isnan(A), A / lam - 1.0, np.nan)
        r_util = X * S / U - 1.0
    r_util = np.where(np.isfinite(r_util) & (U > 0), r_util, np.nan)
    r_closed = np.where(np.isfinite(r_closed), r_closed, np.nan)
    r_flow = np.where(np.isfinite(r_flow), r_flow, np.nan)
    r_offer = np.where(np.isfinite(r_offer), r_offer, np.nan)

    residuals = np.vstack([r_closed, r_flow, r_offer, r_util])
    expected_all = np.vstack([in_system, arrivals, A, X * S])
    magnitude = np.where(np.isnan(residuals), -1.0, np.abs(residuals))
    worst = np.argmax(magnitude, axis=0) if n else np.zeros(0, dtype=np.int64)
    cols = np.arange(n)
    checked = magnitude.max(axis=0) >= 0 if n else np.zeros(0, dtype=bool)
    residual = np.where(checked, residuals[worst, cols], np.nan) if n else np.zeros(0)
    expected = np.where(checked, expected_all[worst, cols], np.nan) if n else np.zeros(0)
    law_code = np.where(checked, worst, len(LAW_NAMES)).astype(np.int64)
    ok = checked & (np.abs(np.nan_to_num(residual)) <= tolerance)
    reason = np.full(n, None, dtype=object)
    no_level = ((loop == "closed") & np.isnan(N)) | (opened & np.isnan(lam))
    for i in np.flatnonzero(~checked).tolist():
        if why_unfit[i] is not None and loop[i] == "closed":
            reason[i] = f"not checked: {why_unfit[i]}"
        elif no_level[i]:  # what it lacks is the load (a Locust stats.csv row), say so
            reason[i] = ("not checked: no load level (--setting clients=N)" if loop[i] ==
                         "closed" else "not checked: no load level (--setting rate_rps=R)")
        else:
            reason[i] = ("not checked: no throughput or latency"
                         if loop[i] in ("open", "closed") else "not a load-test trial")
    for i in np.flatnonzero(checked & ~ok).tolist():
        reason[i] = _reason(int(worst[i]), float(residual[i]), float(expected[i]),
                            float(n_eff[i]), float(arrivals[i]), float(U[i]))
    return LawChecks(law_code, expected, residual, checked, ok, reason)


def _reason(which: int, residual: float, expected: float, n_eff: float, arrivals: float,
            util: float) -> str:
    pct = f"{residual * 100:+.0f} %"
    if which == 0:
        what = (f"N = X(R+Z) gives {expected:.3g} requests in the system for {n_eff:g} "
                f"configured ({pct})")
        if residual < 0:
            return what + ": fewer in flight than clients (a client bottleneck or a wrong " \
                          "clients setting)"
        return what + ": more in flight than clients (unrecorded pipelining/outstanding " \
                      "requests, or latency in the wrong unit)"
    if which == 1:
        what = f"completions {pct} against arrivals of {arrivals:.4g}/s (flow balance)"
        if residual < 0:
            return what + ": the server did not keep up (saturated, no steady state) or " \
                          "requests were lost"
        return what + ": more completions than arrivals (a wrong rate setting)"
    if which == 2:
        return (f"the client generated {pct} of the offered rate: the load generator is the "
                "bottleneck (offered load not reached)")
    return (f"U = XS gives utilization {expected:.3g}, measured {util:.3g} ({pct}): the "
            "service time or the utilization measurement is wrong")
