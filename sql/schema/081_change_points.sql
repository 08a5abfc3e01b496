-- change_points: `analyze change-points`: per configuration and hardware type, the
-- series of trial medians (ordered_by revision: by revision time then start; time: by
-- start) searched with E-divisive means and a permutation test at level alpha (a
-- stationary series gets any change point with probability <= alpha). One row per change
-- point: position = 0-based index of the first point after it, the revision, revision
-- time and start of that point (and the revision before it), medians of the segments
-- before/after (between neighbouring change points), change_pct = 100 (after / before - 1)
-- of the typical value (for non-positive values the shift / |median before|: its sign is
-- the sign of the change) with its CI at `confidence`, the permutation p-value, and
-- direction regression|improvement by the sign of change_pct and higher_is_better. A series without change points
-- gets one row with position NULL and the reason (too short, no significant change, ...).
-- abs_change_pct = |change_pct| and action (the change's interval lies beyond
-- +-min_effect %) make the action list, largest first (081b/081c add them to catalogs
-- created before them, NULL for their earlier runs). paired_with: the benchmark the
-- series was divided by, run by run (--baseline; the values are then ratios), and
-- n_unpaired: its trials left out for want of a baseline value in their run (081d/081e).
CREATE TABLE IF NOT EXISTS change_points_history (
    job_run_id        BIGINT NOT NULL,
    campaign          VARCHAR NOT NULL,
    hardware_type     VARCHAR NOT NULL,
    config_id         UBIGINT NOT NULL,
    benchmark         VARCHAR,
    settings          VARCHAR,
    metric            VARCHAR,
    unit              VARCHAR,
    higher_is_better  BOOLEAN,
    ordered_by        VARCHAR NOT NULL,
    n_points          BIGINT NOT NULL,
    position          BIGINT,
    revision          VARCHAR,
    revision_time     TIMESTAMPTZ,
    started_at        TIMESTAMPTZ,
    revision_before   VARCHAR,
    n_before          BIGINT,
    n_after           BIGINT,
    median_before     DOUBLE,
    median_after      DOUBLE,
    change_pct        DOUBLE,
    ci_low_pct        DOUBLE,
    ci_high_pct       DOUBLE,
    confidence        DOUBLE NOT NULL,
    p_value           DOUBLE,
    alpha             DOUBLE NOT NULL,
    direction         VARCHAR,
    reason            VARCHAR,
    abs_change_pct    DOUBLE,
    action            BOOLEAN,
    paired_with       VARCHAR,
    n_unpaired        BIGINT
);
