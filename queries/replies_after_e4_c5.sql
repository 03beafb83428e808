-- After 1.e4 c5, which white replies score best? Every move played in the
-- position, with white's score over finished games and the average ratings,
-- summed over every speed, rating band and month (add a WHERE on
-- time_class, rating_band or month to narrow it, as `explore` does).
-- Tables: openings
SELECT move_uci, SUM(games) AS games, SUM(white_wins) AS white_wins,
       SUM(draws) AS draws, SUM(black_wins) AS black_wins,
       (SUM(white_wins) + 0.5 * SUM(draws))
           / CAST(SUM(white_wins) + SUM(draws) + SUM(black_wins) AS DOUBLE) AS white_score,
       SUM(white_elo_sum) / CAST(NULLIF(SUM(white_elo_count), 0) AS DOUBLE) AS avg_white_elo,
       SUM(black_elo_sum) / CAST(NULLIF(SUM(black_elo_count), 0) AS DOUBLE) AS avg_black_elo,
       MAX(last_year) AS last_year
FROM openings
-- The position by its key, as `pgnlake key FEN` prints it (in `pgnlake
-- query`, `position_key('FEN')` is the key): rows of one game carry no EPD
-- and no SAN, so the moves are in UCI.
-- rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -
WHERE position_key = 7227515431820872427
GROUP BY move_uci
HAVING SUM(white_wins) + SUM(draws) + SUM(black_wins) > 0
ORDER BY white_score DESC, games DESC, move_uci
