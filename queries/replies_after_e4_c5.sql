-- After 1.e4 c5, which white replies score best? Every move played in the
-- position, with white's score over finished games and the average ratings.
-- Tables: openings
SELECT move_san, games, white_wins, draws, black_wins,
       (white_wins + 0.5 * draws) / CAST(white_wins + draws + black_wins AS DOUBLE)
           AS white_score,
       white_elo_sum / CAST(NULLIF(white_elo_count, 0) AS DOUBLE) AS avg_white_elo,
       black_elo_sum / CAST(NULLIF(black_elo_count, 0) AS DOUBLE) AS avg_black_elo,
       last_year
FROM openings
WHERE epd = 'rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -'
  AND white_wins + draws + black_wins > 0
ORDER BY white_score DESC, games DESC, move_san
