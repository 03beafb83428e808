-- Who played the most games, and how did they score? Players by games with
-- white and black together, with wins, draws, losses and the score over
-- finished games (each game's counted result: the declared one when the
-- board agrees, else what the board proves).
-- Tables: games
WITH counted AS (
    SELECT white, black,
           CASE WHEN result_check = 'consistent' THEN declared_result
                ELSE result_by_rule END AS result
    FROM games
),
sides AS (
    SELECT white AS player,
           CASE WHEN result = '1-0' THEN 1 ELSE 0 END AS wins,
           CASE WHEN result = '1/2-1/2' THEN 1 ELSE 0 END AS draws,
           CASE WHEN result = '0-1' THEN 1 ELSE 0 END AS losses
    FROM counted
    WHERE white IS NOT NULL AND white <> '?' AND white <> ''
    UNION ALL
    SELECT black AS player,
           CASE WHEN result = '0-1' THEN 1 ELSE 0 END AS wins,
           CASE WHEN result = '1/2-1/2' THEN 1 ELSE 0 END AS draws,
           CASE WHEN result = '1-0' THEN 1 ELSE 0 END AS losses
    FROM counted
    WHERE black IS NOT NULL AND black <> '?' AND black <> ''
)
SELECT player,
       COUNT(*) AS games,
       SUM(wins) AS wins,
       SUM(draws) AS draws,
       SUM(losses) AS losses,
       (SUM(wins) + 0.5 * SUM(draws))
           / CAST(NULLIF(SUM(wins) + SUM(draws) + SUM(losses), 0) AS DOUBLE) AS score
FROM sides
GROUP BY player
ORDER BY games DESC, player
LIMIT 20
