//! `verify` of a whole project: its ledger (the file, or the database's ledger exported to a
//! private temporary file and checked by the same code, byte for byte) and the context
//! receipts beside it. The CLI's `verify` and the console's audit page both come here.

use std::io::Write as _;

use super::verify::{VerifyOptions, VerifyReport};
use crate::config::Paths;
use crate::error::{Error, Result};
use crate::store::Stream;

/// Exports a database stream, but its first `skip` lines, to a temporary file (deleted
/// when dropped).
pub(super) fn export(
    url: &crate::store::pg::DbUrl,
    stream: &Stream,
    skip: u64,
) -> Result<tempfile::NamedTempFile> {
    let io = |what: &str, e: std::io::Error| Error::Io {
        context: format!("{what} ({url})"),
        source: e,
    };
    let db = crate::store::pg::Db::open(url.clone()).map_err(|e| io("opening the database", e))?;
    let mut tmp = tempfile::NamedTempFile::new().map_err(|e| io("creating a temporary file", e))?;
    {
        let mut w = std::io::BufWriter::new(tmp.as_file_mut());
        db.export(stream, skip, &mut w)
            .map_err(|e| io("exporting for verification", e))?;
        w.flush()
            .map_err(|e| io("writing the temporary export", e))?;
    }
    Ok(tmp)
}

/// Verifies the project's ledger and its receipts. `progress(done, total)` as
/// [`super::verify::verify`].
pub fn verify_project(
    paths: &Paths,
    opts: &VerifyOptions<'_>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<VerifyReport> {
    let v = super::resume::ProjectVerifier::full(paths, opts, progress)?;
    Ok(v.report(opts.head, opts.receipts_head))
}
