-- Which replies to 1.e4 gained and which lost the most ground? In each
-- rating band, each reply's share of the band's games after 1.e4 in the
-- two latest years with games of the position (`earlier_year`,
-- `later_year`), and the change in percentage points: most gained first,
-- most lost last. For another position, put its key (`pgnlake key FEN`);
-- for an opening family, the key of its defining position; for other
-- periods, the years in `years`. Games without both ratings have no band.
-- Tables: openings
WITH rows_after_e4 AS (
    SELECT rating_band, move_uci, games,
           CAST(SUBSTR(CAST(month AS STRING), 1, 4) AS INTEGER) AS year
    FROM openings
    -- rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -
    WHERE position_key = -9062197578030825066
      AND rating_band IS NOT NULL
      AND month IS NOT NULL
),
latest AS (
    SELECT MAX(year) AS later_year FROM rows_after_e4
),
years AS (
    SELECT l.later_year, MAX(r.year) AS earlier_year
    FROM rows_after_e4 r CROSS JOIN latest l
    WHERE r.year < l.later_year
    GROUP BY l.later_year
),
by_move AS (
    SELECT r.rating_band, r.move_uci, y.earlier_year, y.later_year,
           SUM(CASE WHEN r.year = y.earlier_year THEN r.games ELSE 0 END) AS earlier_games,
           SUM(CASE WHEN r.year = y.later_year THEN r.games ELSE 0 END) AS later_games
    FROM rows_after_e4 r CROSS JOIN years y
    GROUP BY r.rating_band, r.move_uci, y.earlier_year, y.later_year
),
shares AS (
    SELECT rating_band, move_uci, earlier_year, later_year, earlier_games, later_games,
           100.0 * earlier_games / NULLIF(SUM(earlier_games) OVER (PARTITION BY rating_band), 0)
               AS earlier_share,
           100.0 * later_games / NULLIF(SUM(later_games) OVER (PARTITION BY rating_band), 0)
               AS later_share
    FROM by_move
)
SELECT rating_band, move_uci, earlier_year, later_year, earlier_games, later_games,
       earlier_share, later_share, later_share - earlier_share AS change_points
FROM shares
WHERE earlier_share IS NOT NULL AND later_share IS NOT NULL
  AND earlier_games + later_games > 0
ORDER BY rating_band, change_points DESC, move_uci
