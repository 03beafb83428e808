//! `pgnlake serve`: the explorer's HTTP server, until SIGINT or SIGTERM
//! (then exit 130, as every command a signal stops).

use crate::cli::ServeArgs;
use crate::cmd::ExitStatus;
use crate::error::Error;
use crate::serve::{ServeOptions, serve};

pub fn run(args: ServeArgs) -> Result<ExitStatus, Error> {
    let mut options = ServeOptions::new(args.data, args.listen);
    options.masters = args.masters;
    options.cors = args.cors;
    if let Some(threads) = args.threads {
        options.threads = usize::from(threads);
        options.readers = 4 * options.threads;
    }
    if let Some(readers) = args.readers {
        options.readers = usize::from(readers);
    }
    if let Some(connections) = args.max_connections {
        options.max_connections = usize::try_from(connections).unwrap_or(usize::MAX);
    }
    options.header_timeout = std::time::Duration::from_secs(u64::from(args.header_timeout));
    options.log_requests = !args.no_request_log;
    serve(&options)?;
    Ok(ExitStatus::Interrupted)
}
