-- How often are games drawn, by time class and year? Draws over finished
-- games.
-- Standard chess and Chess960 games (variants have their own ratings and rules).
-- Tables: results
SELECT time_class, year,
       SUM(games) AS games,
       SUM(draws) AS draws,
       SUM(draws) / CAST(SUM(white_wins) + SUM(draws) + SUM(black_wins) AS DOUBLE)
           AS draw_rate
FROM results
WHERE variant_name IN ('standard', 'chess960')
GROUP BY time_class, year
HAVING SUM(white_wins) + SUM(draws) + SUM(black_wins) > 0
ORDER BY time_class, year NULLS LAST
