//! Query results out: an aligned table for people, CSV, JSON and Parquet for
//! programs. Only the table is cut (at `--limit`); the others are whole.

use std::io::Write;

use polars::prelude::*;
use serde_json::Value;

/// Longest cell of the table format, in characters; longer ones end in `…`.
pub(crate) const MAX_CELL_CHARS: usize = 60;

/// `frame` as an aligned text table: a header, a rule, at most `limit` rows
/// (numbers right-aligned, nulls as `null`) and a footer with the row count.
pub(crate) fn render_table(frame: &DataFrame, limit: usize) -> String {
    let shown = frame.height().min(limit);
    let columns = frame.columns();
    let cells: Vec<Vec<String>> = columns
        .iter()
        .map(|column| {
            (0..shown)
                .map(|row| truncate(&display(&column.get(row).unwrap_or(AnyValue::Null))))
                .collect()
        })
        .collect();
    let headers: Vec<String> = columns.iter().map(|c| truncate(c.name())).collect();
    let widths: Vec<usize> = headers
        .iter()
        .zip(&cells)
        .map(|(header, column)| {
            column
                .iter()
                .map(|cell| cell.chars().count())
                .fold(header.chars().count(), usize::max)
        })
        .collect();
    let right: Vec<bool> = columns
        .iter()
        .map(|c| c.dtype().is_primitive_numeric())
        .collect();
    let mut out = String::new();
    out += &format_line(headers.iter(), &widths, &right);
    let rules: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
    out += &format_line(rules.iter(), &widths, &right);
    for row in 0..shown {
        out += &format_line(
            cells.iter().filter_map(|column| column.get(row)),
            &widths,
            &right,
        );
    }
    out += &footer(frame.height(), shown, limit);
    out
}

fn format_line<'a>(
    cells: impl Iterator<Item = &'a String>,
    widths: &[usize],
    right: &[bool],
) -> String {
    let parts: Vec<String> = cells
        .zip(widths.iter().zip(right))
        .map(|(cell, (&width, &right))| pad(cell, width, right))
        .collect();
    parts.join("  ").trim_end().to_owned() + "\n"
}

fn footer(rows: usize, shown: usize, limit: usize) -> String {
    let plural = if rows == 1 { "row" } else { "rows" };
    if shown < rows {
        format!("{rows} {plural} ({shown} shown; --limit {limit})\n")
    } else {
        format!("{rows} {plural}\n")
    }
}

fn pad(cell: &str, width: usize, right: bool) -> String {
    let fill = " ".repeat(width.saturating_sub(cell.chars().count()));
    if right {
        fill + cell
    } else {
        cell.to_owned() + &fill
    }
}

fn truncate(text: &str) -> String {
    let text = text.replace(['\n', '\r', '\t'], " ");
    if text.chars().count() <= MAX_CELL_CHARS {
        return text;
    }
    let mut cut: String = text.chars().take(MAX_CELL_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// A cell for people: strings as they are, floats with at most six
/// decimals, nested values as compact JSON.
fn display(value: &AnyValue) -> String {
    match value {
        AnyValue::Null => "null".to_owned(),
        AnyValue::String(s) => (*s).to_owned(),
        AnyValue::StringOwned(s) => s.to_string(),
        AnyValue::Float32(f) => display_float(f64::from(*f)),
        AnyValue::Float64(f) => display_float(*f),
        other => match to_json(other) {
            Value::String(s) => s,
            json => json.to_string(),
        },
    }
}

fn display_float(value: f64) -> String {
    if !value.is_finite() {
        return value.to_string();
    }
    let text = format!("{value:.6}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_owned()
    } else {
        text.to_owned()
    }
}

/// A value as JSON: integers exactly, non-finite floats as null, lists as
/// arrays, structs as objects; anything else as its text.
pub(crate) fn to_json(value: &AnyValue) -> Value {
    match value {
        AnyValue::Null => Value::Null,
        AnyValue::Boolean(b) => Value::Bool(*b),
        AnyValue::String(s) => Value::String((*s).to_owned()),
        AnyValue::StringOwned(s) => Value::String(s.to_string()),
        AnyValue::UInt8(n) => Value::from(*n),
        AnyValue::UInt16(n) => Value::from(*n),
        AnyValue::UInt32(n) => Value::from(*n),
        AnyValue::UInt64(n) => Value::from(*n),
        AnyValue::Int8(n) => Value::from(*n),
        AnyValue::Int16(n) => Value::from(*n),
        AnyValue::Int32(n) => Value::from(*n),
        AnyValue::Int64(n) => Value::from(*n),
        AnyValue::Float32(f) => float_json(f64::from(*f)),
        AnyValue::Float64(f) => float_json(*f),
        AnyValue::List(series) => Value::Array(series.iter().map(|v| to_json(&v)).collect()),
        AnyValue::Struct(_, _, fields) => Value::Object(
            fields
                .iter()
                .zip(value._iter_struct_av())
                .map(|(field, v)| (field.name().to_string(), to_json(&v)))
                .collect(),
        ),
        AnyValue::StructOwned(payload) => Value::Object(
            payload
                .1
                .iter()
                .zip(&payload.0)
                .map(|(field, v)| (field.name().to_string(), to_json(v)))
                .collect(),
        ),
        other => Value::String(other.to_string()),
    }
}

fn float_json(value: f64) -> Value {
    serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number)
}

/// The whole frame as one JSON array of objects, keys in column order.
pub(crate) fn write_json(frame: &DataFrame, out: &mut dyn Write) -> std::io::Result<()> {
    let columns = frame.columns();
    out.write_all(b"[")?;
    for row in 0..frame.height() {
        if row > 0 {
            out.write_all(b",")?;
        }
        // Keys in column order (a serde_json map would sort them).
        out.write_all(b"\n{")?;
        for (index, column) in columns.iter().enumerate() {
            if index > 0 {
                out.write_all(b",")?;
            }
            let value = column.get(row).unwrap_or(AnyValue::Null);
            serde_json::to_writer(&mut *out, column.name().as_str())?;
            out.write_all(b":")?;
            serde_json::to_writer(&mut *out, &to_json(&value))?;
        }
        out.write_all(b"}")?;
    }
    out.write_all(b"\n]\n")
}

/// The whole frame as CSV (RFC 4180): a header, empty fields for nulls,
/// quotes where needed, nested values as JSON text.
pub(crate) fn write_csv(frame: &DataFrame, out: &mut dyn Write) -> std::io::Result<()> {
    let columns = frame.columns();
    let header: Vec<String> = columns.iter().map(|c| csv_field(c.name())).collect();
    writeln!(out, "{}", header.join(","))?;
    for row in 0..frame.height() {
        let fields: Vec<String> = columns
            .iter()
            .map(|c| match c.get(row).unwrap_or(AnyValue::Null) {
                AnyValue::Null => String::new(),
                AnyValue::Float32(f) => f.to_string(),
                AnyValue::Float64(f) => f.to_string(),
                value => csv_field(&match to_json(&value) {
                    Value::String(s) => s,
                    json => json.to_string(),
                }),
            })
            .collect();
        writeln!(out, "{}", fields.join(","))?;
    }
    Ok(())
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// The whole frame as one Parquet file (zstd, like the tables) to a stream.
pub(crate) fn write_parquet(frame: &mut DataFrame, out: &mut dyn Write) -> PolarsResult<()> {
    ParquetWriter::new(out)
        .with_compression(ParquetCompression::Zstd(None))
        .finish(frame)
        .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> DataFrame {
        df!(
            "name" => [Some("a,b"), None, Some("x".repeat(70).as_str())],
            "games" => [1u64, 22, 333],
            "score" => [Some(0.5f64), None, Some(1.0 / 3.0)],
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn table_aligns_and_truncates() {
        let table = render_table(&sample(), 50);
        let expected = format!(
            "name{}  games     score\n{}  -----  --------\na,b{}      1       0.5\nnull{}     22      null\n{}…    333  0.333333\n3 rows\n",
            " ".repeat(56),
            "-".repeat(60),
            " ".repeat(57),
            " ".repeat(56),
            "x".repeat(59)
        );
        assert_eq!(table, expected);
    }

    #[test]
    fn table_says_when_rows_are_cut() {
        let table = render_table(&sample(), 1);
        assert!(table.ends_with("3 rows (1 shown; --limit 1)\n"), "{table}");
        assert_eq!(table.lines().count(), 4);
    }

    #[test]
    fn csv_and_json_keep_every_value() {
        let mut csv = Vec::new();
        write_csv(&sample(), &mut csv).unwrap_or_else(|e| panic!("{e}"));
        let csv = String::from_utf8_lossy(&csv).into_owned();
        assert!(
            csv.starts_with("name,games,score\n\"a,b\",1,0.5\n,22,\n"),
            "{csv}"
        );
        let mut json = Vec::new();
        write_json(&sample(), &mut json).unwrap_or_else(|e| panic!("{e}"));
        let parsed: Value = serde_json::from_slice(&json).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(parsed[0]["name"], "a,b");
        assert_eq!(parsed[1]["name"], Value::Null);
        assert_eq!(parsed[2]["games"], 333);
        assert_eq!(parsed[1]["score"], Value::Null);
    }

    #[test]
    fn floats_for_people() {
        assert_eq!(display_float(2.0), "2");
        assert_eq!(display_float(-0.0000001), "0");
        assert_eq!(display_float(12.5), "12.5");
    }
}
