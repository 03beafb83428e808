-- What are the ten most common endgames, and how do they end? The first
-- endgame of each game, stronger side first, with the stronger side's wins,
-- the draws and the weaker side's wins.
-- Tables: endgames
SELECT endgame_signature, games, stronger_side_wins, draws, weaker_side_wins,
       avg_plies_to_end AS avg_plies_to_end
FROM endgames
ORDER BY games DESC, endgame_signature
LIMIT 10
