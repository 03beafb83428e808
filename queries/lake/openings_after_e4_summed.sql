-- What is played after 1.e4 over every import of a lake, summed? A lake's
-- aggregate tables (openings, opening_lines, results, material, endgames)
-- hold one row per key per import: add them up by their key columns, as
-- here, to read the lake as one import of all its inputs.
-- Run with `pgnlake query --data LAKE`: `position_key('FEN')` is the
-- position's key there (rows of one game carry no EPD or SAN, so the
-- position is found by key and the moves are in UCI).
-- Tables: openings
SELECT move_uci,
       SUM(games) AS games,
       SUM(white_wins) AS white_wins,
       SUM(draws) AS draws,
       SUM(black_wins) AS black_wins,
       COUNT(DISTINCT import) AS imports
FROM openings
WHERE position_key = position_key('rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -')
GROUP BY move_uci
ORDER BY games DESC, move_uci;
