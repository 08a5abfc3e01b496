-- report_configuration_values: every successful value of one configuration (the raw
-- values the order-effects job compares), per hardware type and order kind. Parameters:
-- $campaign, $config_id, $hardware_type (NULL: every hardware type).
SELECT hardware_type, order_kind, value
FROM measurements
WHERE campaign = $campaign AND config_id = $config_id AND status = 'ok'
    AND value IS NOT NULL AND isfinite(value)
    AND ($hardware_type IS NULL OR hardware_type = $hardware_type)
ORDER BY hardware_type, order_kind, value
