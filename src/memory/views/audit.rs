//! The auditor's page's verification: kept between views and continued over the lines
//! appended since ([`crate::audit::resume`]), with full passes in the background at a
//! bounded rate (`full_verify_seconds`), so the page after one new entry reads one entry
//! and a line changed inside the verified prefix is still found by the next full pass.
//!
//! Nothing here writes: the verification lives in this process's memory only.

use std::sync::atomic::Ordering;

use crate::audit::resume::{ProjectVerifier, Resumed};
use crate::audit::verify::{VerifyOptions, VerifyReport};
use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::memory::Memory;

/// The kept verification and when its parts ran.
pub(crate) struct Verified {
    v: ProjectVerifier,
    /// When the last full pass finished.
    full_at: Timestamp,
    /// Lines (ledger and receipts) read by continuing since that full pass.
    continued: u64,
}

/// What the audit page shows: the report and how it was arrived at.
#[derive(Debug, Clone)]
pub struct AuditView {
    /// The report, as a full `verify` of the files as they are would give it if the
    /// verified prefix is unchanged (which the last full pass proved as of `full_at`).
    pub report: VerifyReport,
    /// Now, when the report was brought up to date.
    pub at: Timestamp,
    /// When the last full pass finished.
    pub full_at: Timestamp,
    /// Lines checked by continuing since that full pass.
    pub continued: u64,
    /// Whether a full pass is running in the background.
    pub full_running: bool,
    /// Whether a full pass is due (the caller may start [`Memory::verify_full_pass`]).
    pub full_due: bool,
}

impl Memory {
    /// The options of this memory's verifications: its clock for `future-dated` and its
    /// settings for `allow_unchained`.
    fn verify_opts(&self) -> VerifyOptions<'static> {
        VerifyOptions {
            head: None,
            receipts_head: None,
            now: Some(self.now()),
            allow_unchained: self.settings().allow_unchained,
        }
    }

    /// The project's verification brought up to date: the kept one continued over the
    /// lines appended since, or a full pass when there is none yet or the end of the
    /// verified prefix changed. Callers at the same moment wait for one computation.
    pub fn audit_view(&self, head: Option<&str>) -> Result<AuditView> {
        check_head_arg(head)?;
        let mut slot = self
            .views
            .verified
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let resumed = match slot.as_mut() {
            Some(kept) => match kept.v.resume(self.paths(), Some(self.now())) {
                Ok(Resumed::Continued(n)) => {
                    kept.continued += n;
                    true
                }
                Ok(Resumed::PrefixChanged) => false,
                Err(e) => {
                    *slot = None;
                    return Err(e);
                }
            },
            None => false,
        };
        if !resumed {
            let v = ProjectVerifier::full(self.paths(), &self.verify_opts(), &mut |_, _| {})?;
            *slot = Some(Verified {
                v,
                full_at: self.now(),
                continued: 0,
            });
        }
        let kept = slot.as_ref().expect("set above");
        let now = self.now();
        let running = self.views.full_pass_running.load(Ordering::Acquire);
        Ok(AuditView {
            report: kept.v.report(head, None),
            at: now,
            full_at: kept.full_at,
            continued: kept.continued,
            full_running: running,
            full_due: !running
                && now.0.saturating_sub(kept.full_at.0)
                    >= i64::try_from(self.settings().full_verify_seconds).unwrap_or(i64::MAX),
        })
    }

    /// A full pass over the project, replacing the kept verification when it finishes
    /// (the pages continue from it). At most one runs at a time; returns false when one
    /// was already running. Takes the kept verification's lock only to swap it in, so
    /// pages go on being served meanwhile.
    pub fn verify_full_pass(&self) -> Result<bool> {
        if self
            .views
            .full_pass_running
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return Ok(false);
        }
        // Cleared however the pass ends, a panic included.
        struct Running<'a>(&'a std::sync::atomic::AtomicBool);
        impl Drop for Running<'_> {
            fn drop(&mut self) {
                self.0.store(false, Ordering::Release);
            }
        }
        let _running = Running(&self.views.full_pass_running);
        let r = ProjectVerifier::full(self.paths(), &self.verify_opts(), &mut |_, _| {});
        r.map(|v| {
            let mut slot = self
                .views
                .verified
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            *slot = Some(Verified {
                v,
                full_at: self.now(),
                continued: 0,
            });
            true
        })
    }

    /// The audit view's report and when it was brought up to date.
    pub fn verify_cached(&self, head: Option<&str>) -> Result<(VerifyReport, Timestamp)> {
        let v = self.audit_view(head)?;
        Ok((v.report, v.at))
    }
}

fn check_head_arg(head: Option<&str>) -> Result<()> {
    if let Some(h) = head
        && crate::chain::parse_hex(h).is_none()
    {
        return Err(Error::invalid(
            "head",
            format!("`{}` is not a head", crate::validate::printable(h)),
            "give the 32 hex digits `verify` printed as the head to record",
        ));
    }
    Ok(())
}
