-- Which games went on after a dead position (no series of legal moves lets
-- either side checkmate: FIDE 5.2.2 ends the game there), or were declared
-- won by a side that could no longer checkmate (6.9: a flag fall is then a
-- draw)? By end state, declared result and audit, with how many games
-- played on after the position died and the first game of each kind.
-- Tables: games
SELECT end_state, declared_result, result_check,
       COUNT(*) AS games,
       SUM(CASE WHEN dead_position_ply < plies THEN 1 ELSE 0 END) AS played_on,
       MIN(game_id) AS first_game_id
FROM games
WHERE dead_position_ply IS NOT NULL
   OR (end_state NOT IN ('checkmate', 'stalemate')
       AND ((declared_result = '1-0' AND NOT white_can_mate)
            OR (declared_result = '0-1' AND NOT black_can_mate)))
GROUP BY end_state, declared_result, result_check
ORDER BY games DESC, end_state, declared_result NULLS FIRST, result_check
