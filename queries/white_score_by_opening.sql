-- How well does white score in each named opening? White's score (wins plus
-- half the draws, over finished games) for openings with at least 20 games;
-- change the 20 to taste.
-- Tables: opening_lines
SELECT eco, opening_name, games, white_wins, draws, black_wins,
       white_score AS white_score,
       draw_rate AS draw_rate,
       avg_elo_diff AS avg_elo_diff
FROM opening_lines
WHERE games >= 20 AND white_score IS NOT NULL
ORDER BY white_score DESC, games DESC, eco, opening_name
