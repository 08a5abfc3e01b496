"""Pairing for ``analyze change-points --baseline``: each series divided, trial by trial,
by its baseline (a benchmark's median in the same run, or the KEY=VALUE trials of the same
benchmark and settings at the same start time); :mod:`perfwarehouse.jobs.change_points`
says what the option means."""

from __future__ import annotations

from typing import Any

import pyarrow as pa


def _without(settings: str | None, key: str) -> str:
    """Canonical JSON text of ``settings`` without ``key``."""
    import json

    doc = json.loads(settings) if settings else {}
    doc.pop(key, None)
    return json.dumps(doc, sort_keys=True)


def _setting(settings: str | None, key: str) -> object:
    import json

    doc = json.loads(settings) if settings else {}
    return doc.get(key) if isinstance(doc, dict) else None


def pair_by_setting(table: pa.Table, baseline: str, divisors: tuple[tuple[Any, ...], ...]
                    ) -> tuple[pa.Table, dict[int, int], set[int]]:
    """``table`` with each trial of a series whose setting KEY (``baseline`` = KEY=VALUE)
    is another value divided by the baseline of its (campaign, hardware type, benchmark,
    other settings, metric, start time); series without KEY, or with KEY=VALUE, stay
    raw. Trials without a baseline are left out, counted per config_id; the third value:
    the config_ids divided."""
    import numpy as np

    key, _, value = baseline.partition("=")
    lookup = {d[1:7]: float(d[7]) for d in divisors}
    per_setting: dict[str, tuple[bool, str]] = {}
    cols = [table.column(k).to_pylist() for k in (
        "campaign", "hardware_type", "benchmark", "settings", "metric", "started_at")]
    values = table.column("value").to_numpy(zero_copy_only=False).astype(np.float64)
    config = table.column("config_id").to_pylist()
    keep = np.ones(table.num_rows, dtype=bool)
    out = values.copy()
    unpaired: dict[int, int] = {}
    divided: set[int] = set()
    for i, (camp, hw, bench, settings, metric, started) in enumerate(zip(*cols)):
        if settings not in per_setting:
            own = _setting(settings, key)
            per_setting[settings] = (own is not None and str(own) != value,
                                     _without(settings, key))
        paired, rest = per_setting[settings]
        if not paired:
            continue
        divided.add(config[i])
        div = lookup.get((camp, hw, bench, rest, metric, started))
        if div is None or not div:
            keep[i] = False
            unpaired[config[i]] = unpaired.get(config[i], 0) + 1
        else:
            out[i] = values[i] / div
    t = table.set_column(table.schema.get_field_index("value"), "value", pa.array(out))
    return t.filter(pa.array(keep)), unpaired, divided


def pair(table: pa.Table, baseline: str, divisors: tuple[tuple[Any, ...], ...]
         ) -> tuple[pa.Table, dict[int, int]]:
    """``table`` with the value of every row not of benchmark ``baseline`` divided by the
    baseline of its (campaign, hardware type, run, metric); rows without one left out,
    counted per config_id (the second value). Row order kept."""
    import numpy as np
    import pyarrow.compute as pc

    keys = ["campaign", "hardware_type", "run_id", "metric"]
    lookup = pa.table({k: pa.array([d[i] for d in divisors], table.schema.field(k).type)
                       for i, k in enumerate(keys)}
                      | {"_baseline": pa.array([float(d[4]) for d in divisors], pa.float64())})
    rows = table.append_column("_row", pa.array(np.arange(table.num_rows), pa.int64()))
    joined = rows.join(lookup, keys=keys, join_type="left outer").sort_by("_row")
    div = pc.fill_null(joined.column("_baseline"), float("nan")).to_numpy()
    value = joined.column("value").to_numpy(zero_copy_only=False).astype(np.float64)
    own = pc.fill_null(pc.equal(joined.column("benchmark"), baseline), False).to_numpy(
        zero_copy_only=False)
    missing = ~own & np.isnan(div)
    config = joined.column("config_id").to_numpy()
    ids, counts = np.unique(config[missing], return_counts=True)
    out = joined.set_column(joined.schema.get_field_index("value"), "value",
                            pa.array(np.where(own, value, value / div)))
    out = out.drop_columns(["_row", "_baseline"]).filter(pa.array(~missing))
    return out, dict(zip(ids.tolist(), counts.tolist()))
