-- How declared results compare with what the board proves.
-- Tables: games
SELECT result_check, end_state, count(*) AS games
FROM games
GROUP BY result_check, end_state
ORDER BY games DESC, result_check, end_state;
