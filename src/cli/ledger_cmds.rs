//! `publish`, `query`, `search`, `get`: the ledger tools as commands.

use std::path::PathBuf;

use clap::Args;

use super::Ctx;
use super::out::{Outcome, emit};
use crate::api::ledger::{FilterArgs, GetArgs, PublishArgs, QueryArgs, SearchArgs};
use crate::entry::Kind;
use crate::error::Error;
use crate::render;

fn kind_arg(s: &str) -> Result<Kind, String> {
    Kind::parse("--kind", s).map_err(|e| e.to_string())
}

/// Filters shared by query, search and log.
#[derive(Debug, Args, Clone, Default)]
pub struct FilterFlags {
    /// Match entries with ANY of these tags (repeat the flag).
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
    /// Only this kind (artifact, decision, interface, convention, warning, code).
    #[arg(long, value_parser = kind_arg)]
    pub kind: Option<Kind>,
    /// Only this room (glob allowed: 'room-0*'; '*' = all rooms, yours included).
    #[arg(long, value_name = "ROOM")]
    pub room: Option<String>,
    /// Leave out this room (glob allowed). Default: your own room, if you have one.
    #[arg(long, value_name = "ROOM")]
    pub exclude_room: Option<String>,
    /// Only entries by this author role.
    #[arg(long, value_name = "ROLE")]
    pub role: Option<String>,
    /// Only entries about this ref (e.g. EPIC-007).
    #[arg(long = "ref", value_name = "REF")]
    pub ref_: Option<String>,
    /// At or after this time: RFC 3339, a date, or an age like 24h / 7d.
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// At or before this time (same formats).
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,
}

impl FilterFlags {
    /// The tool-level filter arguments.
    pub fn to_args(&self) -> FilterArgs {
        FilterArgs {
            tags: (!self.tags.is_empty()).then(|| self.tags.clone()),
            kind: self.kind,
            room_id: self.room.clone(),
            exclude_room: self.exclude_room.clone(),
            author_role: self.role.clone(),
            ref_: self.ref_.clone(),
            since: self.since.clone(),
            until: self.until.clone(),
        }
    }
}

/// Publish one entry.
#[derive(Debug, Args)]
pub struct PublishCmd {
    /// artifact, decision, interface, convention, warning or code.
    #[arg(long, value_parser = kind_arg)]
    kind: Kind,
    /// The fact itself (≤ 4096 bytes).
    #[arg(long)]
    summary: String,
    /// Longer explanation (≤ 16384 bytes).
    #[arg(long, conflicts_with = "detail_file")]
    detail: Option<String>,
    /// Read the detail from this file ('-' for stdin).
    #[arg(long, value_name = "FILE")]
    detail_file: Option<PathBuf>,
    /// Topic tag (repeat the flag).
    #[arg(long = "tag", value_name = "TAG")]
    tags: Vec<String>,
    /// Publishing room (default: --as-room / $WARROOM_ROOM_ID).
    #[arg(long, value_name = "ROOM")]
    room: Option<String>,
    /// Author role (default: --as-role / $WARROOM_ROLE).
    #[arg(long, value_name = "ROLE")]
    role: Option<String>,
    /// Epic or task ref, e.g. EPIC-007.
    #[arg(long = "ref", value_name = "REF")]
    ref_: Option<String>,
    /// Id of the live entry this one replaces.
    #[arg(long, value_name = "ID")]
    supersedes: Option<String>,
    /// Retry key: the same key with the same content prints the first entry and writes
    /// nothing (scripts that retry a publish).
    #[arg(long, value_name = "KEY")]
    idempotency_key: Option<String>,
    /// Who needs it: `room` (a working note: kept out of other rooms' briefs),
    /// `downstream` (the rooms that depend on yours), `project` (every room). Default:
    /// project for a convention, downstream for the other kinds.
    #[arg(long, value_parser = audience_arg)]
    audience: Option<crate::entry::Audience>,
}

fn audience_arg(s: &str) -> Result<crate::entry::Audience, String> {
    crate::entry::Audience::from_wire(s.trim())
        .ok_or_else(|| format!("`{s}` is not an audience: use room, downstream or project"))
}

impl PublishCmd {
    pub(super) fn run(self, ctx: &Ctx) -> anyhow::Result<Outcome> {
        // Read up to 1 MiB so an over-limit detail is refused by publish with the field's
        // own limit in the message; anything larger is refused here, never read whole.
        let detail = match &self.detail_file {
            Some(p) => Some(crate::fsx::read_named_text(p, "--detail-file", 1 << 20)?),
            None => self.detail,
        };
        let args = PublishArgs {
            kind: self.kind,
            summary: self.summary,
            tags: self.tags,
            room_id: self.room,
            author_role: self.role,
            ref_: self.ref_,
            detail,
            supersedes: self.supersedes,
            idempotency_key: self.idempotency_key,
            audience: self.audience,
        };
        let out = ctx.memory.publish(args, &ctx.who)?;
        emit(ctx.json, &out, render::publish);
        Ok(Outcome::Ok)
    }
}

/// List live entries matching filters, newest first.
#[derive(Debug, Args)]
pub struct QueryCmd {
    #[command(flatten)]
    filter: FilterFlags,
    /// Only the newest N entries (1–50; default 50).
    #[arg(long = "last", value_name = "N")]
    last_n: Option<u32>,
}

impl QueryCmd {
    pub(super) fn run(self, ctx: &Ctx) -> anyhow::Result<Outcome> {
        let args = QueryArgs {
            filter: self.filter.to_args(),
            last_n: self.last_n,
        };
        let out = ctx.memory.query(args, &ctx.who)?;
        emit(ctx.json, &out, render::query);
        Ok(if out.entries.is_empty() {
            Outcome::NothingFound
        } else {
            Outcome::Ok
        })
    }
}

/// Full-text search.
#[derive(Debug, Args)]
pub struct SearchCmd {
    /// Words to search for.
    #[arg(required = true)]
    text: Vec<String>,
    /// Number of hits (1–50, default 10).
    #[arg(long = "max", value_name = "N")]
    max_results: Option<u32>,
    #[command(flatten)]
    filter: FilterFlags,
    /// Show how each score is made (bm25, decay, age, half-life).
    #[arg(long)]
    explain: bool,
}

impl SearchCmd {
    pub(super) fn run(self, ctx: &Ctx) -> anyhow::Result<Outcome> {
        let args = SearchArgs {
            text: self.text.join(" "),
            max_results: self.max_results,
            filter: self.filter.to_args(),
        };
        let text = args.text.clone();
        let out = ctx.memory.search(args, &ctx.who)?;
        let explained = if self.explain {
            ctx.memory.explain_search(&text, &out.hits)?
        } else {
            Vec::new()
        };
        let ranking = ctx.memory.settings().ranking;
        if ctx.json && self.explain {
            let both = serde_json::json!({ "search": &out, "explain": &explained });
            emit(true, &both, |_| String::new());
        } else {
            emit(ctx.json, &out, |o| {
                let mut s = render::search(o);
                if !explained.is_empty() {
                    s.push_str(&render::explain(ranking, o, &explained));
                }
                s
            });
        }
        Ok(if out.hits.is_empty() {
            Outcome::NothingFound
        } else {
            Outcome::Ok
        })
    }
}

/// Show one entry and its supersede chain.
#[derive(Debug, Args)]
pub struct GetCmd {
    /// The entry id.
    id: String,
}

impl GetCmd {
    pub(super) fn run(self, ctx: &Ctx) -> anyhow::Result<Outcome> {
        match ctx.memory.get(GetArgs { id: self.id }, &ctx.who) {
            Ok(out) => {
                emit(ctx.json, &out, render::get);
                Ok(Outcome::Ok)
            }
            Err(Error::NotFound(msg)) => {
                super::out::note(&format!("not found: {msg}"));
                Ok(Outcome::NothingFound)
            }
            Err(e) => Err(e.into()),
        }
    }
}
