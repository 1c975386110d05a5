//! Typed errors of the core. Every variant carries a message written for the caller that
//! made the mistake: what was wrong, the limit or rule it broke, and how to fix it.
//!
//! The MCP edge turns every [`Error`] into a tool error (`isError: true`) with this text;
//! the CLI prints it on stderr and exits with code 2.

use std::path::Path;

/// Result type of the core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong, in words a caller can act on.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An argument is missing, malformed or over a limit. Nothing was written.
    #[error("invalid `{field}`: {problem}. Fix: {fix}")]
    Invalid {
        /// The argument's name as the caller spelled it (`summary`, `tags[2]`, …).
        field: String,
        /// What is wrong with the value.
        problem: String,
        /// How to make the call succeed.
        fix: String,
    },
    /// Something named by the caller does not exist.
    #[error("{0}")]
    NotFound(String),
    /// The call is well-formed but conflicts with what is stored (e.g. superseding an entry
    /// that was already superseded). Nothing was written.
    #[error("{0}")]
    Conflict(String),
    /// The call was refused by policy (a secret in the text, a path outside the root).
    #[error("{0}")]
    Refused(String),
    /// The operating system failed us; the message names the file.
    #[error("{context}: {source}")]
    Io {
        /// What we were doing, naming the path.
        context: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// A bad argument: `field`, what is wrong, how to fix it.
    pub fn invalid(
        field: impl Into<String>,
        problem: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Error::Invalid {
            field: field.into(),
            problem: problem.into(),
            fix: fix.into(),
        }
    }

    /// An I/O failure while doing `what` on `path`.
    pub fn io(what: &str, path: &Path, source: std::io::Error) -> Self {
        Error::Io {
            context: format!("{what} {}", path.display()),
            source,
        }
    }
}

/// Runs `f`, work that comes *after* a call's commit point (the entry is written), so that
/// neither its error nor its panic can turn a stored write into a reported failure: the
/// answer is the error's text, for the caller's `warnings` (ARCHITECTURE.md § Invariants: a call that
/// reports failure wrote nothing). The log names `what` and never the entry's text.
pub fn after_commit<T>(
    what: &str,
    f: impl FnOnce() -> Result<T>,
) -> std::result::Result<T, String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => {
            tracing::warn!("{what}: not done after the write: {e}");
            Err(format!(
                "{what} could not be done (the write is stored): {e}"
            ))
        }
        Err(_) => {
            tracing::error!(
                "{what}: an internal error after the write (a bug; the write is stored)"
            );
            Err(format!(
                "{what} could not be done: an internal error (the write is stored; please report it)"
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn after_commit_turns_errors_and_panics_into_warnings() {
        assert_eq!(super::after_commit("x", || Ok(3)), Ok(3));
        let e = super::after_commit::<()>("related", || Err(super::Error::NotFound("gone".into())));
        assert!(e.unwrap_err().starts_with("related could not be done"));
        let p = super::after_commit::<()>("vectors", || panic!("boom"));
        assert!(p.unwrap_err().contains("internal error"));
    }
}
