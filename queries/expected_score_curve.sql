-- What does white score against the rating difference (the expected-score
-- curve)? White's score (wins plus half the draws, over finished games) per
-- 50-point bucket of white Elo minus black Elo.
-- Standard chess and Chess960 games (variants have their own ratings and rules).
-- Tables: results
SELECT rating_diff_bucket,
       SUM(games) AS games,
       (SUM(white_wins) + 0.5 * SUM(draws))
           / CAST(SUM(white_wins) + SUM(draws) + SUM(black_wins) AS DOUBLE) AS white_score
FROM results
WHERE rating_diff_bucket IS NOT NULL AND variant_name IN ('standard', 'chess960')
GROUP BY rating_diff_bucket
HAVING SUM(white_wins) + SUM(draws) + SUM(black_wins) > 0
ORDER BY rating_diff_bucket
