"""The decision rules and the period of the fleet analysis (:mod:`.analysis`): their
defaults, and the period [since, until) a report asks for."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

DEFAULT_PERIOD_DAYS = 90
DAY_S = 86400.0


@dataclass(frozen=True)
class FleetParams:
    """Decision rules of the fleet report."""

    alpha: float = 0.05
    """Family-wise error rate, split over the configurations of a campaign (Bonferroni)."""
    drift_threshold_pct: float = 0.5
    """Smallest trend (% of the median per 30 days) worth calling a drift."""
    min_trials: int = 10
    """Fewest trials in a period for a trend or an RSD."""
    min_trend_span: float = 0.25
    """Fewest fraction of the period the trials must span for a trend: a slope fitted
    over a few hours says nothing about 30 days."""
    trend_bins: int = 300
    """The trend is fitted to the medians of the trials in this many equal time bins of
    the period (fewer where bins are empty): robust, and fast for any number of trials."""
    min_group: int = 3
    """Fewest fixed- and random-order trials in a period for the order comparison."""
    outlier_factor: float = 10.0
    """Values at least this many times the median are outliers for the RSD."""


@dataclass(frozen=True)
class Period:
    """The reported period [since, until) and the previous one [previous_since, since)."""

    since: datetime
    until: datetime

    @property
    def previous_since(self) -> datetime:
        return self.since - (self.until - self.since)

    @property
    def days(self) -> float:
        return (self.until - self.since).total_seconds() / DAY_S


def choose_period(since: datetime | None, until: datetime | None, last_at: datetime | None,
                  default_days: int = DEFAULT_PERIOD_DAYS) -> Period | None:
    """The period [since, until) asked for; missing ends default to the UTC day after the
    newest trial and to ``default_days`` before the end. None when there is no data and
    no end."""
    if until is None and since is not None and last_at is None:
        return None
    if until is None:
        if last_at is None:
            return None
        day = last_at.astimezone(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
        # the warehouse holds times up to 9999-12-31 (UTC): the day after may not exist
        until = day + timedelta(days=1) if day.year < 9999 or day.month < 12 or day.day < 31 \
            else datetime.max.replace(tzinfo=timezone.utc)
    since = since or until - timedelta(days=default_days)
    return Period(since, until)
