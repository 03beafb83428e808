//! `pgnlake serve`: the explorer's HTTP server, until SIGINT or SIGTERM
//! (then exit 130, as every command a signal stops).

use crate::cli::ServeArgs;
use crate::cmd::ExitStatus;
use crate::error::Error;
use crate::serve::{ServeOptions, serve};

pub fn run(args: ServeArgs) -> Result<ExitStatus, Error> {
    let options = ServeOptions {
        data: args.data,
        masters: args.masters,
        listen: args.listen,
        cors: args.cors,
        quiet: false,
    };
    serve(&options)?;
    Ok(ExitStatus::Interrupted)
}
