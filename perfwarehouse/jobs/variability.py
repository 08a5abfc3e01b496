"""Job ``variability``: RSD per configuration and hardware type (Laaber et al. (PeerJ Preprints 2018), §4.1).

Output table ``variability`` (declared in ``perfwarehouse/warehouse/contracts.py``). The
statistics are computed by :func:`perfwarehouse.laaber.variability_columns`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from perfwarehouse import laaber
from perfwarehouse.jobs.framework import Job, JobParams, Tables, param
from perfwarehouse.jobs.laaber_rows import QUERY, floats, with_columns
from perfwarehouse.warehouse import contracts

# the columns computed behind the configuration's (part.meta), from the output's contract
VARIABILITY_FIELDS = contracts.VARIABILITY.fields(contracts.MEASURED)


@dataclass(frozen=True)
class VariabilityParams(JobParams):
    outlier_factor: float = param(
        10.0, "Drop values >= this many times the configuration's median before "
        "computing RSDs (Laaber et al. (PeerJ Preprints 2018): 10, one order of magnitude); 0 keeps everything.")


def compute(table: pa.Table, params: VariabilityParams) -> Tables:
    part = laaber.partition_from_arrow(table, outlier_factor=params.outlier_factor)
    columns: dict[str, object] = dict(laaber.variability_columns(part.layout))
    n = part.layout.n_configs
    columns["reason"] = [
        laaber.variability_reason({name: float(col[c]) for name, col in columns.items()
                                   if isinstance(col, np.ndarray)})
        for c in range(n)
    ]
    columns["outlier_factor"] = np.full(n, float(params.outlier_factor))
    return {"variability": with_columns(part.meta, columns, VARIABILITY_FIELDS)}


def summarize(tables: Tables, params: VariabilityParams) -> list[str]:
    t = tables["variability"]
    if t.num_rows == 0:
        return ["variability: no configurations"]
    rsd = floats(t.column("rsd_total_pct"))
    lines = [f"variability: {t.num_rows:,} configurations; total RSD median "
             f"{np.nanmedian(rsd):.2f} %, max {np.nanmax(rsd):.2f} %"
             if np.isfinite(rsd).any() else f"variability: {t.num_rows:,} configurations"]
    if np.isfinite(rsd).any():
        worst = int(np.nanargmax(rsd))
        row = {k: t.column(k)[worst].as_py() for k in ("benchmark", "metric", "hardware_type")}
        lines.append(f"  most variable: {row['benchmark']} ({row['metric']}) on "
                     f"{row['hardware_type']}: RSD {rsd[worst]:.2f} %")
    outliers = int(pc.sum(t.column("n_outliers")).as_py() or 0)
    undefined = t.column("rsd_run_mean_pct").null_count
    lines.append(f"  {outliers:,} outliers removed (>= {params.outlier_factor:g} x median); "
                 f"per-run RSD undefined for {undefined:,} configurations")
    return lines


JOB = Job(
    name="variability",
    help="Relative standard deviation (RSD) of every configuration on every hardware type: "
         "total, per node and per run, after outlier removal (Laaber et al. 4.1).",
    params=VariabilityParams,
    query=QUERY,
    compute=compute,
    outputs=("variability",),
    summarize=summarize,
    per_configuration=True,
)
