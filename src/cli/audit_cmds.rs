//! `history`, `log`, `diff`, `verify`: the auditor's commands.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::ledger_cmds::FilterFlags;
use super::out::{Outcome, emit, emit_coloured, note, stdout_is_tty};
use super::{Ctx, Global};
use crate::api::audit::{DiffArgs, HistoryArgs};
use crate::audit::{diff, git, verify};
use crate::render_audit;

/// Every entry of a ref or room, superseded ones marked, oldest first.
#[derive(Debug, Args)]
pub struct HistoryCmd {
    /// Epic/task ref.
    #[arg(long = "ref", value_name = "REF")]
    ref_: Option<String>,
    /// Room (glob allowed).
    #[arg(long, value_name = "ROOM")]
    room: Option<String>,
    /// Only the newest N (1–200, default 50).
    #[arg(long = "last", value_name = "N")]
    last_n: Option<u32>,
}

impl HistoryCmd {
    pub(super) fn run(self, ctx: &Ctx) -> anyhow::Result<Outcome> {
        let out = ctx.memory.history(
            HistoryArgs {
                ref_: self.ref_,
                room_id: self.room,
                last_n: self.last_n,
            },
            &ctx.who,
        )?;
        emit(ctx.json, &out, render_audit::history);
        Ok(if out.entries.is_empty() {
            Outcome::NothingFound
        } else {
            Outcome::Ok
        })
    }
}

/// Filtered history, newest first; `--include-superseded` for the full record.
#[derive(Debug, Args)]
pub struct LogCmd {
    #[command(flatten)]
    filter: FilterFlags,
    /// Include superseded entries (marked).
    #[arg(long)]
    include_superseded: bool,
    /// Only the newest N entries (default: all).
    #[arg(long = "last", value_name = "N")]
    last: Option<usize>,
}

impl LogCmd {
    pub(super) fn run(self, ctx: &Ctx) -> anyhow::Result<Outcome> {
        // Auditors see every room: no own-room default here.
        let mut args = self.filter.to_args();
        if args.room_id.is_none() && args.exclude_room.is_none() {
            args.room_id = Some("*".into());
        }
        let (mut filter, _) = ctx.memory.build_filter(&args, &ctx.who)?;
        filter.include_superseded = self.include_superseded;
        let out = ctx.memory.log(&filter, self.last.unwrap_or(usize::MAX))?;
        emit(ctx.json, &out, render_audit::history);
        Ok(if out.entries.is_empty() {
            Outcome::NothingFound
        } else {
            Outcome::Ok
        })
    }
}

/// When to colour output.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Colour {
    /// On a terminal, unless NO_COLOR is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Compare two versions of a ledger: two files, two git revisions, or two times.
#[derive(Debug, Args)]
pub struct DiffCmd {
    /// The earlier ledger file (with B).
    #[arg(value_name = "A", requires = "b", conflicts_with_all = ["git", "since"])]
    a: Option<PathBuf>,
    /// The later ledger file.
    #[arg(value_name = "B")]
    b: Option<PathBuf>,
    /// Two git revisions of the ledger file: REV1..REV2 (REV1.. = against the working tree).
    #[arg(long, value_name = "REV1..REV2", conflicts_with = "since")]
    git: Option<String>,
    /// The ledger as of this time (RFC 3339, date, or age like 24h)…
    #[arg(long, value_name = "TIME")]
    since: Option<String>,
    /// …compared with the ledger as of this time (default: now).
    #[arg(long, value_name = "TIME", requires = "since")]
    until: Option<String>,
    /// Colour the output.
    #[arg(long, value_enum, default_value_t = Colour::Auto)]
    color: Colour,
}

/// The receipts check of the project's receipts stream, when it has any line: the file
/// beside the ledger, or the database's export of it, checked by the same code.
/// Largest ledger file `diff A B` reads (a 10M-entry ledger is ~5 GB).
const DIFF_FILE_LIMIT: u64 = 16 << 30;

impl DiffCmd {
    pub(super) fn run(self, g: &Global) -> anyhow::Result<Outcome> {
        let report = match (&self.a, &self.b) {
            (Some(a), Some(b)) => {
                // Regular files only (a FIFO or device is refused, never waited on), read
                // with a limit well above a 10M-entry ledger.
                let read = |p: &PathBuf| crate::fsx::read_named(p, "diff", DIFF_FILE_LIMIT);
                diff::diff(
                    &a.display().to_string(),
                    &read(a)?,
                    &b.display().to_string(),
                    &read(b)?,
                )
            }
            _ => {
                let ctx = g.open()?;
                let args = match &self.git {
                    Some(range) => {
                        let (from, to) = git::parse_range(range)?;
                        DiffArgs {
                            git_from: Some(from),
                            git_to: to,
                            ..DiffArgs::default()
                        }
                    }
                    None => DiffArgs {
                        since: self.since.clone(),
                        until: self.until.clone(),
                        ..DiffArgs::default()
                    },
                };
                ctx.memory.diff_report(&args)?
            }
        };
        let colour = match self.color {
            Colour::Always => true,
            Colour::Never => false,
            Colour::Auto => stdout_is_tty() && std::env::var_os("NO_COLOR").is_none(),
        };
        emit_coloured(g.json, &report, |r| render_audit::diff(r, colour));
        Ok(if report.append_only() {
            Outcome::Ok
        } else {
            Outcome::Violations
        })
    }
}

/// Check every line of a ledger file and its hash chain. Exit 0 clean, 1 violations, 2
/// could not run.
///
/// Prints the ledger's head (the link of its last line). Record it (in a commit message,
/// an audit log) and pass it later as `--head` to prove that no line up to it was removed,
/// changed or inserted since.
#[derive(Debug, Args)]
pub struct VerifyCmd {
    /// The ledger file (default: the project's ledger).
    file: Option<PathBuf>,
    /// A head recorded earlier (32 hex digits): it must still be in the file, with every
    /// chained line before it in its history.
    #[arg(long, value_name = "HASH")]
    head: Option<String>,
    /// A receipts head recorded earlier (the `receipts … head` line `verify` prints): the
    /// receipts stream must still hold it, with every receipt before it in its history —
    /// so a truncated, rewritten or re-chained receipts file is a violation.
    #[arg(long, value_name = "HASH")]
    receipts_head: Option<String>,
    /// Accept lines without a `prev` link after chained ones (also `allow_unchained: true`
    /// in .agents/warroom.yaml); by default such a line is a violation.
    #[arg(long)]
    allow_unchained: bool,
    /// Continue the verification the last `verify --continue` kept (in the snapshot
    /// directory, authenticated): read only the lines appended since, after checking that
    /// the verified prefix still ends as it did; a full pass when none was kept or it
    /// cannot be used (the reason is said). A line changed inside the verified prefix
    /// without changing its length is found only by a full pass: run `verify` without
    /// this flag now and then (the output says when the last full pass ran).
    #[arg(long = "continue", conflicts_with = "file")]
    continue_: bool,
}

/// `verify --continue --json`: the report and how it was reached.
#[derive(serde::Serialize)]
struct ContinuedOut {
    #[serde(flatten)]
    report: verify::VerifyReport,
    continuation: crate::audit::whole::Continuation,
}

fn continued_text(o: &ContinuedOut) -> String {
    let c = &o.continuation;
    let how = match &c.full_because {
        None => format!(
            "continued: new lines read: {}; since the last full pass at {}: {} (`verify` \
             without --continue reads the whole ledger)",
            c.lines_read, c.full_at, c.since_full
        ),
        Some(why) => format!("a full pass ({why}); kept for the next `verify --continue`"),
    };
    let kept = c
        .not_kept
        .as_ref()
        .map(|w| format!("\nnot kept: {w}"))
        .unwrap_or_default();
    format!("{}\n{how}{kept}", render_audit::verify(&o.report))
}

impl VerifyCmd {
    pub(super) fn run(self, g: &Global) -> anyhow::Result<Outcome> {
        let mut progress = |done: u64, total: u64| {
            note(&format!(
                "verify: {} of {} MiB ({}%)",
                done >> 20,
                total >> 20,
                done * 100 / total.max(1)
            ));
        };
        let (paths, settings, _) = g.layout()?;
        let opts = verify::VerifyOptions {
            head: self.head.as_deref(),
            receipts_head: self.receipts_head.as_deref(),
            now: Some(g.read_now()?),
            allow_unchained: settings.allow_unchained || self.allow_unchained,
        };
        if self.continue_ {
            let place = settings.snapshot.as_ref().ok_or_else(|| {
                anyhow::anyhow!(
                    "`verify --continue` keeps its verification in the snapshot directory, \
                     which is off (--snapshot-dir off / WARROOM_SNAPSHOT_DIR=off). Fix: give \
                     it a directory, or run `verify` without --continue"
                )
            })?;
            let now = g.read_now()?;
            let (report, continuation) = crate::audit::whole::verify_project_continued(
                &paths,
                &opts,
                place,
                now,
                &mut progress,
            )?;
            let ok = report.ok();
            emit(
                g.json,
                &ContinuedOut {
                    report,
                    continuation,
                },
                continued_text,
            );
            return Ok(if ok { Outcome::Ok } else { Outcome::Violations });
        }
        let report = match &self.file {
            Some(_) if self.receipts_head.is_some() => anyhow::bail!(
                "--receipts-head checks the project's receipts, not a ledger file named on \
                 the command line. Fix: leave FILE out (or use --root to name the project)"
            ),
            Some(p) => verify::verify(p, &opts, &mut progress)?,
            None => crate::audit::whole::verify_project(&paths, &opts, &mut progress)?,
        };
        emit(g.json, &report, render_audit::verify);
        Ok(if report.ok() {
            Outcome::Ok
        } else {
            Outcome::Violations
        })
    }
}

/// Open overlaps: live entries of different rooms about the same subject, neither
/// superseding the other. Exit 1 while any is open (for CI), 0 when none.
#[derive(Debug, Args)]
pub struct OverlapsCmd {
    /// Only the overlaps this room is part of.
    #[arg(long, value_name = "ROOM")]
    room: Option<String>,
}

/// `overlaps --json`: the pairs serialized as they are built.
#[derive(serde::Serialize)]
struct OverlapsOut<'a> {
    open: usize,
    examined: usize,
    room: Option<&'a str>,
    overlaps: Streamed<'a>,
}

/// A sequence serialized from an iterator, once.
struct Streamed<'a>(std::cell::RefCell<&'a mut dyn Iterator<Item = crate::memory::Overlap>>);

impl serde::Serialize for Streamed<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(&mut *self.0.borrow_mut())
    }
}

impl OverlapsCmd {
    pub(super) fn run(self, ctx: &Ctx) -> anyhow::Result<Outcome> {
        // A progress line on a terminal when the pass takes more than a moment.
        use std::io::IsTerminal;
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        let done = AtomicUsize::new(0);
        let finished = AtomicBool::new(false);
        let total = if std::io::stderr().is_terminal() {
            Some(ctx.memory.comparable_live()?)
        } else {
            None
        };
        let found = std::thread::scope(|sc| {
            let progress = total.map(|total| {
                let (done, finished) = (&done, &finished);
                sc.spawn(move || {
                    let started = std::time::Instant::now();
                    let mut shown = false;
                    while !finished.load(Ordering::Relaxed) {
                        std::thread::sleep(std::time::Duration::from_millis(200));
                        if started.elapsed().as_secs() >= 2 {
                            shown = true;
                            super::out::progress(
                                &format!(
                                    "overlaps: {} of at most {total} live entries looked up",
                                    done.load(Ordering::Relaxed)
                                ),
                                false,
                            );
                        }
                    }
                    if shown {
                        super::out::progress("", true);
                    }
                })
            });
            // The progress line ends before the listing starts.
            let end_progress = || {
                finished.store(true, Ordering::Relaxed);
                if let Some(h) = progress {
                    let _ = h.join();
                }
            };
            // Written as built: a listing at 1M entries is ~2M pairs.
            let room = self.room.as_deref();
            let r = ctx
                .memory
                .open_overlaps_streamed(room, &done, |open, examined, pairs| {
                    end_progress();
                    (open, write_overlaps(ctx.json, room, open, examined, pairs))
                });
            finished.store(true, Ordering::Relaxed); // also when the pass failed
            r
        })?;
        let (open, written) = found;
        written?;
        Ok(if open == 0 {
            Outcome::Ok
        } else {
            Outcome::Violations
        })
    }
}

/// Writes the `overlaps` listing to stdout as the pairs are built (pretty JSON, or the
/// header and each pair as text); a closed pipe ends it quietly.
fn write_overlaps(
    json: bool,
    room: Option<&str>,
    open: usize,
    examined: usize,
    pairs: &mut dyn Iterator<Item = crate::memory::Overlap>,
) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = super::out::writer(1 << 16);
    let r = if json {
        let value = OverlapsOut {
            open,
            examined,
            room,
            overlaps: Streamed(std::cell::RefCell::new(pairs)),
        };
        serde_json::to_writer_pretty(&mut out, &value)
            .map_err(std::io::Error::from)
            .and_then(|()| out.write_all(b"\n"))
    } else {
        let safe = |t: &str| crate::render::terminal_safe(t).into_owned();
        out.write_all(safe(&render_audit::overlaps_header(open, examined, room)).as_bytes())
            .and_then(|()| {
                for p in pairs {
                    out.write_all(safe(&render_audit::overlap(&p)).as_bytes())?;
                }
                Ok(())
            })
            .and_then(|()| out.write_all(b"\n"))
    };
    match r.and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(anyhow::anyhow!("writing the overlaps to stdout: {e}"))
        }
        _ => Ok(()),
    }
}
