-- Do players blunder more when their clock runs low? Moves that lose two
-- pawns or more of evaluation (mates count as ten pawns), by the mover's
-- rating (steps of 400) and the time left on their clock after the move.
-- Needs evaluated games (`[%eval]`) imported with `--moves`.
-- Tables: moves, games
WITH scored AS (
    SELECT game_id, ply, color, clock_ms,
           CASE WHEN eval_mate > 0 THEN 1000
                WHEN eval_mate IS NOT NULL THEN -1000
                WHEN eval_cp > 1000 THEN 1000
                WHEN eval_cp < -1000 THEN -1000
                ELSE eval_cp END AS score
    FROM moves
    WHERE eval_cp IS NOT NULL OR eval_mate IS NOT NULL
),
before AS (
    SELECT game_id, ply + 1 AS next_ply, score AS score_before
    FROM scored
),
judged AS (
    SELECT scored.game_id, scored.color, scored.clock_ms,
           CASE WHEN scored.color = 'white' THEN before.score_before - scored.score
                ELSE scored.score - before.score_before END AS loss
    FROM scored
    JOIN before ON scored.game_id = before.game_id AND scored.ply = before.next_ply
    WHERE scored.clock_ms IS NOT NULL
),
rated AS (
    SELECT CAST(FLOOR(CASE WHEN judged.color = 'white' THEN g.white_elo ELSE g.black_elo END / 400.0)
                AS INTEGER) * 400 AS rating_from,
           CASE WHEN judged.clock_ms < 10000 THEN '1: under 10 s'
                WHEN judged.clock_ms < 30000 THEN '2: 10-30 s'
                WHEN judged.clock_ms < 60000 THEN '3: 30-60 s'
                WHEN judged.clock_ms < 180000 THEN '4: 1-3 min'
                ELSE '5: 3 min or more' END AS clock_left,
           CASE WHEN judged.loss >= 200 THEN 1 ELSE 0 END AS blunder
    FROM judged
    JOIN games g ON judged.game_id = g.game_id
    WHERE g.white_elo IS NOT NULL AND g.black_elo IS NOT NULL
)
SELECT rating_from, clock_left, COUNT(*) AS moves, SUM(blunder) AS blunders,
       SUM(blunder) / CAST(COUNT(*) AS DOUBLE) AS blunder_rate
FROM rated
GROUP BY rating_from, clock_left
ORDER BY rating_from, clock_left
