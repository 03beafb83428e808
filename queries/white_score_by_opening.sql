-- How well does white score in each named opening? White's score (wins plus
-- half the draws, over finished games) for openings with at least 20 games;
-- change the 20 to taste.
-- Tables: opening_lines
SELECT eco, opening_name, games, white_wins, draws, black_wins,
       ROUND(white_score, 3) AS white_score,
       ROUND(draw_rate, 3) AS draw_rate,
       ROUND(avg_elo_diff, 1) AS avg_elo_diff
FROM opening_lines
WHERE games >= 20 AND white_score IS NOT NULL
ORDER BY white_score DESC, games DESC, eco, opening_name
