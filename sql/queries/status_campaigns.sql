-- status_campaigns: what the warehouse holds, per campaign (perfwarehouse status): hardware
-- types, data files, measurements, the newest batch that added to it and when it landed.
SELECT f.campaign,
       count(DISTINCT f.hardware_type) AS hardware_types,
       count(*) AS files,
       sum(f.row_count) AS measurements,
       max(f.batch_id) AS last_batch,
       max(b.finished_at) AS last_ingest
FROM data_files AS f
LEFT JOIN ingest_batches AS b USING (batch_id)
GROUP BY f.campaign
ORDER BY f.campaign
