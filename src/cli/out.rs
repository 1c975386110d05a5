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

/// Stdout, buffered with `capacity` bytes, for a command that streams what it writes (an
/// export, an overlaps listing): the caller writes and flushes, and decides what a
/// closed pipe means.
pub fn writer(capacity: usize) -> std::io::BufWriter<std::io::StdoutLock<'static>> {
    std::io::BufWriter::with_capacity(capacity, std::io::stdout().lock())
}

/// Writes `value` as pretty JSON and a newline to stdout as it is serialized (a large
/// result — `overlaps --json` at 100k entries is ~160 MB — is never held whole in
/// memory), ignoring a closed pipe. The bytes are those of `to_string_pretty`.
pub fn print_json<T: Serialize>(value: &T) {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let r = serde_json::to_writer_pretty(&mut out, value)
        .map_err(std::io::Error::from)
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
        print_json(value);
    } else {
        print(&crate::render::terminal_safe(&human(value)));
    }
}

/// Like [`emit`], for human text that is already terminal-safe and may carry our own
/// colour codes (`diff`).
pub fn emit_coloured<T: Serialize>(json: bool, value: &T, human: impl FnOnce(&T) -> String) {
    if json {
        print_json(value);
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

/// The command line's progress sink ([`crate::progress`]): on a terminal, a line that
/// rewrites itself once a task has run ~2 s, ended when it ends. `WARROOM_PROGRESS=always`
/// prints every step as a line of its own whatever stderr is (for tests and logs).
pub fn install_progress() {
    use std::io::IsTerminal;
    use std::sync::Mutex;
    use std::time::{Duration, Instant};
    let always = std::env::var("WARROOM_PROGRESS").is_ok_and(|v| v == "always");
    if !always && !std::io::stderr().is_terminal() {
        return;
    }
    // When the running task began, and whether its line is on screen.
    let state: Mutex<Option<(Instant, bool)>> = Mutex::new(None);
    let mb = |b: u64| b as f64 / 1e6;
    crate::progress::set_sink(move |task, step| {
        use crate::progress::Step;
        let mut st = state.lock().unwrap_or_else(|p| p.into_inner());
        match step {
            Step::Begin { total } => {
                *st = Some((Instant::now(), false));
                if always {
                    note(&format!("{task}: 0 of {:.1} MB", mb(total)));
                }
            }
            Step::At { done, total } => {
                let line = format!(
                    "{task}: {:.1} of {:.1} MB ({:.0} %)",
                    mb(done),
                    mb(total),
                    done as f64 * 100.0 / total.max(1) as f64
                );
                if always {
                    note(&line);
                } else if let Some((started, shown)) = st.as_mut()
                    && started.elapsed() >= Duration::from_secs(2)
                {
                    *shown = true;
                    progress(&line, false);
                }
            }
            Step::End { done } => {
                if let Some((started, shown)) = st.take() {
                    if always {
                        note(&format!(
                            "{task}: {:.1} MB in {:.1} s",
                            mb(done),
                            started.elapsed().as_secs_f64()
                        ));
                    } else if shown {
                        progress("", true);
                    }
                }
            }
        }
    });
}

/// An error's message with its causes, each said once: a cause whose text the message
/// already holds (an I/O error's context repeats its source) is not said again. Screened
/// as every error that may carry a client's text: secrets redacted, long words clipped,
/// at most [`crate::mcp::echo::MAX_MESSAGE`] bytes.
pub fn chain(e: &anyhow::Error) -> String {
    let mut said = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !said.contains(&c) {
            said.push_str(": ");
            said.push_str(&c);
        }
    }
    crate::mcp::echo::message(&said)
}
