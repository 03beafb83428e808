-- How often does a material lead of 1, 2 or 3 points at ply 40 win? For
-- each lead (either colour), the games the leading side won, drew and lost.
-- Tables: material
SELECT ABS(material_diff) AS lead,
       SUM(games) AS games,
       SUM(CASE WHEN material_diff > 0 THEN white_wins ELSE black_wins END) AS leader_wins,
       SUM(draws) AS draws,
       SUM(CASE WHEN material_diff > 0 THEN black_wins ELSE white_wins END) AS leader_losses,
       SUM(CASE WHEN material_diff > 0 THEN white_wins ELSE black_wins END)
           / CAST(SUM(games) AS DOUBLE) AS conversion_rate
FROM material
WHERE checkpoint_ply = 40 AND ABS(material_diff) BETWEEN 1 AND 3
GROUP BY ABS(material_diff)
ORDER BY lead
