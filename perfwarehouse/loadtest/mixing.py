"""Load-test families whose repetitions of one level disagree far beyond their spread.

Three database servers' sysbench sweeps ingested under one ``--node`` make one family
whose "peak" is the mean of three servers. :func:`family_notes` tests each family's
levels with :func:`perfwarehouse.stats.mixing.mixed_levels` (the rule, its assumptions
and thresholds are there: 2 or 3 groups of >= 2 repetitions more than 5 pooled
within-group SDs and 5 % apart, at half or more of the levels with >= 4 repetitions)
and says, per mixed family, where the groups lie and which key (the node or a scalar
attribute of the trials) separates them, when one does.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyarrow as pa

from perfwarehouse.stats import mixing

#: How a mixed family's reason begins (the job summary and the report look for it).
MIXED = "mixed"


def _candidates(trials: pa.Table, rows: np.ndarray) -> dict[str, list[object]]:
    take = pa.array(rows.astype(np.int64))
    out: dict[str, list[object]] = {}
    if "node" in trials.column_names:
        out["node"] = trials.column("node").take(take).to_pylist()
    if "attributes" in trials.column_names:
        docs = []
        for text in trials.column("attributes").take(take).to_pylist():
            try:
                doc = json.loads(text) if text else {}
            except ValueError:
                doc = {}
            docs.append(doc if isinstance(doc, dict) else {})
        for key in dict.fromkeys(k for d in docs for k, v in d.items()
                                 if isinstance(v, str | int | float | bool)):
            out[f"attribute {key}"] = [d.get(key) for d in docs]
    return out


def family_notes(trials: pa.Table, ugid: np.ndarray, family_of_group: list[tuple[Any, ...]],
                 load_of_group: np.ndarray, throughput: np.ndarray
                 ) -> dict[tuple[Any, ...], str]:
    """Family key -> one sentence for each mixed family. ``ugid``: the load level (group)
    of each trial used (-1: not used); ``family_of_group``: each level's family key;
    ``throughput``: per trial (req/s)."""
    by_family: dict[tuple[Any, ...], list[int]] = {}
    for g, key in enumerate(family_of_group):
        by_family.setdefault(key, []).append(g)
    notes: dict[tuple[Any, ...], str] = {}
    for key, groups in by_family.items():
        members = [np.flatnonzero((ugid == g) & np.isfinite(throughput)) for g in groups]
        n_mixed, eligible, splits = mixing.mixed_levels([throughput[m] for m in members])
        if not mixing.family_is_mixed(n_mixed, eligible):
            continue
        flagged = [(g, m, s) for g, m, s in zip(groups, members, splits) if s is not None]
        rows = np.concatenate([m for _, m, _ in flagged])
        labels = np.concatenate([s.labels + 3 * j for j, (_, _, s) in enumerate(flagged)])
        # a key separates when it splits each level the same way: label by group rank
        ranks = np.concatenate([s.labels for _, _, s in flagged])
        cand = _candidates(trials, rows)
        sep = mixing.separating_key(ranks, cand) or mixing.separating_key(labels, cand)
        top = max(flagged, key=lambda f: f[2].gap_sd)
        loads = ", ".join(f"{load_of_group[g]:g}" for g, _, _ in flagged[:6])
        more = ", ..." if len(flagged) > 6 else ""
        near = ", ".join(f"{m:,.4g}" for m in top[2].medians)
        notes[key] = (f"{MIXED}: the repetitions of {n_mixed} of {eligible} levels (load "
                      f"{loads}{more}) fall into {len(top[2].sizes)} groups far beyond their "
                      f"own spread (near {near} req/s at load {load_of_group[top[0]]:g}); "
                      + (f"split by {sep}" if sep else "no attribute separates them: "
                         "ingest each system's results with its own --node or --setting")
                      + "; the peak below mixes them")
    return notes
