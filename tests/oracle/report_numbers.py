"""Oracle for the report: what each chart plots, computed by DuckDB from the
import's Parquet tables, one line `chart key… value` a number, sorted, for
tests/it/report.rs to compare with what pgnlake's report reads.

Usage: report_numbers.py OUT_DIR
"""
import sys

import duckdb

out = sys.argv[1]
standard = "variant_name IN ('standard', 'chess960')"
queries = {
    # Games per year and time class (every variant: the chart counts games).
    "year": f"""SELECT year, coalesce(time_class, 'unknown'), sum(games)
                FROM '{out}/results.parquet' WHERE year IS NOT NULL GROUP BY ALL""",
    # Drawn games by time class and draw reason, standard rules.
    "draws": f"""SELECT coalesce(time_class, 'unknown'), draw_reason, sum(draws)
                 FROM '{out}/results.parquet'
                 WHERE {standard} AND draw_reason IS NOT NULL AND draws > 0 GROUP BY ALL""",
    # Games and white's wins per rating-difference bucket, standard rules.
    "rating": f"""SELECT rating_diff_bucket, sum(games), sum(white_wins)
                  FROM '{out}/results.parquet'
                  WHERE {standard} AND rating_diff_bucket IS NOT NULL GROUP BY ALL""",
    # Games and white's wins per material difference at plies 20, 40, 60.
    "material": f"""SELECT checkpoint_ply, material_diff, sum(games), sum(white_wins)
                    FROM '{out}/material.parquet'
                    WHERE checkpoint_ply IN (20, 40, 60) GROUP BY ALL""",
}
lines = []
for chart, sql in queries.items():
    for row in duckdb.sql(sql).fetchall():
        lines.append(" ".join([chart] + [str(v) for v in row]))
print("\n".join(sorted(lines)))
