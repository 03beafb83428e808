-- What do players of each strength answer to 1.e4? The three most played
-- replies in every rating band (of the two players' average rating; the
-- bands are in docs/tables.md), each with its share of the band's games and
-- black's score; ties are ranked by move. Games without both ratings have
-- no band and are left out.
-- Tables: openings
WITH replies AS (
    SELECT rating_band, move_uci, SUM(games) AS games,
           SUM(black_wins) AS black_wins, SUM(draws) AS draws,
           SUM(white_wins) + SUM(draws) + SUM(black_wins) AS finished
    FROM openings
    -- After 1.e4, by its key (`pgnlake key FEN`): rows of one game carry
    -- no EPD and no SAN, so the moves are in UCI.
    -- rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -
    WHERE position_key = -9062197578030825066
      AND rating_band IS NOT NULL
    GROUP BY rating_band, move_uci
),
ranked AS (
    SELECT rating_band, move_uci, games, black_wins, draws, finished,
           SUM(games) OVER (PARTITION BY rating_band) AS band_games,
           -- One sort direction in OVER: polars takes no mixed ASC/DESC.
           ROW_NUMBER() OVER (PARTITION BY rating_band ORDER BY -games, move_uci) AS rank
    FROM replies
)
SELECT rating_band, rank, move_uci, games,
       100.0 * games / band_games AS share_percent,
       (black_wins + 0.5 * draws) / CAST(NULLIF(finished, 0) AS DOUBLE) AS black_score
FROM ranked
WHERE rank <= 3
ORDER BY rating_band, rank
