-- Which positions are reached by the most different move orders? For each
-- position, the number of distinct (previous position, move) pairs that lead
-- into it within the opening window: each is at least one more move order.
-- The EPD is known when a move was also played from the position itself.
-- Tables: openings
WITH edges AS (
    -- One row per (position, move): the tree splits each by speed, rating
    -- band and month.
    SELECT position_key, move_uci, next_position_key,
           SUM(games) AS games, MIN(ply) AS ply
    FROM openings
    GROUP BY position_key, move_uci, next_position_key
),
entered AS (
    SELECT next_position_key AS position_key,
           COUNT(*) AS move_orders,
           SUM(games) AS games,
           MIN(ply) + 1 AS ply
    FROM edges
    GROUP BY next_position_key
    HAVING COUNT(*) >= 2
),
positions AS (
    SELECT DISTINCT position_key, epd FROM openings
)
SELECT entered.ply, positions.epd, entered.move_orders, entered.games
FROM entered
LEFT JOIN positions ON positions.position_key = entered.position_key
ORDER BY entered.move_orders DESC, entered.games DESC, entered.ply, positions.epd NULLS LAST
LIMIT 20
