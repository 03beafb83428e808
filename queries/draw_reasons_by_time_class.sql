-- How do draws end, by time class? Drawn games by draw reason (stalemate,
-- dead position, fivefold, 75 moves, threefold, 50 moves, perpetual check,
-- agreement or other), with their share of the time class's draws.
-- Standard chess and Chess960 games (variants have their own ratings and rules).
-- Tables: results
WITH draws AS (
    SELECT time_class, draw_reason, SUM(games) AS games
    FROM results
    WHERE draw_reason IS NOT NULL AND variant_name IN ('standard', 'chess960')
    GROUP BY time_class, draw_reason
),
totals AS (
    SELECT time_class, SUM(games) AS all_draws
    FROM draws
    GROUP BY time_class
)
SELECT draws.time_class, draws.draw_reason, draws.games,
       draws.games / CAST(totals.all_draws AS DOUBLE) AS share
FROM draws
JOIN totals ON draws.time_class = totals.time_class
ORDER BY draws.time_class, draws.games DESC, draws.draw_reason
