//! `pgnlake schema`: the tables' columns as the code declares them
//! (`sink::schema`), for people (`table`), for docs/tables.md (`markdown`)
//! and for programs such as the Spark job (`json`).

use serde_json::{Value, json};

use crate::cli::{SchemaArgs, SchemaFormat};
use crate::cmd::ExitStatus;
use crate::error::Error;
use crate::sink::schema::{self, Table};

pub fn run(args: SchemaArgs) -> Result<ExitStatus, Error> {
    let tables: Vec<&Table> = match &args.table {
        None => schema::all_tables().collect(),
        Some(name) => vec![schema::table(name).ok_or_else(|| {
            let names: Vec<&str> = schema::all_tables().map(|t| t.name).collect();
            Error::Usage(format!(
                "{name}: no such table (tables: {})",
                names.join(", ")
            ))
        })?],
    };
    let text = match args.format {
        SchemaFormat::Table => tables
            .iter()
            .map(|t| plain(t))
            .collect::<Vec<_>>()
            .join("\n"),
        SchemaFormat::Markdown => tables
            .iter()
            .map(|t| format!("## `{}`\n\n{}", t.file_name(), t.markdown()))
            .collect::<Vec<_>>()
            .join("\n"),
        SchemaFormat::Json => {
            let value = Value::Array(tables.iter().map(|t| as_json(t)).collect());
            format!("{value:#}\n")
        }
    };
    crate::cmd::print_stdout(&text)?;
    Ok(ExitStatus::Success)
}

/// A table as aligned text: name, type, null, merge.
fn plain(table: &Table) -> String {
    // A table without columns (none is) would need no width.
    let width = |f: fn(&schema::Column) -> usize| table.columns.iter().map(f).max().unwrap_or(0);
    let (name_width, type_width) = (width(|c| c.name.len()), width(|c| c.ty.as_str().len()));
    let mut out = format!("{} ({})\n", table.file_name(), table.description);
    for column in table.columns {
        let null = if column.nullable { "null" } else { "" };
        out.push_str(
            format!(
                "  {:name_width$}  {:type_width$}  {null:4}  {}\n",
                column.name,
                column.ty.as_str(),
                column.merge.as_str()
            )
            .trim_end(),
        );
        out.push('\n');
    }
    out
}

fn as_json(table: &Table) -> Value {
    let columns: Vec<Value> = table
        .columns
        .iter()
        .map(|c| {
            json!({
                "name": c.name,
                "type": c.ty.as_str(),
                "nullable": c.nullable,
                "merge": c.merge.as_str(),
                "meaning": c.meaning,
            })
        })
        .collect();
    json!({"name": table.name, "description": table.description, "columns": columns})
}
