//! `pgnlake lake`: lists a lake's imports, or removes one.

use crate::cli::LakeArgs;
use crate::cmd::ExitStatus;
use crate::error::Error;
use crate::lake;

pub fn run(args: LakeArgs) -> Result<ExitStatus, Error> {
    if !lake::is_lake(&args.lake) {
        return Err(Error::Usage(format!(
            "{}: not a lake (no {}/ folder; import --into creates one)",
            args.lake.display(),
            lake::IMPORTS_DIR
        )));
    }
    if let Some(name) = &args.remove {
        lake::check_name(name).map_err(Error::Usage)?;
        if !lake::remove(&args.lake, name)? {
            return Err(Error::Usage(format!(
                "{}: no import named {name}",
                args.lake.display()
            )));
        }
        return Ok(ExitStatus::Success);
    }
    lake::recover(&args.lake)?;
    let partitions = lake::partitions(&args.lake)?;
    let mut out = String::from(
        "import\tinputs\tgames\taccepted\trejected\tbytes\tversion\topening_plies\topening_period\n",
    );
    for p in &partitions {
        let s = &p.summary;
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
            p.name,
            s.inputs.len(),
            s.games_read,
            s.accepted,
            s.rejected,
            lake::partition_bytes(&args.lake, &p.name),
            s.version,
            s.opening_tree.plies,
            lake::period_name(s.opening_tree.period),
        ));
    }
    crate::cmd::print_stdout(&out)?;
    Ok(ExitStatus::Success)
}
