-- Which games declare a result that the board contradicts, and how? By kind
-- of contradiction and the declared and proven results, with the first game
-- of each kind.
-- Tables: games
SELECT result_check AS kind,
       declared_result,
       result_by_rule,
       COUNT(*) AS games,
       MIN(game_id) AS first_game_id
FROM games
WHERE result_check LIKE 'contradicts_%' OR result_check = 'unfinished_but_decided'
GROUP BY result_check, declared_result, result_by_rule
ORDER BY games DESC, kind, declared_result NULLS FIRST, result_by_rule NULLS FIRST
