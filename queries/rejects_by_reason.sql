-- Rejected games by reason, with one example place for each.
-- Works in DuckDB: duckdb -c ".read queries/rejects_by_reason.sql" from the output folder.
SELECT reason,
       count(*) AS games,
       min(source || ':' || line) AS first_place
FROM 'rejects.parquet'
GROUP BY reason
ORDER BY games DESC;
