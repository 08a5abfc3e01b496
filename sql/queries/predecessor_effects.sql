-- predecessor_effects: one campaign's random-order trials for the
-- predecessor-effects job (SPEC 5.1, "beyond the paper"): the campaign and
-- hardware type, and the run (as hashes), the position in the run, the configuration, the value and
-- whether the trial succeeded. Failed trials with values stay in, so that the
-- trial after them still knows its predecessor; only 'ok' values are analysed.
SELECT hash(campaign, hardware_type) AS partition_key, hash(run_id) AS run_key, position, config_id,
       value, status = 'ok' AS ok
FROM measurements
WHERE campaign = $campaign AND order_kind = 'random'
