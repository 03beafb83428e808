-- Rejected games by reason, with one example place for each.
-- Tables: rejects
SELECT reason,
       count(*) AS games,
       min(source || ':' || line) AS first_place
FROM rejects
GROUP BY reason
ORDER BY games DESC, reason;
