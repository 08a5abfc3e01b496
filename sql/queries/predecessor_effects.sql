-- predecessor_effects: one campaign's random-order trials for the
-- predecessor-effects job ("beyond the paper"): the configuration
-- (row_key, as in order_effects), the run (as a hash), the position in the run, the value and
-- whether the trial succeeded. Failed trials with values stay in, so that the
-- trial after them still knows its predecessor; only 'ok' values are analysed.
SELECT xor(hash(campaign, hardware_type), config_id) AS row_key, hash(run_id) AS run_key, position,
       value, status = 'ok' AS ok
FROM measurements
WHERE campaign = $campaign AND order_kind = 'random'
