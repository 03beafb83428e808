-- Which are the longest games? The ten games with the most plies, with
-- their players, event, result and end state.
-- Tables: games
SELECT game_id, plies, white, black, event, date, declared_result, end_state
FROM games
ORDER BY plies DESC, game_id
LIMIT 10
