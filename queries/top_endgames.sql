-- What are the ten most common endgames, and how do they end? The first
-- endgame of each game, stronger side first, with the stronger side's wins,
-- the draws and the weaker side's wins.
-- Standard chess and Chess960 (the table is keyed by variant too).
-- Tables: endgames
SELECT endgame_signature,
       SUM(games) AS games,
       SUM(stronger_side_wins) AS stronger_side_wins,
       SUM(draws) AS draws,
       SUM(weaker_side_wins) AS weaker_side_wins,
       SUM(plies_to_end_sum) / CAST(SUM(games) AS DOUBLE) AS avg_plies_to_end
FROM endgames
WHERE variant_name IN ('standard', 'chess960')
GROUP BY endgame_signature
ORDER BY games DESC, endgame_signature
LIMIT 10
