-- How declared results compare with what the board proves.
SELECT result_check, end_state, count(*) AS games
FROM 'games.parquet'
GROUP BY result_check, end_state
ORDER BY games DESC;
