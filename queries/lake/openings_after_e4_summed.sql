-- What is played after 1.e4 over every import of a lake, summed? A lake's
-- aggregate tables (openings, opening_lines, results, material, endgames)
-- hold one row per key per import: add them up by their key columns, as
-- here, to read the lake as one import of all its inputs.
-- Run with `pgnlake query --data LAKE`.
-- Tables: openings
SELECT move_san,
       SUM(games) AS games,
       SUM(white_wins) AS white_wins,
       SUM(draws) AS draws,
       SUM(black_wins) AS black_wins,
       COUNT(DISTINCT import) AS imports
FROM openings
WHERE epd = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -'
GROUP BY move_san
ORDER BY games DESC, move_san;
