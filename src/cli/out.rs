//! Writing command output: text or `--json` on stdout, exit codes, broken pipes.
//!
//! Exit codes (as ripgrep): 0 something found / done, 1 nothing found, 2 error.
//! A closed stdout (`| head`) is not an error: output stops and the exit code stands.

use std::io::Write;
use std::process::ExitCode;

use serde::Serialize;

/// How a command ended, before it becomes an exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Done; something was found or written.
    Ok,
    /// Ran fine but found nothing (exit 1).
    NothingFound,
    /// Ran and found violations (`verify`, `diff`): exit 1.
    Violations,
}

impl From<Outcome> for ExitCode {
    fn from(o: Outcome) -> ExitCode {
        match o {
            Outcome::Ok => ExitCode::SUCCESS,
            Outcome::NothingFound | Outcome::Violations => ExitCode::from(1),
        }
    }
}

/// Writes `text` and a newline to stdout, ignoring a closed pipe.
pub fn print(text: &str) {
    let mut out = std::io::stdout().lock();
    let r = out
        .write_all(text.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    if let Err(e) = r
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        tracing::error!("writing to stdout: {e}");
    }
}

/// Prints `value` as pretty JSON when `json`, else the text from `human`.
pub fn emit<T: Serialize>(json: bool, value: &T, human: impl FnOnce(&T) -> String) {
    if json {
        print(&serde_json::to_string_pretty(value).expect("results serialize"));
    } else {
        print(&crate::render::terminal_safe(&human(value)));
    }
}

/// Like [`emit`], for human text that is already terminal-safe and may carry our own
/// colour codes (`diff`).
pub fn emit_coloured<T: Serialize>(json: bool, value: &T, human: impl FnOnce(&T) -> String) {
    if json {
        print(&serde_json::to_string_pretty(value).expect("results serialize"));
    } else {
        print(&human(value));
    }
}

/// Writes a message for the person at the terminal on stderr (never stdout).
#[allow(clippy::print_stderr)]
pub fn note(text: &str) {
    eprintln!("{text}");
}

/// Rewrites the progress line on stderr (a terminal's; `done` ends it with a newline).
#[allow(clippy::print_stderr)]
pub fn progress(text: &str, done: bool) {
    if done {
        eprintln!();
    } else {
        eprint!("\r{text}  ");
    }
}

/// True if stdout is a terminal (colour, progress).
pub fn stdout_is_tty() -> bool {
    use std::io::IsTerminal;
    std::io::stdout().is_terminal()
}
