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

/// How `verify --continue` went, beside its report.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Continuation {
    /// True if only the lines after the kept verification were read.
    pub continued: bool,
    /// Lines (ledger and receipts) read by this run.
    pub lines_read: u64,
    /// Lines continued over since the last full pass, this run's included.
    pub since_full: u64,
    /// When the last full pass ran (RFC 3339, the verifier's clock).
    pub full_at: String,
    /// Why this run was a full pass, when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_because: Option<String>,
    /// Why the verification could not be kept for the next run, if it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_kept: Option<String>,
}

/// [`verify_project`] continued from the verification kept in the snapshot directory of
/// `place` by the last `verify --continue` (a full pass when there is none, it is not
/// authentic, or the verified prefix's end changed), and kept again for the next run.
/// `now` is the verifier's clock.
pub fn verify_project_continued(
    paths: &Paths,
    opts: &VerifyOptions<'_>,
    place: &crate::snapshot::SnapshotPlace,
    now: crate::clock::Timestamp,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(VerifyReport, Continuation)> {
    use super::kept::{Kept, KeptPlace};
    use super::resume::Resumed;
    let label = paths.ledger_label();
    let at = KeptPlace::new(place, &label);
    let (kept, full_because) = match at.load(&label, opts.allow_unchained) {
        Ok(mut k) => {
            let before = k.verifier.lines();
            match k.verifier.resume(paths, Some(now)) {
                Ok(Resumed::Continued(n)) => {
                    k.continued += n;
                    (Some((k, n)), None)
                }
                Ok(Resumed::PrefixChanged) => (
                    None,
                    Some(format!(
                        "the end of the verified prefix ({} lines) changed: a rollback, a \
                         truncation or a rewritten tail",
                        before.0
                    )),
                ),
                Err(e) => (None, Some(format!("continuing failed: {e}"))),
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            (None, Some("no verification was kept yet".to_string()))
        }
        Err(e) => (
            None,
            Some(format!("the kept verification was not used: {e}")),
        ),
    };
    let (kept, read) = match kept {
        Some(k) => k,
        None => {
            let v = super::resume::ProjectVerifier::full(paths, opts, progress)?;
            let (a, b) = v.lines();
            let k = Kept {
                label: label.clone(),
                allow_unchained: opts.allow_unchained,
                full_at: now,
                continued: 0,
                verifier: v,
            };
            (k, a + b)
        }
    };
    let report = kept.verifier.report(opts.head, opts.receipts_head);
    // Nothing new read: the kept file already says all this.
    let unchanged = full_because.is_none() && read == 0;
    let saved = if unchanged { Ok(()) } else { at.save(&kept) };
    let not_kept = saved.err().map(|e| {
        format!(
            "writing {}: {e} (the next `verify --continue` will be a full pass)",
            at.file.display()
        )
    });
    Ok((
        report,
        Continuation {
            continued: full_because.is_none(),
            lines_read: read,
            since_full: kept.continued,
            full_at: kept.full_at.to_rfc3339(),
            full_because,
            not_kept,
        },
    ))
}
