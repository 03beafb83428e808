-- How often does a player lose on time in a won position? Games lost on
-- time (`Termination "Time forfeit"`) with evaluations, by the side whose
-- clock ran out, and how many of them that side was two pawns or more
-- ahead (or had a mate) at the last evaluation.
-- Tables: moves, games
WITH evaluated AS (
    SELECT game_id, ply,
           CASE WHEN eval_mate > 0 THEN 1000
                WHEN eval_mate IS NOT NULL THEN -1000
                ELSE eval_cp END AS score
    FROM moves
    WHERE eval_cp IS NOT NULL OR eval_mate IS NOT NULL
),
last_ply AS (
    SELECT game_id, MAX(ply) AS ply
    FROM evaluated
    GROUP BY game_id
),
last_score AS (
    SELECT evaluated.game_id, evaluated.score
    FROM evaluated
    JOIN last_ply ON evaluated.game_id = last_ply.game_id AND evaluated.ply = last_ply.ply
),
flags AS (
    SELECT CASE WHEN g.declared_result = '1-0' THEN 'black' ELSE 'white' END AS flagged,
           CASE WHEN g.declared_result = '1-0' THEN -last_score.score
                ELSE last_score.score END AS flagged_side_score
    FROM games g
    JOIN last_score ON g.game_id = last_score.game_id
    WHERE g.termination = 'Time forfeit' AND g.declared_result IN ('1-0', '0-1')
)
SELECT flagged, COUNT(*) AS games_lost_on_time,
       SUM(CASE WHEN flagged_side_score >= 200 THEN 1 ELSE 0 END) AS while_winning,
       SUM(CASE WHEN flagged_side_score >= 200 THEN 1 ELSE 0 END) / CAST(COUNT(*) AS DOUBLE)
           AS share_while_winning
FROM flags
GROUP BY flagged
ORDER BY flagged
