//! `verify` of a whole project: its ledger (the file, or the database's ledger exported to a
//! private temporary file and checked by the same code, byte for byte) and the context
//! receipts beside it. The CLI's `verify` and the console's audit page both come here.

use std::io::Write as _;

use super::receipts_check::{self, ReceiptsReport};
use super::verify::{VerifyOptions, VerifyReport, verify};
use crate::config::Paths;
use crate::error::{Error, Result};
use crate::store::Stream;

/// Exports a database stream to a temporary file (deleted when dropped).
fn export(url: &crate::store::pg::DbUrl, stream: &Stream) -> Result<tempfile::NamedTempFile> {
    let io = |what: &str, e: std::io::Error| Error::Io {
        context: format!("{what} ({url})"),
        source: e,
    };
    let db = crate::store::pg::Db::open(url.clone()).map_err(|e| io("opening the database", e))?;
    let mut tmp = tempfile::NamedTempFile::new().map_err(|e| io("creating a temporary file", e))?;
    {
        let mut w = std::io::BufWriter::new(tmp.as_file_mut());
        db.export(stream, &mut w)
            .map_err(|e| io("exporting for verification", e))?;
        w.flush()
            .map_err(|e| io("writing the temporary export", e))?;
    }
    Ok(tmp)
}

/// Verifies the project's ledger and its receipts. `progress(done, total)` as [`verify`].
pub fn verify_project(
    paths: &Paths,
    opts: &VerifyOptions<'_>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<VerifyReport> {
    let mut report = match &paths.database {
        None => verify(&paths.ledger, opts, progress)?,
        Some(url) => {
            let tmp = export(url, &Stream::Ledger)?;
            let mut r = verify(tmp.path(), opts, progress)?;
            r.file = format!("{url} (ledger)");
            r
        }
    };
    report.receipts = receipts(paths, opts.receipts_head)?;
    Ok(report)
}

/// The receipts' check, when the project has any (or a receipts head was recorded).
fn receipts(paths: &Paths, head: Option<&str>) -> Result<Option<ReceiptsReport>> {
    let r = match &paths.database {
        None => receipts_check::check(&paths.receipts(), head)?,
        Some(url) => {
            let tmp = export(url, &Stream::Receipts)?;
            let mut r = receipts_check::check(tmp.path(), head)?;
            r.file = format!("{url} (receipts)");
            r
        }
    };
    Ok((r.lines > 0 || head.is_some()).then_some(r))
}
