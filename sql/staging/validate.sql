-- validate: every rule a parsed batch (raw_trials, settings already canonical)
-- breaks, one row per problem: (source, line, rule, detail).
-- Per-record rules scan once; rules about groups (runs, positions, nodes,
-- configurations) aggregate first and look at lines only for the broken groups.
WITH
record_rules AS (
    SELECT source, line, concat_ws(', ',
            CASE WHEN nullif(campaign, '') IS NULL THEN 'campaign' END,
            CASE WHEN nullif(run_id, '') IS NULL THEN 'run_id' END,
            CASE WHEN nullif(node, '') IS NULL THEN 'node' END,
            CASE WHEN nullif(hardware_type, '') IS NULL THEN 'hardware_type' END,
            CASE WHEN run_index IS NULL THEN 'run_index' END,
            CASE WHEN order_kind IS NULL THEN 'order_kind' END,
            CASE WHEN position IS NULL THEN 'position' END,
            CASE WHEN nullif(benchmark, '') IS NULL THEN 'benchmark' END,
            CASE WHEN settings IS NULL THEN 'settings' END,
            CASE WHEN nullif(metric, '') IS NULL THEN 'metric' END,
            CASE WHEN "values" IS NULL THEN 'values' END,
            CASE WHEN started_at IS NULL AND source NOT IN (SELECT source FROM untimed_sources)
                 THEN 'started_at' END,
            CASE WHEN nullif(status, '') IS NULL THEN 'status' END) AS missing,
        v, order_kind, position, run_index, run_size, duration_s, status, started_at,
        len(list_filter("values", lambda x: x IS NULL OR NOT isfinite(x))) AS non_finite,
        -- ingest/limits.py VALUE_MIN / VALUE_MAX: finite values that overflow the analyses
        list_filter("values", lambda x: isfinite(x) AND x <> 0
            AND NOT (abs(x) BETWEEN $value_min AND $value_max))[1] AS out_of_range,
        len("values") AS n_values,
        -- attributes is an object's JSON text (both JSONL readers refuse anything else;
        -- this guards every other writer of raw_trials)
        attributes IS NOT NULL AND NOT starts_with(attributes, '{') AS bad_attributes,
        started_at < TIMESTAMPTZ '1970-01-01 00:00:00+00'
            OR started_at > TIMESTAMPTZ '9999-12-31 23:59:59.999999+00' AS bad_time,
        revision_time,
        revision_time < TIMESTAMPTZ '1970-01-01 00:00:00+00'
            OR revision_time > TIMESTAMPTZ '9999-12-31 23:59:59.999999+00' AS bad_revision_time
    FROM raw_trials
),
name_values AS (  -- names repeat across records: each distinct value is checked once
    SELECT 0 AS ord, 'campaign' AS col, campaign AS val FROM raw_trials GROUP BY campaign
    UNION ALL SELECT 1 AS ord, 'run_id' AS col, run_id AS val FROM raw_trials GROUP BY run_id
    UNION ALL SELECT 2 AS ord, 'node' AS col, node AS val FROM raw_trials GROUP BY node
    UNION ALL SELECT 3 AS ord, 'hardware_type' AS col, hardware_type AS val FROM raw_trials GROUP BY hardware_type
    UNION ALL SELECT 4 AS ord, 'benchmark' AS col, benchmark AS val FROM raw_trials GROUP BY benchmark
    UNION ALL SELECT 5 AS ord, 'metric' AS col, metric AS val FROM raw_trials GROUP BY metric
    UNION ALL SELECT 6 AS ord, 'unit' AS col, unit AS val FROM raw_trials GROUP BY unit
    UNION ALL SELECT 7 AS ord, 'status' AS col, status AS val FROM raw_trials GROUP BY status
    UNION ALL SELECT 8 AS ord, 'revision' AS col, revision AS val FROM raw_trials GROUP BY revision
),
bad_values AS (
    SELECT ord, col, val FROM name_values
    WHERE length(val) > CASE WHEN col = 'benchmark' THEN $benchmark_max ELSE $name_max END
       OR regexp_matches(val, '[\x00-\x1f\x7f]')
       OR (col IN ('campaign', 'hardware_type') AND strlen(url_encode(val)) > $name_max)
),
bad_names AS (  -- the records holding them (a join with an empty side is free)
    SELECT r.source, r.line, string_agg(b.col, ', ' ORDER BY b.ord) AS bad_names
    FROM raw_trials r JOIN bad_values b ON CASE b.col
        WHEN 'campaign' THEN r.campaign WHEN 'run_id' THEN r.run_id WHEN 'node' THEN r.node
        WHEN 'hardware_type' THEN r.hardware_type WHEN 'benchmark' THEN r.benchmark
        WHEN 'metric' THEN r.metric WHEN 'unit' THEN r.unit WHEN 'status' THEN r.status
        WHEN 'revision' THEN r.revision END = b.val
    GROUP BY r.source, r.line
),
bad_integers AS (
    SELECT source, line, name, x FROM (
        SELECT source, line, unnest([
            {'name': 'position', 'x': position},
            {'name': 'run_index', 'x': run_index},
            {'name': 'run_size', 'x': run_size}], recursive := true)
        FROM record_rules
        WHERE NOT (coalesce(position, 0) BETWEEN 0 AND 2147483647 AND position = floor(position))
           OR NOT (coalesce(run_index, 0) BETWEEN 0 AND 2147483647 AND run_index = floor(run_index))
           OR NOT (coalesce(run_size, 0) BETWEEN 0 AND 2147483647 AND run_size = floor(run_size))
    )
    WHERE x IS NOT NULL AND (NOT isfinite(x) OR x < 0 OR x <> floor(x) OR x > 2147483647)
),
runs AS (
    SELECT campaign, run_id, count(*) AS records, min(run_size) AS run_size,
           max(position) AS last_position,
           min(node) <> max(node) OR min(order_kind) <> max(order_kind)
             OR min(run_index) <> max(run_index) OR min(seed) <> max(seed)
             OR min(run_size) <> max(run_size)
             OR count(seed) NOT IN (0, count(*)) OR count(run_size) NOT IN (0, count(*))
             OR min(revision) <> max(revision) OR count(revision) NOT IN (0, count(*))
             OR min(revision_time) <> max(revision_time)
             OR count(revision_time) NOT IN (0, count(*)) AS varies
    FROM raw_trials GROUP BY ALL
),
broken_runs AS (SELECT * FROM runs WHERE varies OR records > run_size OR last_position >= run_size),
-- candidates by 64-bit hash (cheap); keyed below decides on the real keys
positions AS (
    SELECT hash(campaign, run_id, position) AS h FROM raw_trials GROUP BY 1
    HAVING min(hash(benchmark, settings)) <> max(hash(benchmark, settings))
),
identities AS (
    SELECT hash(campaign, run_id, position, benchmark, settings, metric) AS h
    FROM raw_trials GROUP BY 1 HAVING count(*) > 1
),
node_types AS (
    SELECT node FROM raw_trials GROUP BY node HAVING min(hardware_type) <> max(hardware_type)
),
config_attrs AS (
    SELECT benchmark, settings, metric FROM raw_trials GROUP BY ALL
    HAVING min(coalesce(unit, chr(1))) <> max(coalesce(unit, chr(1)))
        OR count(unit) NOT IN (0, count(*))
        OR min(higher_is_better) <> max(higher_is_better)
        OR count(higher_is_better) NOT IN (0, count(*))
),
group_lines AS (  -- the records of broken groups (semi joins: free when none are broken)
    SELECT DISTINCT ON (source, line) * FROM (
        SELECT r.* FROM raw_trials r SEMI JOIN broken_runs b USING (campaign, run_id)
        UNION ALL
        SELECT r.* FROM raw_trials r SEMI JOIN positions p
            ON hash(r.campaign, r.run_id, r.position) = p.h
        UNION ALL
        SELECT r.* FROM raw_trials r SEMI JOIN identities i
            ON hash(r.campaign, r.run_id, r.position, r.benchmark, r.settings, r.metric) = i.h
        UNION ALL
        SELECT r.* FROM raw_trials r SEMI JOIN node_types n USING (node)
        UNION ALL
        SELECT r.* FROM raw_trials r SEMI JOIN config_attrs c USING (benchmark, settings, metric)
    )
),
windowed AS (
    SELECT *,
        row_number() OVER (PARTITION BY campaign, run_id, position, benchmark, settings, metric
                           ORDER BY source, line) AS copy_no,
        first_value(benchmark || chr(31) || settings) OVER (
            PARTITION BY campaign, run_id, position ORDER BY source, line) AS first_test,
        first_value((node, order_kind, run_index, seed, run_size)) OVER (
            PARTITION BY campaign, run_id ORDER BY source, line) AS run_first,
        first_value((revision, revision_time)) OVER (
            PARTITION BY campaign, run_id ORDER BY source, line) AS revision_first,
        first_value(hardware_type) OVER (PARTITION BY node ORDER BY source, line) AS node_type,
        first_value((unit, higher_is_better)) OVER (
            PARTITION BY benchmark, settings, metric ORDER BY source, line) AS config_first
    FROM group_lines
),
keyed AS (  -- the n-th distinct trial of its run (duplicates are their own problem)
    SELECT *,
        count(*) FILTER (WHERE copy_no = 1) OVER (PARTITION BY campaign, run_id) AS run_records,
        CASE WHEN copy_no = 1 THEN row_number() OVER (
            PARTITION BY campaign, run_id, copy_no = 1 ORDER BY source, line) END AS run_rank
    FROM windowed
)
SELECT source, line, 'missing-key' AS rule, 'missing required field(s): ' || missing AS detail
FROM record_rules WHERE missing <> ''
UNION ALL
SELECT source, line, 'bad-name', bad_names || ' must be at most ' || CAST($name_max AS VARCHAR)
       || ' characters (benchmark ' || CAST($benchmark_max AS VARCHAR) || '; campaign and '
       || 'hardware_type at most ' || CAST($name_max AS VARCHAR)
       || ' bytes URL-encoded: they name directories) without control characters'
FROM bad_names
UNION ALL
SELECT source, line, 'bad-timestamp', 'started_at ' || CAST(started_at AS VARCHAR) || ' is outside 1970-9999'
FROM record_rules WHERE bad_time
UNION ALL
SELECT source, line, 'bad-timestamp', 'revision_time ' || CAST(revision_time AS VARCHAR) || ' is outside 1970-9999'
FROM record_rules WHERE bad_revision_time
UNION ALL
SELECT source, line, 'wrong-type', 'attributes must be a JSON object'
FROM record_rules WHERE bad_attributes
UNION ALL
SELECT source, line, 'unsupported-version',
       'format version "v" is ' || coalesce(CAST(v AS VARCHAR), 'missing') || '; this perfwarehouse reads version 1'
FROM record_rules WHERE v IS DISTINCT FROM 1
UNION ALL
SELECT source, line, 'unknown-order-kind',
       'order_kind is ' || CAST(to_json(order_kind) AS VARCHAR) || '; expected "fixed" or "random"'
FROM record_rules WHERE order_kind NOT IN ('fixed', 'random')
UNION ALL
SELECT source, line, 'bad-integer', name || ' is ' || CAST(x AS VARCHAR) || '; expected a whole number >= 0'
FROM bad_integers
UNION ALL
SELECT source, line, 'non-finite', 'values contain a non-finite number (NaN or infinity)'
FROM record_rules WHERE non_finite > 0
UNION ALL
SELECT source, line, 'value-range', 'value ' || CAST(out_of_range AS VARCHAR)
       || ' is outside the range a measurement can have (0 or a magnitude from '
       || CAST($value_min AS VARCHAR) || ' to ' || CAST($value_max AS VARCHAR) || ')'
FROM record_rules WHERE out_of_range IS NOT NULL
UNION ALL
SELECT source, line, 'non-finite', 'duration_s is not a finite number'
FROM record_rules WHERE NOT isfinite(duration_s)
UNION ALL
SELECT source, line, 'negative-duration', 'duration is ' || CAST(duration_s AS VARCHAR) || ' s'
FROM record_rules WHERE duration_s < 0
UNION ALL
SELECT source, line, 'no-values', 'a trial with status "ok" has no values'
FROM record_rules WHERE status = 'ok' AND n_values = 0
UNION ALL
SELECT source, line, 'duplicate-position',
       'run ' || run_id || ' already has a trial of this configuration at position '
       || CAST(CAST(position AS BIGINT) AS VARCHAR)
FROM keyed WHERE copy_no > 1
UNION ALL
SELECT source, line, 'duplicate-position',
       'run ' || run_id || ' already has a different test at position '
       || CAST(CAST(position AS BIGINT) AS VARCHAR)
FROM keyed WHERE copy_no = 1 AND benchmark || chr(31) || settings <> first_test
UNION ALL
SELECT source, line, 'inconsistent-run',
       'run ' || run_id || ' changes its node, order kind, run index, seed or size between records'
FROM keyed WHERE (node, order_kind, run_index, seed, run_size) IS DISTINCT FROM run_first
UNION ALL
SELECT source, line, 'inconsistent-revision',
       'run ' || run_id || ' has two revisions: ' || coalesce(revision_first[1], 'none')
       || coalesce(' at ' || CAST(revision_first[2] AS VARCHAR), '') || ' earlier, here '
       || coalesce(revision, 'none') || coalesce(' at ' || CAST(revision_time AS VARCHAR), '')
       || ' (a run tests one revision)'
FROM keyed WHERE (revision, revision_time) IS DISTINCT FROM revision_first
    AND NOT regexp_matches(coalesce(revision, ''), '[\x00-\x1f\x7f]')  -- a bad name is its own problem
UNION ALL
SELECT source, line, 'run-size',
       'run ' || run_id || ' has ' || CAST(run_records AS VARCHAR) || ' trials but its test list has '
       || CAST(CAST(run_size AS BIGINT) AS VARCHAR)
FROM keyed WHERE run_rank = run_size + 1 OR (copy_no = 1 AND position >= run_size)
UNION ALL
SELECT source, line, 'inconsistent-node',
       'node ' || node || ' is of hardware type ' || node_type || ' earlier in the batch, here '
       || hardware_type
FROM keyed WHERE hardware_type IS DISTINCT FROM node_type
UNION ALL
SELECT source, line, 'inconsistent-configuration',
       'the unit or direction of ' || benchmark || ' / ' || metric || ' differs from earlier records'
FROM keyed WHERE (unit, higher_is_better) IS DISTINCT FROM config_first
ORDER BY source, line, rule
LIMIT $max_problems
