-- How has the share of each opening family changed month by month? For
-- every month, the games of each opening family and their share of the
-- month's named games (an import with `--opening-period year` gives one row
-- per year, dated January 1st); families below 5 % of a month are left out.
-- Tables: opening_lines
WITH families AS (
    SELECT month, opening_family, SUM(games) AS games
    FROM opening_lines
    WHERE month IS NOT NULL
    GROUP BY month, opening_family
),
shares AS (
    SELECT month, opening_family, games,
           100.0 * games / SUM(games) OVER (PARTITION BY month) AS share_percent
    FROM families
)
SELECT CAST(month AS STRING) AS month, opening_family, games, share_percent
FROM shares
WHERE share_percent >= 5
ORDER BY month, share_percent DESC, opening_family
