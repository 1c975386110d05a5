//! `db migrate | import | export | status`: the PostgreSQL backend's own commands.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::Subcommand;

use super::Global;
use super::out::{Outcome, emit, note};
use crate::store::Stream;
use crate::store::pg::{Db, DbUrl, schema};

/// Commands of the PostgreSQL backend. The database is `--database-url`,
/// `WARROOM_DATABASE_URL` or `ledger: postgres://…` in .agents/warroom.yaml.
#[derive(Debug, Subcommand)]
pub enum DbCmd {
    /// Create or upgrade the tables (also done on first use); refuses a newer schema.
    Migrate,
    /// Copy the project's files into the database: the registered plans, the ledger and
    /// every room's channel byte for byte (or only FILE, as the ledger or as `--channel
    /// ROOM`). Idempotent and resumable: each stream must be empty or hold a prefix of its
    /// file; a plan already registered as it is is skipped.
    Import {
        /// One file to import (default: the project's ledger and all its channels).
        file: Option<PathBuf>,
        /// Import FILE as this room's channel instead of as the ledger.
        #[arg(long, value_name = "ROOM", requires = "file")]
        channel: Option<String>,
    },
    /// Write the database's ledger (or one room's channel) as JSON Lines to stdout:
    /// byte-identical to the imported file plus everything appended since.
    Export {
        /// A room's channel instead of the ledger.
        #[arg(long, value_name = "ROOM", conflicts_with = "plans")]
        channel: Option<String>,
        /// Every registration of every plan (one JSON line each, oldest first) instead.
        #[arg(long)]
        plans: bool,
    },
    /// Schema version, line counts and the newest line's time.
    Status,
}

fn database(g: &Global) -> anyhow::Result<DbUrl> {
    let (paths, _, _) = g.layout()?;
    paths.database.context(
        "no database is configured. Fix: pass --database-url postgres://USER@HOST:PORT/DB, set \
         WARROOM_DATABASE_URL, or write `ledger: postgres://…` in .agents/warroom.yaml",
    )
}

fn open(url: &DbUrl) -> anyhow::Result<Arc<Db>> {
    Db::open(url.clone()).with_context(|| format!("opening the database {url}"))
}

/// The project's ledger file and every `<war-rooms>/<room>/channel.jsonl`.
fn project_files(paths: &crate::config::Paths) -> anyhow::Result<Vec<(Stream, PathBuf)>> {
    let mut jobs = Vec::new();
    if paths.ledger.exists() {
        jobs.push((Stream::Ledger, paths.ledger.clone()));
    } else {
        note(&format!(
            "import: no ledger file at {}",
            paths.ledger.display()
        ));
    }
    let mut rooms: Vec<String> = match std::fs::read_dir(&paths.war_rooms) {
        Ok(rd) => rd
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|room| paths.channel(room).is_file())
            .collect(),
        Err(_) => Vec::new(),
    };
    rooms.sort();
    for room in rooms {
        crate::validate::path_component("room directory", &room)?;
        jobs.push((Stream::Channel(room.clone()), paths.channel(&room)));
    }
    Ok(jobs)
}

/// What `db status` reports.
#[derive(Debug, serde::Serialize)]
struct Status {
    database: String,
    schema_version: i32,
    ledger_lines: i64,
    channel_lines: i64,
    rooms_with_channels: i64,
}

impl DbCmd {
    pub(super) fn run(self, g: &Global) -> anyhow::Result<Outcome> {
        let url = database(g)?;
        match self {
            DbCmd::Migrate => {
                let mut c = Db::connect(&url)?;
                let m = schema::migrate(&mut c)?;
                let text = if m.from == m.to {
                    format!("{url}: schema version {} (up to date)", m.to)
                } else {
                    format!("{url}: schema migrated from version {} to {}", m.from, m.to)
                };
                emit(
                    g.json,
                    &serde_json::json!({"from": m.from, "to": m.to}),
                    |_| text,
                );
                Ok(Outcome::Ok)
            }
            DbCmd::Import { file, channel } => {
                let (paths, _, _) = g.layout()?;
                let import_all = file.is_none();
                let jobs: Vec<(Stream, PathBuf)> = match (file, channel) {
                    (Some(f), Some(room)) => {
                        crate::validate::path_component("--channel", &room)?;
                        vec![(Stream::Channel(room), f)]
                    }
                    (Some(f), None) => vec![(Stream::Ledger, f)],
                    (None, _) => project_files(&paths)?,
                };
                let db = open(&url)?;
                let mut reports = Vec::new();
                if import_all {
                    let files = crate::plan::sources::plan_files(&paths);
                    if !files.is_empty() {
                        reports.push(
                            crate::plan::sources::registered_lines(&files, &paths.jail())
                                .and_then(|plans| crate::store::transfer::import_plans(&db, &plans))
                                .with_context(|| format!("importing the plans into {url}"))?,
                        );
                    }
                }
                for (stream, file) in jobs {
                    let mut last_note = std::time::Instant::now();
                    let report = crate::store::transfer::import(
                        &db,
                        &stream,
                        &file,
                        &crate::ledger::line_keys,
                        &mut |done| {
                            if last_note.elapsed().as_secs_f64() >= 1.0 {
                                note(&format!("import: {} lines of {}", done, file.display()));
                                last_note = std::time::Instant::now();
                            }
                        },
                    )
                    .with_context(|| format!("importing {} into {url}", file.display()))?;
                    if report.torn_tail_bytes > 0 {
                        note(&format!(
                            "warning: {} ends with {} bytes without a newline (a torn line); \
                             they were not imported",
                            file.display(),
                            report.torn_tail_bytes
                        ));
                    }
                    reports.push(report);
                }
                emit(g.json, &reports, |rs| {
                    rs.iter()
                        .map(|r| {
                            let unkeyed = if r.unkeyed > 0 {
                                format!(
                                    "; {} lines repeat an earlier id or supersede and were \
                                     stored without that key (run `warroom-memory verify`)",
                                    r.unkeyed
                                )
                            } else {
                                String::new()
                            };
                            format!(
                                "{}: {} lines; {} already in {url}, {} imported{unkeyed}",
                                r.stream, r.file_lines, r.already, r.imported
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("\n")
                });
                Ok(Outcome::Ok)
            }
            DbCmd::Export { channel, plans } => {
                let db = open(&url)?;
                let stream = match channel {
                    Some(room) => {
                        crate::validate::path_component("--channel", &room)?;
                        Stream::Channel(room)
                    }
                    None if plans => Stream::Plans,
                    None => Stream::Ledger,
                };
                let mut out = super::out::writer(1 << 20);
                let n = db.export(&stream, 0, &mut out)?;
                out.flush().context("writing the export")?;
                note(&format!("export: {n} lines from {url}"));
                Ok(Outcome::Ok)
            }
            DbCmd::Status => {
                let db = open(&url)?;
                let status = db
                    .status()
                    .with_context(|| format!("reading the status of {url}"))?;
                let s = Status {
                    database: url.to_string(),
                    schema_version: status.0,
                    ledger_lines: status.1,
                    channel_lines: status.2,
                    rooms_with_channels: status.3,
                };
                emit(g.json, &s, |s| {
                    format!(
                        "{}: schema version {}, {} ledger lines, {} channel lines in {} rooms",
                        s.database,
                        s.schema_version,
                        s.ledger_lines,
                        s.channel_lines,
                        s.rooms_with_channels
                    )
                });
                Ok(Outcome::Ok)
            }
        }
    }
}
