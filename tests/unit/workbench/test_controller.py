"""The peak-rate controller against a simulated server with a known λ* (many seeds)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from perfwarehouse.errors import UsageError
from perfwarehouse.stats.means import accuracy_of as accuracy
from perfwarehouse.stats.means import t_interval
from perfwarehouse.workbench import (
    Done,
    LoadSummary,
    Run,
    Search,
    SearchResult,
    SearchSpec,
    Trial,
    replay,
)
from perfwarehouse.workbench.simulate import SimulatedServer

SEEDS = 60


def drive(server: SimulatedServer, spec: SearchSpec, seed: int,
          seed_load: float | None = None) -> tuple[SearchResult, list[Trial]]:
    rng = np.random.default_rng(seed)
    state = Search.start(spec, seed_load)
    trials: list[Trial] = []
    while isinstance(state.action, Run):
        load = state.action.load
        trial = Trial(load, server.trial(load, rng), server.seconds_per_trial)
        trials.append(trial)
        state = state.observe(trial)
    assert isinstance(state.action, Done)
    return state.action.result, trials


def claim_holds(server: SimulatedServer, spec: SearchSpec, result: SearchResult) -> bool:
    """What the result claims is true of the simulated server.

    A candidate claims that the true statistic at λ* lies in the region (up to the
    accuracy of its interval); a bracket claims that it contains the true λ*.
    """
    if result.status != "converged":
        return False
    assert result.lambda_star is not None
    if result.accuracy_of == "response":
        low, high = spec.region
        slack = (1 - spec.accuracy) * spec.r_sat
        return low - slack <= server.curve(result.lambda_star) <= high + slack
    assert result.lambda_low is not None and result.lambda_high is not None
    return result.lambda_low <= server.peak <= result.lambda_high


def _peak(seed: int) -> float:
    return float(np.random.default_rng(10_000 + seed).uniform(120, 1200))


# ------------------------------------------------------------- intervals
@pytest.mark.parametrize("n", [2, 3, 5, 11, 40])
def test_t_interval_matches_scipy(n: int) -> None:
    rng = np.random.default_rng(n)
    for _ in range(20):
        values = rng.lognormal(2, 0.5, size=n)
        ours = t_interval(list(values), 0.9)
        low, high = sps.t.interval(0.9, n - 1, loc=values.mean(), scale=sps.sem(values))
        assert math.isclose(ours.low, low, rel_tol=1e-9)
        assert math.isclose(ours.high, high, rel_tol=1e-9)
        assert math.isclose(ours.accuracy, 1 - (high - low) / (high + low), rel_tol=1e-9)


def test_t_interval_constant_and_tiny() -> None:
    ci = t_interval([5.0, 5.0, 5.0], 0.95)
    assert (ci.low, ci.high, ci.accuracy) == (5.0, 5.0, 1.0)
    with pytest.raises(ValueError):
        t_interval([1.0], 0.95)
    assert accuracy(25.0, 30.0) == pytest.approx(1 - 5 / 55)
    assert accuracy(-1.0, 1.0) == 0.0


# ------------------------------------------------------------- decisions
def test_decision_at_one_load() -> None:
    spec = SearchSpec(r_sat=40.0, start_load=100.0)
    state = Search.start(spec)
    assert state.action == Run(100.0, 1, 1, "start")
    state = state.observe(Trial(100.0, 10.0, 1.0))
    assert state.action == Run(100.0, 1, 2, "start")  # min_trials = 2
    state = state.observe(Trial(100.0, 11.0, 1.0))  # CI far below [36, 44]
    assert state.loads[0].verdict == "below"
    assert state.action == Run(200.0, 2, 1, "binsearch")  # doubling
    state = state.observe(Trial(200.0, 39.0, 1.0)).observe(Trial(200.0, 47.0, 1.0))
    assert state.loads[1].verdict == "candidate"  # CI overlaps the region, accuracy low
    assert isinstance(state.action, Run) and state.action.load == 200.0
    state = state.observe(Trial(200.0, 41.0, 1.0)).observe(Trial(200.0, 42.0, 1.0))
    assert isinstance(state.action, Run)  # accuracy 0.83 after 4 trials
    state = state.observe(Trial(200.0, 41.5, 1.0))
    assert isinstance(state.action, Done)
    result = state.action.result
    assert (result.status, result.reason, result.lambda_star) == ("converged", "candidate", 200.0)
    assert result.accuracy is not None and result.accuracy >= 0.9
    assert result.lambda_low == 100.0 and result.lambda_high is None
    assert (result.trials, result.seconds, result.loads_visited, result.exit_code) == (7, 7.0, 2, 0)


def test_above_then_halving() -> None:
    spec = SearchSpec(r_sat=40.0, start_load=100.0)
    state = replay(spec, [Trial(100.0, 10.0), Trial(100.0, 11.0),
                          Trial(200.0, 90.0), Trial(200.0, 95.0)])
    assert state.loads[1].verdict == "above"
    assert state.action == Run(150.0, 3, 1, "binsearch")


def test_mismatched_trial_is_refused() -> None:
    state = Search.start(SearchSpec(r_sat=40.0, start_load=100.0))
    with pytest.raises(UsageError, match="do not belong"):
        state.observe(Trial(120.0, 10.0))


@pytest.mark.parametrize("bad", [
    {"r_sat": 0.0}, {"r_sat": 40.0, "width": 1.5}, {"r_sat": 40.0, "policy": "random"},
    {"r_sat": 40.0, "min_trials": 1}, {"r_sat": 40.0, "max_trials": 1},
    {"r_sat": 40.0, "accuracy": 1.0}, {"r_sat": 40.0, "budget_s": 0.0},
])
def test_spec_refuses_bad_options(bad: dict) -> None:
    with pytest.raises(UsageError):
        Search.start(SearchSpec(**bad))


# ------------------------------------------------- policies, many seeds
@pytest.mark.parametrize("knee", ["smooth", "step"])
@pytest.mark.parametrize("policy", ["binsearch", "linear", "model"])
def test_policy_finds_peak(policy: str, knee: str) -> None:
    r_sat = 40.0 if knee == "smooth" else 20.0
    spec = SearchSpec(r_sat=r_sat, policy=policy, start_load=50.0, step=50.0, max_loads=40)
    good = 0
    for seed in range(SEEDS):
        server = SimulatedServer(peak=_peak(seed), r_sat=r_sat, knee=knee)
        result, trials = drive(server, spec, seed)
        good += claim_holds(server, spec, result)
        # the accounting adds up
        assert result.trials == len(trials)
        assert result.seconds == pytest.approx(sum(t.seconds for t in trials))
        if result.reason == "step-knee":
            assert result.lambda_star == result.lambda_low
            assert accuracy(result.lambda_low, result.lambda_high) >= spec.accuracy
    assert good >= 0.95 * SEEDS


def _costs(policy: str, knee: str, seeded: bool) -> tuple[float, float]:
    r_sat = 40.0 if knee == "smooth" else 20.0
    spec = SearchSpec(r_sat=r_sat, policy=policy, start_load=50.0, step=50.0, max_loads=40)
    trials, loads = [], []
    for seed in range(SEEDS):
        peak = _peak(seed)
        server = SimulatedServer(peak=peak, r_sat=r_sat, knee=knee)
        # seeding: a neighbouring sample's peak, within ±15 % of this one
        near = peak * float(np.random.default_rng(seed).uniform(0.85, 1.15)) if seeded else None
        result, _ = drive(server, spec, seed, near)
        trials.append(result.trials)
        loads.append(result.loads_visited)
    return float(np.mean(trials)), float(np.mean(loads))


@pytest.mark.parametrize("knee", ["smooth", "step"])
def test_costs_compare_as_in_the_paper(knee: str) -> None:
    """Linear costs most (Shivam et al. Figures 7-8); seeding cuts the loads visited."""
    binsearch, linear = _costs("binsearch", knee, False), _costs("linear", knee, False)
    assert binsearch[0] < linear[0] and binsearch[1] < linear[1]
    seeded = _costs("binsearch", knee, True)
    assert seeded[1] < binsearch[1]


# ------------------------------------------------------------ endings
def test_step_knee_converges_on_the_bracket() -> None:
    server = SimulatedServer(peak=300.0, r_sat=20.0, knee="step", cv=0.0)
    spec = SearchSpec(r_sat=20.0, start_load=50.0)
    result, _ = drive(server, spec, 0)
    assert (result.status, result.reason, result.exit_code) == ("converged", "step-knee", 0)
    assert result.lambda_low <= 300.0 < result.lambda_high
    assert result.lambda_star == result.lambda_low
    assert result.accuracy == pytest.approx(accuracy(result.lambda_low, result.lambda_high))


def test_budgets_end_with_exit_3_and_a_best_estimate() -> None:
    server = SimulatedServer(peak=1000.0, r_sat=40.0)
    result, _ = drive(server, SearchSpec(r_sat=40.0, start_load=50.0, max_loads=3), 1)
    assert (result.status, result.reason, result.exit_code) == ("budget", "max-loads", 3)
    assert result.lambda_star == 200.0 and result.lambda_high is None  # highest load below
    result, trials = drive(server, SearchSpec(r_sat=40.0, start_load=50.0, budget_s=35.0), 1)
    assert result.reason == "budget-s" and len(trials) == 4  # 4 × 10 s reaches 35 s
    noisy = SimulatedServer(peak=300.0, r_sat=40.0, cv=0.5)
    result, _ = drive(noisy, SearchSpec(r_sat=40.0, start_load=300.0, width=0.5,
                                        max_trials=4), 2)
    assert (result.reason, result.exit_code) == ("max-trials", 3)
    assert result.lambda_star == 300.0 and result.accuracy < 0.9
    assert any("stayed below" in note for note in result.notes)


def test_saturated_at_the_smallest_load() -> None:
    server = SimulatedServer(peak=0.5, r_sat=20.0, knee="step", cv=0.0)
    result, _ = drive(server, SearchSpec(r_sat=20.0, start_load=8.0), 0)
    assert (result.status, result.reason, result.lambda_star) == ("budget", "floor", None)


def test_closed_loop_resolution() -> None:
    """Clients are integers: a knee between N = 3 and 4 cannot be bracketed at 90 %."""
    server = SimulatedServer(peak=3.5, r_sat=20.0, knee="step", cv=0.0)
    spec = SearchSpec(r_sat=20.0, start_load=1.0, resolution=1.0)
    result, _ = drive(server, spec, 0)
    assert (result.reason, result.lambda_low, result.lambda_high) == ("resolution", 3.0, 4.0)
    assert result.exit_code == 3  # accuracy 1 - 1/7 < 0.9
    spec = SearchSpec(r_sat=20.0, start_load=1.0, accuracy=0.85)
    result, _ = drive(server, spec, 0)
    assert (result.reason, result.exit_code) == ("step-knee", 0)


def test_generator_failures_count_as_saturation() -> None:
    spec = SearchSpec(r_sat=40.0, start_load=100.0)
    state = replay(spec, [Trial(100.0, 10.0), Trial(100.0, 12.0),
                          Trial(200.0, None), Trial(200.0, None)])
    assert state.loads[1].verdict == "above" and state.loads[1].trials == 2
    assert state.action == Run(150.0, 3, 1, "binsearch")
    assert any("failed 2 times" in n for n in state.notes)


def test_model_falls_back_and_says_so() -> None:
    """Equal responses at two loads make R = a + b/λ degenerate."""
    server = SimulatedServer(peak=1000.0, r_sat=20.0, knee="step", cv=0.0)
    spec = SearchSpec(r_sat=20.0, policy="model", start_load=50.0)
    result, _ = drive(server, spec, 0)
    hows = [v.how for v in result.loads]
    assert hows[:3] == ["start", "model", "model->binsearch"]
    assert any("degenerate" in n for n in result.notes)
    assert result.status == "converged"


def test_model_uses_the_two_tuples_of_algorithm_4() -> None:
    # R = 50 - 2000/λ exactly: through (100, 30) and (200, 40) the model is exact
    spec = SearchSpec(r_sat=45.0, policy="model", start_load=100.0, width=0.02)
    state = replay(spec, [Trial(100.0, 30.0), Trial(100.0, 30.0),
                          Trial(200.0, 40.0), Trial(200.0, 40.0)])
    assert isinstance(state.action, Run)
    assert state.action.how == "model"
    assert state.action.load == spec.round_load(2000 / (50 - 45))  # = 400


# ----------------------------------------------------------- resuming
def test_replay_rebuilds_the_state() -> None:
    server = SimulatedServer(peak=444.0, r_sat=40.0)
    spec = SearchSpec(r_sat=40.0, policy="model", start_load=50.0)
    result, trials = drive(server, spec, 5)
    for cut in range(len(trials)):
        partial = replay(spec, trials[:cut])
        resumed = partial
        for trial in trials[cut:]:
            resumed = resumed.observe(trial)
        assert isinstance(resumed.action, Done)
        assert resumed.action.result == result


def test_decides_with_the_log_interval_and_the_loadtest_region_rule() -> None:
    """The controller decides a load with the log-t interval (issue 39: response times
    are positive and skewed) and the region rule of ``analyze load``."""
    from perfwarehouse.loadtest import intervals
    from perfwarehouse.stats import means

    rng = np.random.default_rng(11)
    spec = SearchSpec(r_sat=40.0, width=0.1)
    for _ in range(200):
        n = int(rng.integers(2, 12))
        values = list(rng.lognormal(math.log(rng.uniform(20, 60)), rng.uniform(0.01, 1.0), n))
        ours = means.log_t_interval(values, 0.95)
        verdict = LoadSummary(1, 100.0, "start").add(Trial(100.0, values[0]), spec)
        for v in values[1:]:
            verdict = verdict.add(Trial(100.0, v), spec)
        assert (verdict.ci_low, verdict.ci_high) == (ours.low, ours.high)
        decision = str(intervals.region_decision(ours.low, ours.high, 40.0, 0.1))
        assert verdict.verdict == {"overlap": "candidate"}.get(decision, decision)


# ------------------------------------------- issue 28: what a budget message says
def test_an_interval_crossing_zero_is_said_so_not_as_a_negative_accuracy() -> None:
    """A candidate whose response-time CI reaches below zero (a statistic of 0 at the
    tool's resolution: the log interval cannot be used, the t interval of the mean is):
    the note says the CI crosses zero and what would settle it."""
    spec = SearchSpec(r_sat=2.5, width=0.1, start_load=200.0, max_trials=2)
    result = replay(spec, [Trial(200.0, 0.0), Trial(200.0, 4.9)]).action.result
    assert (result.reason, result.exit_code) == ("max-trials", 3)
    assert result.response_ci[0] < 0 < result.response_ci[1]
    (note,) = result.notes
    assert "crosses zero" in note and "accuracy -" not in note
    assert "--max-trials" in note and "--duration" in note


def test_trials_for_meets_the_target_with_the_same_spread() -> None:
    """With the spread and mean of the trials so far, the number of trials proposed
    reaches the target accuracy (checked with Student's t from scipy), and one fewer
    (when above the present count + 1) does not reach it at the present t."""
    from perfwarehouse.stats.means import trials_for

    rng = np.random.default_rng(11)
    for _ in range(300):
        n = int(rng.integers(2, 8))
        values = list(rng.lognormal(1.0, rng.uniform(0.01, 1.0), n))
        target = float(rng.uniform(0.5, 0.97))
        need = trials_for(values, 0.95, target)
        mean, sd = np.mean(values), np.std(values, ddof=1)
        assert need is not None and need > n
        acc = 1 - sps.t.ppf(0.975, need - 1) * sd / math.sqrt(need) / mean
        assert acc >= target - 1e-12
        t_now = sps.t.ppf(0.975, n - 1)
        if need > n + 1:
            assert 1 - t_now * sd / math.sqrt(need - 1) / mean < target
    assert trials_for([3.0, 3.0], 0.95, 0.9) is None  # no spread: nothing to estimate
    assert trials_for([1.0], 0.95, 0.9) is None


def test_budget_notes_say_what_would_settle_them() -> None:
    server = SimulatedServer(peak=300.0, r_sat=40.0, cv=0.02)
    result, _ = drive(server, SearchSpec(r_sat=40.0, start_load=50.0, max_loads=2), 3)
    assert result.reason == "max-loads"
    assert any("--max-loads" in note for note in result.notes)
    result, _ = drive(server, SearchSpec(r_sat=40.0, start_load=50.0, budget_s=15.0), 3)
    assert result.reason == "budget-s"
    assert any("--budget-s" in note for note in result.notes)


# ------------------------------- issue 39: decide, on positive skewed trials
@pytest.mark.parametrize("n", [2, 3, 6, 20])
def test_log_t_interval_matches_scipy_on_the_logs(n: int) -> None:
    from perfwarehouse.stats.means import log_t_interval

    rng = np.random.default_rng(100 + n)
    for _ in range(20):
        values = rng.lognormal(1.0, rng.uniform(0.01, 2.0), size=n)
        logs = np.log(values)
        low, high = sps.t.interval(0.95, n - 1, loc=logs.mean(), scale=sps.sem(logs))
        ours = log_t_interval(list(values), 0.95)
        assert ours.method == "log-t" and 0 < ours.low <= ours.mean <= ours.high
        assert math.isclose(ours.low, math.exp(low), rel_tol=1e-9)
        assert math.isclose(ours.high, math.exp(high), rel_tol=1e-9)
        assert math.isclose(ours.mean, sps.gmean(values), rel_tol=1e-9)


def test_log_t_interval_edges() -> None:
    from perfwarehouse.stats.means import log_t_interval

    assert (log_t_interval([4.0, 4.0, 4.0], 0.9).low, log_t_interval([4.0, 4.0], 0.9).high) \
        == pytest.approx((4.0, 4.0))
    fallback = log_t_interval([0.0, 3.0, 5.0], 0.9)  # a zero: the t interval of the mean
    assert fallback.method == "t" and fallback.low == pytest.approx(t_interval([0.0, 3.0, 5.0],
                                                                               0.9).low)
    with pytest.raises(ValueError):
        log_t_interval([2.0, float("nan")], 0.9)


def test_log_trials_for_meets_the_target_with_the_same_spread() -> None:
    from perfwarehouse.stats.means import log_trials_for

    rng = np.random.default_rng(12)
    for _ in range(300):
        n = int(rng.integers(2, 8))
        values = rng.lognormal(1.0, rng.uniform(0.01, 1.0), n)
        target = float(rng.uniform(0.5, 0.97))
        need = log_trials_for(list(values), 0.95, target)
        sd = np.std(np.log(values), ddof=1)
        assert need is not None and need > n
        half = sps.t.ppf(0.975, need - 1) * sd / math.sqrt(need)
        assert accuracy(math.exp(-half), math.exp(half)) >= target - 1e-12
        if need > n + 1:
            half = sps.t.ppf(0.975, n - 1) * sd / math.sqrt(need - 1)
            assert accuracy(math.exp(-half), math.exp(half)) < target
    assert log_trials_for([3.0, 3.0], 0.95, 0.9) is None
    assert log_trials_for([0.0, 3.0], 0.95, 0.9) is None


@pytest.mark.parametrize("policy", ["binsearch", "linear"])
def test_skewed_overload_is_decided_not_left_a_candidate(policy: str) -> None:
    """A rate limiter whose overloaded trials are log-normal with a log sd of 0.6 (some
    runs' queues grow far more than others'; the 95 % range of a trial spans 10x): with
    6 trials per load at most, >= 90 % of searches converge on a bracket holding the
    true λ* (the normal interval of the mean, the rule before issue 39, converged in
    47 and 43 of these 60), every bracket a budget leaves holds it too, and no interval
    reaches below zero (what the mean's gave on a real nginx)."""
    spec = SearchSpec(r_sat=20.0, policy=policy, start_load=50.0, step=50.0, max_trials=6,
                      max_loads=40)
    good = 0
    for seed in range(SEEDS):
        server = SimulatedServer(peak=_peak(seed), r_sat=20.0, knee="step", cv=0.1,
                                 low_ms=1.0, high_ms=45.0, overload_sigma=0.6)
        result, _ = drive(server, spec, seed)
        good += claim_holds(server, spec, result)
        assert all(v.ci_low is None or v.ci_low > 0 for v in result.loads)
        if result.lambda_low is not None and result.lambda_high is not None:
            assert result.lambda_low <= server.peak <= result.lambda_high
    assert good >= 0.9 * SEEDS


def test_a_budget_names_the_bracket_and_its_confidence() -> None:
    server = SimulatedServer(peak=300.0, r_sat=20.0, knee="step", cv=0.0)
    result, _ = drive(server, SearchSpec(r_sat=20.0, start_load=50.0, max_loads=5,
                                         confidence=0.95), 0)
    assert result.reason == "max-loads" and result.exit_code == 3
    assert result.lambda_low <= 300.0 < result.lambda_high
    assert result.bracket_confidence == pytest.approx(0.90)
    assert any("at confidence >= 0.90" in note for note in result.notes)
