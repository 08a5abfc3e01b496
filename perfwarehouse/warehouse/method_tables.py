"""The result tables of the method families' jobs (OrderSage, Laaber et al., TriScale,
trends, load tests), each declared once as a :class:`~perfwarehouse.warehouse.columns.Contract`;
:mod:`perfwarehouse.warehouse.contracts` registers them with the rest.
"""

from __future__ import annotations

import pyarrow as pa

from perfwarehouse.warehouse.columns import (
    CONFIGURATION_KEY,
    ENVIRONMENT_KEY,
    KEY_NAMES,
    LOAD_FAMILY,
    MEASURED,
    Contract,
    columns,
    not_null,
)

# ------------------------------------------------------------ OrderSage
ORDER_EFFECTS = Contract("order_effects", "020", """
order_effects: fixed- vs random-order comparison of every configuration on
every hardware type (perfwarehouse analyze order-effects;
Duplyakin et al. (OrderSage, USENIX ATC 2023), §3 and §5). One row per (campaign, configuration, hardware
type) and job run. CIs and the CI case are NULL when a group has too few
values for the confidence (ci_*_n_required says how many it would need).
""", not_null(columns(
    ("campaign", pa.string()), ("benchmark", pa.string()), ("settings", pa.string()),
    ("metric", pa.string()), ("hardware_type", pa.string()), ("n_fixed", pa.int64()),
    ("n_random", pa.int64()), ("kw_h", pa.float64()), ("kw_p", pa.float64()),
    ("reject_alpha", pa.bool_()), ("reject_bonferroni", pa.bool_()), ("eta2", pa.float64()),
    ("delta_pct", pa.float64()), ("delta_median_pct", pa.float64()),
    ("median_fixed", pa.float64()), ("ci_fixed_low", pa.float64()),
    ("ci_fixed_high", pa.float64()), ("median_random", pa.float64()),
    ("ci_random_low", pa.float64()), ("ci_random_high", pa.float64()),
    ("ci_case", pa.int32()), ("config_id", pa.uint64()), ("unit", pa.string()),
    ("higher_is_better", pa.bool_()), ("family_by", pa.string()), ("family", pa.string()),
    ("m", pa.int64()), ("alpha", pa.float64()), ("correction", pa.string()),
    ("p_adjusted", pa.float64()), ("reject_adjusted", pa.bool_()),
    ("order_matters", pa.bool_()), ("kw_df", pa.int32()), ("all_tied", pa.bool_()),
    ("small_sample", pa.bool_()), ("mean_fixed", pa.float64()), ("mean_random", pa.float64()),
    ("ci_method", pa.string()), ("ci_confidence", pa.float64()),
    ("ci_fixed_coverage", pa.float64()), ("ci_fixed_n_required", pa.int32()),
    ("ci_random_coverage", pa.float64()), ("ci_random_n_required", pa.int32()),
    ("ordersage_compat", pa.bool_()), ("cv_fixed", pa.float64()), ("cv_random", pa.float64()),
    ("cv_all", pa.float64()), ("inner_diff", pa.float64())),
    "campaign", "benchmark", "settings", "metric", "hardware_type", "n_fixed", "n_random",
    "reject_alpha", "reject_bonferroni", "config_id", "family_by", "family", "m", "alpha",
    "correction", "reject_adjusted", "order_matters", "all_tied", "small_sample", "ci_method",
    "ci_confidence", "ordersage_compat"))

PREDECESSOR_EFFECTS = Contract("predecessor_effects", "021", """
predecessor_effects: within random-order runs, each configuration's trials
grouped by the test that ran immediately before (perfwarehouse analyze
predecessor-effects "beyond the paper"). One row per (campaign,
configuration, hardware type) and job run: Kruskal-Wallis across the
predecessors, and the worst predecessor (largest median shift against the
rest of the configuration's random trials) with both medians' CIs.
""", not_null(columns(
    ("campaign", pa.string()), ("benchmark", pa.string()), ("settings", pa.string()),
    ("metric", pa.string()), ("hardware_type", pa.string()), ("config_id", pa.uint64()),
    ("unit", pa.string()), ("higher_is_better", pa.bool_()), ("family_by", pa.string()),
    ("family", pa.string()), ("m", pa.int64()), ("n_random", pa.int64()),
    ("n_unknown_predecessor", pa.int64()), ("n_predecessors", pa.int64()),
    ("kw_h", pa.float64()), ("kw_df", pa.int32()), ("kw_p", pa.float64()),
    ("all_tied", pa.bool_()), ("eta2", pa.float64()), ("alpha", pa.float64()),
    ("reject_alpha", pa.bool_()), ("reject_bonferroni", pa.bool_()),
    ("order_matters", pa.bool_()), ("min_trials", pa.int64()), ("n_candidates", pa.int64()),
    ("worst_predecessor_benchmark", pa.string()), ("worst_predecessor_settings", pa.string()),
    ("worst_is_run_start", pa.bool_()), ("worst_n", pa.int64()),
    ("worst_median", pa.float64()), ("worst_ci_low", pa.float64()),
    ("worst_ci_high", pa.float64()), ("worst_ci_coverage", pa.float64()),
    ("rest_n", pa.int64()), ("rest_median", pa.float64()), ("rest_ci_low", pa.float64()),
    ("rest_ci_high", pa.float64()), ("median_shift_pct", pa.float64()),
    ("ci_case", pa.int32()), ("ci_confidence", pa.float64()), ("mwu_p", pa.float64()),
    ("mwu_p_adjusted", pa.float64())),
    "campaign", "benchmark", "settings", "metric", "hardware_type", "config_id", "family_by",
    "family", "m", "n_random", "n_unknown_predecessor", "n_predecessors", "all_tied", "alpha",
    "reject_alpha", "reject_bonferroni", "order_matters", "min_trials", "n_candidates",
    "ci_confidence"))


# ------------------------------------------------------------ Laaber et al.
VARIABILITY = Contract("variability", "030", """
variability: result variability of each configuration on each hardware type
(Laaber et al. (PeerJ Preprints 2018), §4.1; job `variability`). Outliers (values >=
outlier_factor x the configuration's median) are dropped first and counted. RSD =
100 * sd / |mean| in percent (sample sd): over all values (total), per node (mean and
sd across nodes) and per run (mean and sd across runs); the share_* columns split the
sum of squares between nodes, between runs of a node and within runs (they add to 100).
NULL where undefined, with the reason.
""", not_null(MEASURED + columns(
    ("n_values", pa.int64()), ("n_outliers", pa.int64()), ("outlier_factor", pa.float64()),
    ("n_nodes", pa.int32()), ("n_runs", pa.int32()), ("mean", pa.float64()),
    ("median", pa.float64()), ("rsd_total_pct", pa.float64()),
    ("rsd_node_mean_pct", pa.float64()), ("rsd_node_sd_pct", pa.float64()),
    ("n_nodes_rsd", pa.int32()), ("rsd_run_mean_pct", pa.float64()),
    ("rsd_run_sd_pct", pa.float64()), ("n_runs_rsd", pa.int32()),
    ("share_nodes_pct", pa.float64()), ("share_runs_pct", pa.float64()),
    ("share_within_pct", pa.float64()), ("reason", pa.string())),
    *KEY_NAMES, "n_values", "n_outliers", "outlier_factor", "n_nodes", "n_runs",
    "n_nodes_rsd", "n_runs_rsd"))

AA_FPR = Contract("aa_fpr", "031", """
aa_fpr: A/A false-positive rate of the two-sided Wilcoxon rank-sum test (Laaber et al. (PeerJ Preprints 2018)
section 4.2.1; job `aa-fpr`): control and test groups drawn `draws` times
from the same configuration with `n_nodes` nodes (strategy `trial`: the same nodes,
trials_per_node different trials each; `instance`: independently drawn nodes, one
trial each), rejections at p < alpha. fp_rate NULL (with reason) when too few nodes.
""", not_null(MEASURED + columns(
    ("strategy", pa.string()), ("n_nodes", pa.int32()), ("trials_per_node", pa.int32()),
    ("draws", pa.int32()), ("alpha", pa.float64()), ("rejections", pa.int32()),
    ("fp_rate", pa.float64()), ("nodes_available", pa.int32()), ("nodes_eligible", pa.int32()),
    ("seed", pa.int64()), ("reason", pa.string())),
    *KEY_NAMES, "strategy", "n_nodes", "trials_per_node", "draws", "alpha", "nodes_available",
    "nodes_eligible", "seed"))

DETECTABLE_REGRESSION = Contract("detectable_regression", "032", """
detectable_regression: the minimal detectable regression in percent (Laaber et al. (PeerJ Preprints 2018) section
4.2.2, Algorithm 1 as corrected by job `detectable-regression`) of each
configuration, hardware type, sampling strategy (`instance` | `trial`) and number of
nodes. status: `detectable` (detectable_pct set, with the FP and TP rates at it),
`none` (no r of R passes: detectable_pct NULL) or `insufficient` (too few nodes or
trials to draw the groups). reason says why for the last two.
""", not_null(MEASURED + columns(
    ("strategy", pa.string()), ("n_nodes", pa.int32()), ("trials_per_node", pa.int32()),
    ("detectable_pct", pa.float64()), ("fp_rate", pa.float64()), ("tp_rate", pa.float64()),
    ("status", pa.string()), ("reason", pa.string()), ("nodes_available", pa.int32()),
    ("nodes_eligible", pa.int32()), ("n_runs", pa.int32()), ("n_values", pa.int64()),
    ("n_outliers", pa.int64()), ("draws", pa.int32()), ("seed", pa.int64())),
    *KEY_NAMES, "strategy", "n_nodes", "trials_per_node", "status", "nodes_available",
    "nodes_eligible", "n_runs", "n_values", "n_outliers", "draws", "seed"))

DETECTABLE_REGRESSION_CURVE = Contract("detectable_regression_curve", "033", """
detectable_regression_curve: the false- and true-positive rates behind
detectable_regression, one row per configuration, hardware type, strategy, number of
nodes and tested regression r_pct (Laaber et al. (PeerJ Preprints 2018) Figures 6 and 7). passes = fp_rate <= the
maximum and tp_rate >= the minimum. Cells with too few nodes have no rows.
""", not_null(CONFIGURATION_KEY + columns(
    ("strategy", pa.string()), ("n_nodes", pa.int32()), ("trials_per_node", pa.int32()),
    ("r_pct", pa.float64()), ("fp_rate", pa.float64()), ("tp_rate", pa.float64()),
    ("passes", pa.bool_()), ("draws", pa.int32()), ("seed", pa.int64())),
    *KEY_NAMES, "strategy", "n_nodes", "trials_per_node", "r_pct", "fp_rate", "tp_rate",
    "passes", "draws", "seed"))


# ------------------------------------------------------------ TriScale and trends
TRISCALE_CONVERGENCE = Contract("triscale_convergence", "040", """
triscale_convergence: one row per trial with iterations, analysed as a TriScale run
(Jacob et al. (TriScale, JSys 2021), §4.1): its metric over sliding windows and the convergence test.
""", CONFIGURATION_KEY + columns(
    ("node", pa.string()), ("run_id", pa.string()), ("started_at_s", pa.float64()),
    ("n_values", pa.int64()), ("measure", pa.string()), ("metric_value", pa.float64()),
    ("converged", pa.bool_()), ("slope", pa.float64()), ("ci_low", pa.float64()),
    ("ci_high", pa.float64()), ("confidence", pa.float64()), ("tolerance", pa.float64())))

TRISCALE_KPI = Contract("triscale_kpi", "041", """
triscale_kpi: the KPI of each series (a configuration's trials in one campaign or time
window): a one-sided Thompson bound of a percentile, with the independence test
(Jacob et al. (TriScale, JSys 2021), §4.2 and 4.5). kpi is NULL when the series is too short (n_required).
""", CONFIGURATION_KEY + columns(
    ("series_by", pa.string()), ("series", pa.string()), ("n", pa.int64()),
    ("percentile", pa.float64()), ("confidence", pa.float64()), ("side", pa.string()),
    ("kpi", pa.float64()), ("kpi_index", pa.int64()), ("coverage", pa.float64()),
    ("n_required", pa.int64()), ("independent", pa.bool_()),
    ("weakly_stationary", pa.bool_()), ("violating_lags", pa.list_(pa.int32())),
    ("descriptive_only", pa.bool_()), ("method", pa.string())))

TRISCALE_VARIABILITY = Contract("triscale_variability", "042", """
triscale_variability: the variability score of each configuration across its sequels
(the KPIs of its series), Jacob et al. (TriScale, JSys 2021), §4.3. NULL bounds when too few sequels.
""", CONFIGURATION_KEY + columns(
    ("series_by", pa.string()), ("n_sequels", pa.int64()), ("kpi_percentile", pa.float64()),
    ("kpi_confidence", pa.float64()), ("percentile", pa.float64()),
    ("confidence", pa.float64()), ("low", pa.float64()), ("high", pa.float64()),
    ("score", pa.float64()), ("relative_score", pa.float64()), ("coverage", pa.float64()),
    ("n_required", pa.int64()), ("independent", pa.bool_()), ("method", pa.string())))

TRISCALE_INDEPENDENCE = Contract("triscale_independence", "043", """
triscale_independence: the independence test of each series of trial values in time
order (Jacob et al. (TriScale, JSys 2021), §4.5): which half failed and the lags outside the band.
""", CONFIGURATION_KEY + columns(
    ("series_by", pa.string()), ("series", pa.string()), ("n", pa.int64()),
    ("independent", pa.bool_()), ("weakly_stationary", pa.bool_()),
    ("violating_lags", pa.list_(pa.int32())), ("band", pa.float64()),
    ("max_lag", pa.int64()), ("method", pa.string())))

TRISCALE_PROFILE = Contract("triscale_profile", "044", """
triscale_profile: one row per profiled environment (hardware type, or node): the
regular series built from its trials, the convergence test over time, and the
seasonal periods found in its autocorrelation (Jacob et al. (TriScale, JSys 2021), §4.6).
""", ENVIRONMENT_KEY + columns(
    ("n_bins", pa.int64()), ("step_s", pa.float64()), ("filled_bins", pa.int64()),
    ("trials", pa.int64()), ("converged", pa.bool_()), ("slope", pa.float64()),
    ("ci_low", pa.float64()), ("ci_high", pa.float64()), ("band", pa.float64()),
    ("strict_band", pa.float64()), ("seasonal_periods", pa.list_(pa.string())),
    ("seasonal_period_s", pa.list_(pa.float64())), ("seasonal_acf", pa.list_(pa.float64())),
    ("candidate_periods", pa.list_(pa.string()))))

TRISCALE_PROFILE_ACF = Contract("triscale_profile_acf", "045", """
triscale_profile_acf: the autocorrelation of each profiled series at every lag, with
its 95 % band (Jacob et al. (TriScale, JSys 2021), Figure 5); lag_s is the lag in seconds.
""", ENVIRONMENT_KEY + columns(
    ("lag", pa.int64()), ("lag_s", pa.float64()), ("acf", pa.float64()),
    ("band", pa.float64())))

TRENDS = Contract("trends", "046", """
trends: per configuration and hardware type, the Theil-Sen slope of the trial values
against time and against run index, as % of the median per 30 days (per 100 runs),
with Sen's CI; drifting when the time CI excludes 0.
""", CONFIGURATION_KEY + columns(
    ("n", pa.int64()), ("median", pa.float64()), ("first_s", pa.float64()),
    ("last_s", pa.float64()), ("slope_per_day", pa.float64()),
    ("slope_pct_per_30d", pa.float64()), ("ci_low_pct_per_30d", pa.float64()),
    ("ci_high_pct_per_30d", pa.float64()), ("slope_pct_per_100_runs", pa.float64()),
    ("ci_low_pct_per_100_runs", pa.float64()), ("ci_high_pct_per_100_runs", pa.float64()),
    ("confidence", pa.float64()), ("drifting", pa.bool_())))

# ------------------------------------------------------------ load tests
LOAD_CURVE = Contract("load_curve", "061", """
load_curve: one row per load-test configuration family (benchmark + settings but the
load, on one hardware type) and load level (clients N in a closed loop, offered
rate_rps in an open loop); job `load` (perfwarehouse/loadtest/curve.py). Statistics
over the level's consistent trials (n_used; operational-law check per trial in
load_law_checks); a level without one uses all, has consistent = false and takes no
part in peak_rate. throughput (req/s) and mean_ms are the mean over trials with a
Student-t CI (ci_method t) or the median with an order-statistic CI (rank), at
`confidence`; mean_accuracy is equation 2 of Shivam et al. (USENIX ATC 2008).
pNN_ms: pooled from the trials' stored distributions with Woodruff CIs
(latency_source histogram) or from the trials' own percentiles (trial-percentiles).
throughput_law: X = N/(R + Z) at the level's mean response time (closed loop).
region: the CI of the response metric against [R_sat - s R_sat, R_sat + s R_sat]
(below, overlap, above; NULL without --r-sat). error_rate: errors / requests.
""", not_null(LOAD_FAMILY + columns(
    ("load", pa.float64()), ("clients", pa.float64()), ("think_time_s", pa.float64()),
    ("rate_rps", pa.float64()), ("n_trials", pa.int64()), ("n_used", pa.int64()),
    ("n_inconsistent", pa.int64()), ("consistent", pa.bool_()), ("reason", pa.string()),
    ("confidence", pa.float64()), ("ci_method", pa.string()), ("throughput", pa.float64()),
    ("throughput_median", pa.float64()), ("throughput_low", pa.float64()),
    ("throughput_high", pa.float64()), ("throughput_law", pa.float64()),
    ("arrival_rate", pa.float64()), ("mean_ms", pa.float64()), ("mean_low_ms", pa.float64()),
    ("mean_high_ms", pa.float64()), ("mean_accuracy", pa.float64()),
    *((f"p{p}{part}", pa.float64()) for p in ("50", "90", "99", "999")
      for part in ("_ms", "_low_ms", "_high_ms")),
    ("max_ms", pa.float64()), ("latency_source", pa.string()), ("error_rate", pa.float64()),
    ("law_residual", pa.float64()), ("region", pa.string())),
    "campaign", "hardware_type", "benchmark", "family", "loop", "load", "n_trials", "n_used",
    "n_inconsistent", "consistent", "confidence", "ci_method"))

PEAK_RATE = Contract("peak_rate", "062", """
peak_rate: one row per load-test configuration family (job `load`). Closed loop
(On Performance Evaluation, 2019, Figure 2): the highest throughput of a consistent
level with its CI (peak_low, peak_high; with ci_method t simultaneous over the k
levels, Bonferroni, as the largest of k means is biased up), the N at the peak, the knee (the
smallest N reaching knee_fraction of the peak), falls_after_peak (a larger N whose
throughput CI lies wholly below the peak's) and drop_pct at the largest N. Open loop
(Shivam et al., USENIX ATC 2008, sections 2-3): lambda_star = the highest consistent
offered rate whose response_metric (mean or a percentile) is <= r_sat_ms;
lambda_low = the highest rate whose CI is wholly <= R_sat, lambda_high = the lowest
rate above lambda_star whose CI is wholly > R_sat (the true peak rate lies between,
at about the confidence); r_star_* the response time at lambda_star with its CI,
accuracy its equation 2, region its place against [R_sat -+ width R_sat]. reason
says what is missing or what to test next.
""", not_null(LOAD_FAMILY + columns(
    ("n_levels", pa.int64()), ("n_inconsistent_levels", pa.int64()),
    ("confidence", pa.float64()), ("peak_throughput", pa.float64()),
    ("peak_low", pa.float64()), ("peak_high", pa.float64()), ("peak_clients", pa.float64()),
    ("knee_clients", pa.float64()), ("knee_fraction", pa.float64()),
    ("falls_after_peak", pa.bool_()), ("last_throughput", pa.float64()),
    ("drop_pct", pa.float64()), ("response_metric", pa.string()), ("r_sat_ms", pa.float64()),
    ("width", pa.float64()), ("lambda_star", pa.float64()), ("lambda_low", pa.float64()),
    ("lambda_high", pa.float64()), ("r_star_ms", pa.float64()),
    ("r_star_low_ms", pa.float64()), ("r_star_high_ms", pa.float64()),
    ("accuracy", pa.float64()), ("region", pa.string()), ("reason", pa.string())),
    "campaign", "hardware_type", "benchmark", "family", "loop", "n_levels",
    "n_inconsistent_levels", "confidence"))

LOAD_LAW_CHECKS = Contract("load_law_checks", "063", """
load_law_checks: one row per load-test trial (job `load`): the operational law
checked (N = X(R+Z) closed loop, flow balance / offered load open loop, U = XS where
utilization is measured; the worst one), the value it expects (requests in the
system, arrival rate, utilization), the relative residual, consistent (NULL when
nothing could be checked) and the reason when not (perfwarehouse/loadtest/laws.py).
""", not_null(LOAD_FAMILY + columns(
    ("load", pa.float64()), ("run_id", pa.string()), ("position", pa.int32()),
    ("node", pa.string()), ("throughput", pa.float64()), ("mean_ms", pa.float64()),
    ("law", pa.string()), ("expected", pa.float64()), ("residual", pa.float64()),
    ("consistent", pa.bool_()), ("reason", pa.string())),
    "campaign", "hardware_type", "benchmark", "family", "run_id", "position"))

RESPONSE_SURFACE = Contract("response_surface", "070", """
response_surface: the quadratic response surface of the peak rate in the factors
(Shivam et al., USENIX ATC 2008, section 5.5; job `surface`), per campaign, hardware
type, benchmark and the settings that are not factors (`fixed_settings`). Two kinds of
rows: kind = 'coefficient' (term '1', 'A', 'A*B', 'A^2' ... with its least-squares
estimate and Student's t interval at `confidence`, NULL without residual degrees of
freedom) and kind = 'prediction' (one per combination of the factor levels, `point` a
JSON object of factor values, `estimate` the predicted peak rate, `measured` the mean
peak rate found there, NULL where no search ran). n_samples, n_budget (samples whose
search ran out of budget: their best estimate is used unless --no-budget-estimates),
dof, r_squared and loo_mape (leave-one-out mean absolute percentage error as a
fraction) repeat on every row of a surface.
""", not_null(columns(
    ("campaign", pa.string()), ("hardware_type", pa.string()), ("benchmark", pa.string()),
    ("fixed_settings", pa.string()), ("factors", pa.string()), ("kind", pa.string()),
    ("term", pa.string()), ("point", pa.string()), ("estimate", pa.float64()),
    ("ci_low", pa.float64()), ("ci_high", pa.float64()), ("measured", pa.float64()),
    ("n_samples", pa.int32()), ("n_budget", pa.int32()), ("dof", pa.int32()),
    ("r_squared", pa.float64()), ("loo_mape", pa.float64()), ("confidence", pa.float64())),
    "campaign", "hardware_type", "benchmark", "fixed_settings", "factors", "kind",
    "n_samples", "n_budget", "dof", "confidence"))
