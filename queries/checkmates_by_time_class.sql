-- How often does a game end in checkmate, by time class? Games whose final
-- position is checkmate, over all games.
-- Standard chess and Chess960 games (variants have their own ratings and rules).
-- Tables: results
SELECT time_class,
       SUM(games) AS games,
       SUM(CASE WHEN end_state = 'checkmate' THEN games ELSE 0 END) AS checkmates,
       SUM(CASE WHEN end_state = 'checkmate' THEN games ELSE 0 END)
           / CAST(SUM(games) AS DOUBLE) AS checkmate_rate
FROM results
WHERE variant_name IN ('standard', 'chess960')
GROUP BY time_class
ORDER BY time_class
