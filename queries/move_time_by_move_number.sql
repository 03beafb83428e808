-- How long do players think at each stage of the game? Average seconds per
-- move by time class and move number (in steps of five moves, to move 60),
-- from the clocks in the move comments (`import --moves`).
-- Tables: moves, games
SELECT g.time_class,
       CAST(FLOOR((m.move_number - 1) / 5.0) AS INTEGER) * 5 + 1 AS from_move,
       COUNT(*) AS moves,
       SUM(m.move_time_ms) / CAST(COUNT(*) AS DOUBLE) / 1000.0 AS avg_seconds
FROM moves m
JOIN games g ON m.game_id = g.game_id
WHERE m.move_time_ms IS NOT NULL AND m.move_number <= 60
GROUP BY g.time_class, CAST(FLOOR((m.move_number - 1) / 5.0) AS INTEGER) * 5 + 1
ORDER BY g.time_class, from_move
