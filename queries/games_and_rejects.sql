-- How many games were read, and how many were accepted and rejected?
-- Tables: games, rejects
SELECT 'accepted' AS status, COUNT(*) AS games FROM games
UNION ALL
SELECT 'rejected' AS status, COUNT(*) AS games FROM rejects
ORDER BY status;

-- Why were games rejected? Rejected games by reason, with their share of
-- all rejects.
WITH total AS (SELECT COUNT(*) AS all_rejects FROM rejects)
SELECT reason,
       COUNT(*) AS games,
       COUNT(*) / CAST(MAX(total.all_rejects) AS DOUBLE) AS share
FROM rejects
CROSS JOIN total
GROUP BY reason
ORDER BY games DESC, reason
