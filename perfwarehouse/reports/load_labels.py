"""How the load-test pages name a family (the benchmark, the settings that differ, the
load generator, the hardware type) and print a number in a sentence."""

from __future__ import annotations

import json
import math

import polars as pl

from perfwarehouse.reports.charts import config_labels

#: A benchmark (an URL, a script path) longer than this is shortened in labels.
MAX_NAME = 48


def short_name(name: str | None, limit: int = MAX_NAME) -> str:
    """A benchmark as a person reads it: an URL without its scheme, query and fragment
    (``host:port/path``), and a long one cut in the middle of its path so that the host
    and the last path segment stay (``api.example.com/…/items``). Tables keep the full
    name."""
    text = "" if name is None else str(name)
    if "://" in text:
        text = text.split("://", 1)[1].split("?", 1)[0].split("#", 1)[0].rstrip("/") or text
    if len(text) <= limit:
        return text
    head, _, rest = text.partition("/")
    tail = rest.rsplit("/", 1)[-1] if rest else ""
    keep = max(8, limit - len(head) - 3)
    if tail and len(head) + len(tail) + 3 <= limit:
        return f"{head}/…/{tail}"
    return text[: limit - keep - 1] + "…" + text[-keep:]


def family_parts(family: str | None) -> tuple[str | None, str | None]:
    """(the generator, the family's settings without it) of a family's settings text."""
    try:
        obj = json.loads(family) if family else {}
    except ValueError:
        return None, family
    if not isinstance(obj, dict):
        return None, family
    tool = obj.pop("generator", None)
    return (str(tool) if tool is not None else None), json.dumps(obj, sort_keys=True,
                                                                  separators=(",", ":"))


def with_labels(df: pl.DataFrame) -> pl.DataFrame:
    """A ``family_label`` column: the benchmark (long URLs shortened: :func:`short_name`),
    the settings that differ between families, the load generator in parentheses, the
    hardware type when there are several, the campaign when there are several."""
    keys = [k for k in ("campaign", "benchmark", "family", "hardware_type") if k in df.columns]
    fams = df.select(*keys, "loop").unique(maintain_order=True)
    several = fams["hardware_type"].n_unique() > 1
    campaigns = fams["campaign"].to_list() if "campaign" in keys else []
    several_campaigns = len(set(campaigns)) > 1
    loops = fams["loop"].to_list()
    named: dict[int, str] = {}
    parts = [family_parts(f) for f in fams["family"].to_list()]
    benchmarks = fams["benchmark"].to_list()
    for group in {(lp, parts[i][0]) for i, lp in enumerate(loops)}:
        # names tell apart the families of one loop kind and one generator
        idx = [i for i, lp in enumerate(loops) if (lp, parts[i][0]) == group]
        part = config_labels([short_name(benchmarks[i]) for i in idx],
                             [parts[i][1] for i in idx])
        for i, label in zip(idx, part):
            tool = parts[i][0]
            said = tool is None or str(benchmarks[i]).startswith(tool) or (
                campaigns and campaigns[i] == tool and several_campaigns)
            named[i] = label if said else f"{label} ({tool})"
    labels = []
    for i, hw in enumerate(fams["hardware_type"].to_list()):
        label = f"{named[i]} @ {hw}" if several else named[i]
        labels.append(f"{campaigns[i]}: {label}" if several_campaigns else label)
    fams = fams.with_columns(family_label=pl.Series(labels, dtype=pl.String))
    return df.join(fams.drop("loop"), on=keys, how="left")


def short_number(x: float | None, digits: int = 4) -> str:
    """A number in a sentence: ``digits`` significant digits, thousands separated, and
    "?" for a missing one (units are said by the sentence)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "?"
    return f"{x:,.{digits}g}" if abs(x) < 10 ** digits else f"{x:,.0f}"

