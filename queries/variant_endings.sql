-- How do the games of each variant end? Per variant, the end state (a
-- variant's own end: variant_win / variant_loss / variant_draw, seen from
-- the side to move) and the rule behind it (king_exploded, three_checks,
-- king_on_hill, …), with the games and how often the declared result agrees.
-- Tables: games
SELECT variant_name, end_state, variant_end,
       COUNT(*) AS games,
       SUM(CASE WHEN result_check = 'consistent' THEN 1 ELSE 0 END) AS consistent,
       AVG(plies) AS avg_plies
FROM games
GROUP BY variant_name, end_state, variant_end
ORDER BY variant_name, games DESC, end_state, variant_end
