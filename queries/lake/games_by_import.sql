-- How many games, and from when, does each import of a lake hold? The
-- games table of a lake is the union of its imports' games, each row with
-- its import's name (a game_id is unique within its import).
-- Run with `pgnlake query --data LAKE`.
-- Tables: games
SELECT import,
       COUNT(*) AS games,
       MIN(year) AS first_year,
       MAX(year) AS last_year
FROM games
GROUP BY import
ORDER BY import;
