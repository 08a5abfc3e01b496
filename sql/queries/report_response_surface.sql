-- report_response_surface: the rows of table response_surface (job `surface`,
-- perfwarehouse/jobs/surface.py) from the latest `surface` job run of each campaign.
-- Parameters: $campaign (NULL: every campaign).
SELECT t.* EXCLUDE (job_run_id)
FROM response_surface AS t
WHERE ($campaign IS NULL OR t.campaign = $campaign)
ORDER BY t.campaign, t.hardware_type, t.benchmark, t.fixed_settings, t.kind,
         -- the terms in the model's order: 1, A, B, A*B, A^2, B^2
         CASE WHEN t.term = '1' THEN 0 WHEN t.term LIKE '%^2' THEN 3
              WHEN t.term LIKE '%*%' THEN 2 ELSE 1 END, t.term, t.point
