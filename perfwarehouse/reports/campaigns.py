"""The campaigns of a warehouse as the report site sees them: each one's kind (which pages
apply to it, :data:`KINDS`) and its directory in the site (readable, never shared:
:func:`campaign_folders`)."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from perfwarehouse.reports.base import ReportData

LONG_TERM_DAYS = 30.0
"""A campaign of fixed- and random-order runs that spans at least this many days is a
long-term campaign (drift and a fleet period make sense); a shorter one is an order study
(the OrderSage fixtures span hours to days, the generated long-term campaign 270 days)."""

#: The kinds of campaign, the pages that apply to each (in the order shown), and what
#: the index says of the kind.
KINDS: dict[str, tuple[tuple[str, ...], str]] = {
    "long-term": (("fleet", "order-effects", "variability", "triscale", "history"),
                  "fixed- and random-order runs over months: drift, order effects, "
                  "variability"),
    "order study": (("order-effects", "variability", "triscale"),
                    "fixed- and random-order runs of a short study: does the order matter?"),
    "load test": (("load",), "load levels of a load test: peak, knee, latency under load"),
    "revisions": (("history", "compare", "variability"),
                  "runs of several revisions of the software under test: when did it change?"),
    "measurements": (("variability", "triscale", "history"),
                     "runs without order kinds, revisions or load levels"),
}

@dataclass(frozen=True)
class Campaign:
    """One campaign of the warehouse and what tells its kind (``report_campaigns.sql``)."""

    name: str
    runs: int
    fixed_runs: int
    random_runs: int
    revisions: int
    first_at: datetime | None
    last_at: datetime | None
    rows: int
    hardware_types: int
    load_test: bool

    @property
    def days(self) -> float:
        if self.first_at is None or self.last_at is None:
            return 0.0
        return (self.last_at - self.first_at).total_seconds() / 86400.0

    @property
    def kind(self) -> str:
        return classify(self)

    folder: str = ""
    """Its directory in the site (:func:`campaign_folders`; set by :func:`read_campaigns`)."""

    @property
    def slug(self) -> str:
        """Its directory in the site: :attr:`folder`, else the name made readable."""
        return self.folder or campaign_slug(self.name)


def classify(c: Campaign) -> str:
    """The campaign's kind: a load test if it holds load-test trials, else revisions if its
    runs carry two or more revisions, else long-term or an order study if it has both
    fixed- and random-order runs (by its span, :data:`LONG_TERM_DAYS`), else
    measurements."""
    if c.load_test:
        return "load test"
    if c.revisions >= 2:
        return "revisions"
    if c.fixed_runs and c.random_runs:
        return "long-term" if c.days >= LONG_TERM_DAYS else "order study"
    return "measurements"


RESERVED = frozenset({"assets"})
"""Directory names of the site that are not a campaign's."""
MAX_SLUG = 60
"""Characters of a campaign's name kept in its directory (before a ``-2`` suffix)."""


def campaign_slug(name: str) -> str:
    """A campaign's name made a readable directory name: accents dropped, lower case,
    every run of other characters than ``a-z0-9`` one ``-``, at most :data:`MAX_SLUG`
    characters (``NPB`` is ``npb``, ``Nightly ARM fleet`` is ``nightly-arm-fleet``).
    Two names may give one slug: :func:`campaign_folders` tells them apart."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")
    return slug[:MAX_SLUG].rstrip("-") or "campaign"


def campaign_folders(names: Iterable[str]) -> dict[str, str]:
    """The directory of each campaign of a site: its readable :func:`campaign_slug`, and
    never one directory for two campaigns, whatever their case or common prefix (issue 44,
    H8: ``Foo`` and ``foo-201a6b`` shared one and the second overwrote the first).

    Deterministic, whatever the order of ``names``: a name that is its own slug keeps it;
    then a slug wanted by one name only goes to it; then the names that share a slug, in
    code-point order, take it or, when it is taken, the first free ``slug-2``,
    ``slug-3``, ... Lower case only, so a case-insensitive file system sees the same
    distinct directories; :data:`RESERVED` names are never a campaign's."""
    unique = sorted(set(names))
    slugs = {n: campaign_slug(n) for n in unique}
    wanted = Counter(slugs.values())
    taken = set(RESERVED)
    out: dict[str, str] = {}
    passes = ((lambda n: slugs[n] == n), (lambda n: wanted[slugs[n]] == 1), (lambda _n: True))
    for claims in passes:
        for n in unique:
            if n in out or not claims(n):
                continue
            folder, k = slugs[n], 1
            while folder in taken:
                k += 1
                folder = f"{slugs[n]}-{k}"
            out[n] = folder
            taken.add(folder)
    return out


def read_campaigns(data: ReportData, campaign: str | None = None) -> list[Campaign]:
    """The warehouse's campaigns (only ``campaign`` if given), each with its directory in
    the site, chosen among all of the warehouse's campaigns (:func:`campaign_folders`): a
    page written for one campaign lands where ``report all`` puts it."""
    rows = data.query("campaigns", campaign=None).to_pylist()
    folders = campaign_folders(r["campaign"] for r in rows)
    return [Campaign(r["campaign"], int(r["runs"]), int(r["fixed_runs"]), int(r["random_runs"]),
                     int(r["revisions"]), r["first_at"], r["last_at"], int(r["rows"]),
                     int(r["hardware_types"]), bool(r["load_test"]), folders[r["campaign"]])
            for r in rows if campaign is None or r["campaign"] == campaign]


def pages_of(kind: str, available: Sequence[str]) -> list[str]:
    """The pages that apply to a campaign of ``kind``, among the ``available`` reports
    (the registered reports that need no selection, ``Report.in_all``)."""
    return [name for name in KINDS[kind][0] if name in available]
