"""Calibrate the mixing detectors (perfwarehouse/stats/mixing.py) on clean series.

Clean change-point series: stationary normal, lognormal and Student-t (3 dof) noise of
20-400 points; the same with one or two steps of 2-50 %; and the long-term generator's
series (hardware type x configuration, trial medians in start order, every node mixed as
the job mixes them). Clean load families: 4-10 levels of 4-10 trials, CV 1-20 %, normal
and t noise. Prints the gap statistic's quantiles and how often each rule fires.

    PYTHONPATH=. python benchmarks/mixing_calibration.py [--series 2000] [--scale 0.05]
"""

from __future__ import annotations

import argparse

import numpy as np

from perfwarehouse.stats import mixing


def clean_series(rng: np.random.Generator, k: int) -> np.ndarray:
    n = int(rng.integers(20, 401))
    kind = k % 3
    noise = (rng.normal(size=n) if kind == 0 else rng.standard_t(3, size=n)
             if kind == 1 else rng.normal(size=n))
    cv = rng.uniform(0.005, 0.1)
    base = 100.0 * (np.exp(cv * noise) if kind == 2 else 1 + cv * noise)
    steps = k % 4  # 0: stationary, 1: one step, 2: two steps (a regression and its fix)
    if steps in (1, 2, 3):
        at = sorted(rng.choice(np.arange(5, n - 5), size=min(steps, 2), replace=False))
        size = rng.uniform(0.02, 0.5) * rng.choice([-1, 1])
        level = np.ones(n)
        level[at[0]:] *= 1 + size
        if len(at) > 1:
            level[at[1]:] /= 1 + size
        base = base * level
    return np.asarray(base)


def generator_series(scale: float) -> list[np.ndarray]:
    import pyarrow.compute as pc

    from perfwarehouse.generate import generate

    t = generate("ordersage-longterm", seed=3, scale=scale).records
    cols = t.column_names
    key = [c for c in ("hardware_type", "node", "config_id", "benchmark", "settings")
           if c in cols]  # the interleaved rule is tested within each node
    med = pc.list_value_length(t.column("values"))  # noqa: F841 (shape check)
    vals = [float(np.median(v)) if v else np.nan for v in t.column("values").to_pylist()]
    groups: dict[tuple[object, ...], list[tuple[object, float]]] = {}
    cols_k = [t.column(k).to_pylist() for k in key]
    starts = t.column("started_at").to_pylist()
    for i, v in enumerate(vals):
        groups.setdefault(tuple(c[i] for c in cols_k), []).append((starts[i], v))
    out = []
    for rows in groups.values():
        rows.sort(key=lambda r: r[0])
        arr = np.array([v for _, v in rows])
        if arr.size >= 8 and np.isfinite(arr).all():
            out.append(arr)
    return out


def job_series_fired(scale: float) -> tuple[int, int, int]:
    """(series, points, flagged) of :func:`mixing.detect_series` over the generator's
    series as the job sees them: hardware type x benchmark x settings, every node and run,
    in start order."""
    from perfwarehouse.generate import generate

    t = generate("ordersage-longterm", seed=3, scale=scale).records
    cols = {k: t.column(k).to_pylist() for k in (
        "hardware_type", "benchmark", "settings", "started_at", "node", "run_id")}
    vals = [float(np.median(v)) if v else np.nan for v in t.column("values").to_pylist()]
    groups: dict[tuple[object, ...], list[int]] = {}
    for i in range(len(vals)):
        groups.setdefault((cols["hardware_type"][i], cols["benchmark"][i],
                           cols["settings"][i]), []).append(i)
    fired = points = 0
    for idx in groups.values():
        idx.sort(key=lambda i: cols["started_at"][i])
        v = np.array([vals[i] for i in idx])
        points += v.size
        days = np.array([cols["started_at"][i].timestamp() / 86400 for i in idx])
        found = mixing.detect_series(v, days, [cols["run_id"][i] for i in idx],
                                     [None] * len(idx), [cols["node"][i] for i in idx], {})
        fired += found is not None
    return len(groups), points, fired


def clean_family(rng: np.random.Generator) -> list[np.ndarray]:
    levels = int(rng.integers(4, 11))
    cv = rng.uniform(0.01, 0.2)
    t_noise = rng.random() < 0.5
    out = []
    for j in range(levels):
        n = int(rng.integers(4, 11))
        z = rng.standard_t(3, size=n) if t_noise else rng.normal(size=n)
        out.append(1000.0 * (j + 1) ** 0.5 * (1 + cv * z))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--series", type=int, default=2000)
    ap.add_argument("--families", type=int, default=2000)
    ap.add_argument("--scale", type=float, default=0.05)
    a = ap.parse_args()
    rng = np.random.default_rng(39)
    series = [clean_series(rng, k) for k in range(a.series)]
    gen = generator_series(a.scale)
    for name, group in (("synthetic", series), ("long-term generator", gen)):
        scores, fired = [], 0
        for v in group:
            s = mixing.best_split(v, 2, max(3, int(np.ceil(0.1 * v.size))))
            scores.append(s.gap_sd if s else 0.0)
            fired += mixing.interleaved(v) is not None
        q = np.quantile(scores, [0.5, 0.99, 0.999])
        print(f"{name}: {len(group):,} series; gap statistic median {q[0]:.2f}, 99 % "
              f"{q[1]:.2f}, 99.9 % {q[2]:.2f}, max {max(scores):.2f}; interleaved fired "
              f"{fired} ({fired / len(group):.2%})")
    n, points, fired = job_series_fired(a.scale)
    print(f"long-term generator, whole detector as the job runs it: {n:,} series "
          f"({points:,} points), flagged {fired} ({fired / n:.2%})")
    fams = [clean_family(rng) for _ in range(a.families)]
    fired = 0
    scores = []
    for f in fams:
        mixed, eligible, splits = mixing.mixed_levels(f)
        fired += mixing.family_is_mixed(mixed, eligible)
        for v in f:
            for k in (2, 3):
                s = mixing.best_split(v, k, 2)
                if s is not None:
                    scores.append(s.gap_sd)
    q = np.quantile(scores, [0.5, 0.99, 0.999])
    print(f"load families: {len(fams):,}; level gap statistic median {q[0]:.2f}, 99 % "
          f"{q[1]:.2f}, 99.9 % {q[2]:.2f}; family flagged {fired} ({fired / len(fams):.2%})")


if __name__ == "__main__":
    main()
