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
