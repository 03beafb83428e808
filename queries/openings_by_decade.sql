-- Which openings were most popular in each decade? The five opening families
-- (the opening name before the colon) with the most games per decade; ties
-- are ranked by name.
-- Tables: games
WITH counted AS (
    SELECT year - (year % 10) AS decade, opening_family, COUNT(*) AS games,
           -CAST(COUNT(*) AS BIGINT) AS most_games_first
    FROM games
    WHERE year IS NOT NULL AND opening_family IS NOT NULL
    GROUP BY year - (year % 10), opening_family
),
ranked AS (
    SELECT decade, opening_family, games,
           -- One sort direction in OVER: polars takes no mixed ASC/DESC.
           ROW_NUMBER() OVER (PARTITION BY decade ORDER BY most_games_first, opening_family) AS rank
    FROM counted
)
SELECT decade, rank, opening_family, games
FROM ranked
WHERE rank <= 5
ORDER BY decade, rank, opening_family
