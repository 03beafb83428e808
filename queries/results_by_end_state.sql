-- How are results distributed over end states? For each final position
-- (checkmate, stalemate, dead position, …, none), the declared results.
-- Tables: games
SELECT end_state,
       COUNT(*) AS games,
       SUM(CASE WHEN declared_result = '1-0' THEN 1 ELSE 0 END) AS white_wins,
       SUM(CASE WHEN declared_result = '1/2-1/2' THEN 1 ELSE 0 END) AS draws,
       SUM(CASE WHEN declared_result = '0-1' THEN 1 ELSE 0 END) AS black_wins,
       SUM(CASE WHEN declared_result = '*' THEN 1 ELSE 0 END) AS unfinished,
       SUM(CASE WHEN declared_result IS NULL THEN 1 ELSE 0 END) AS no_result
FROM games
GROUP BY end_state
ORDER BY games DESC, end_state
