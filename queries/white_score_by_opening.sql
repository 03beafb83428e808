-- How well does white score in each named opening? White's score (wins plus
-- half the draws, over finished games) for openings with at least 20 games,
-- summed over every speed, rating band and month; change the 20 to taste.
-- Tables: opening_lines
WITH summed AS (
    SELECT eco, opening_name, SUM(games) AS games, SUM(white_wins) AS white_wins,
           SUM(draws) AS draws, SUM(black_wins) AS black_wins,
           SUM(elo_diff_sum) AS elo_diff_sum, SUM(elo_diff_count) AS elo_diff_count
    FROM opening_lines
    GROUP BY eco, opening_name
)
SELECT eco, opening_name, games, white_wins, draws, black_wins,
       (white_wins + 0.5 * draws) / CAST(white_wins + draws + black_wins AS DOUBLE)
           AS white_score,
       draws / CAST(white_wins + draws + black_wins AS DOUBLE) AS draw_rate,
       elo_diff_sum / CAST(NULLIF(elo_diff_count, 0) AS DOUBLE) AS avg_elo_diff
FROM summed
WHERE games >= 20 AND white_wins + draws + black_wins > 0
ORDER BY white_score DESC, games DESC, eco, opening_name
