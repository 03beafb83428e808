-- At which ply are games most often checkmated? The twenty most frequent
-- lengths of games that end in checkmate, with the mates by each side.
-- Tables: games
SELECT plies,
       COUNT(*) AS checkmates,
       SUM(CASE WHEN winner_by_rule = 'white' THEN 1 ELSE 0 END) AS by_white,
       SUM(CASE WHEN winner_by_rule = 'black' THEN 1 ELSE 0 END) AS by_black
FROM games
WHERE end_state = 'checkmate'
GROUP BY plies
ORDER BY checkmates DESC, plies
LIMIT 20
