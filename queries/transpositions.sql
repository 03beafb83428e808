-- Which positions are reached by the most different move orders? For each
-- position, the number of distinct (previous position, move) pairs that lead
-- into it within the opening window: each is at least one more move order.
-- A row of one game names no next position and no EPD: its game does (the
-- row one ply later that names the same game). The EPD is known when a row
-- of the position holds two games or more; `pgnlake explore --fen` takes it.
-- Tables: openings
WITH reached AS (
    -- Where the game a row names was at the row's ply: the row's position.
    SELECT DISTINCT game_id, ply, position_key FROM openings
),
followed AS (
    -- A move of a row of one game leads where its game was one ply later
    -- (none when the game left the opening window there). On a lake, join
    -- on `import` too: game ids are numbered per import.
    SELECT one_game.position_key, one_game.move_uci,
           MAX(reached.position_key) AS next_position_key
    FROM openings one_game
    JOIN reached ON reached.game_id = one_game.game_id AND reached.ply = one_game.ply + 1
    WHERE one_game.games = 1
    GROUP BY one_game.position_key, one_game.move_uci
),
named AS (
    -- One row per (position, move): the tree splits each by speed, rating
    -- band and month; a row of two games or more names the next position.
    SELECT position_key, move_uci, MAX(next_position_key) AS next_position_key,
           SUM(games) AS games, MIN(ply) AS ply
    FROM openings
    GROUP BY position_key, move_uci
),
edges AS (
    SELECT named.position_key, named.move_uci,
           COALESCE(named.next_position_key, followed.next_position_key) AS next_position_key,
           named.games, named.ply
    FROM named
    LEFT JOIN followed
      ON followed.position_key = named.position_key AND followed.move_uci = named.move_uci
),
entered AS (
    SELECT next_position_key AS position_key,
           COUNT(*) AS move_orders,
           SUM(games) AS games,
           MIN(ply) + 1 AS ply
    FROM edges
    WHERE next_position_key IS NOT NULL
    GROUP BY next_position_key
    HAVING COUNT(*) >= 2
),
positions AS (
    SELECT position_key, MAX(epd) AS epd FROM openings GROUP BY position_key
)
SELECT entered.ply, entered.position_key, positions.epd, entered.move_orders, entered.games
FROM entered
LEFT JOIN positions ON positions.position_key = entered.position_key
ORDER BY entered.move_orders DESC, entered.games DESC, entered.ply, entered.position_key
LIMIT 20
