//! `context`, `plan`, `channel`: war-rooms, plans and predecessor context as commands.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use super::Ctx;
use super::out::{Outcome, emit};
use crate::api::brief::BriefArgs;
use crate::api::channel::{ChannelPostArgs, ChannelReadArgs};
use crate::api::plan::RegisterPlanArgs;
use crate::render;

/// Print the predecessor context of a room.
#[derive(Debug, Args)]
pub struct ContextCmd {
    /// The room to brief (default: --as-room / $WARROOM_ROOM_ID).
    room: Option<String>,
    /// A brief keyword (repeat). Default: the epic's brief_keywords from its plan.
    #[arg(long = "keyword", value_name = "WORD")]
    keywords: Vec<String>,
    /// Rank by recency × DAG proximity only, ignoring the plan's brief keywords.
    #[arg(long, conflicts_with = "keywords")]
    no_keywords: bool,
    /// At most N entries (1–15, default 15).
    #[arg(long = "max", value_name = "N")]
    max_entries: Option<u32>,
    /// The plan the room belongs to, when several plans use the room id.
    #[arg(long = "plan", value_name = "PLAN_ID")]
    plan_id: Option<String>,
    /// Instead: recompute the brief of this receipt (from `receipts`) from the ledger as
    /// it was, with its arguments and time, and prove it byte-identical (exit 0) or show
    /// what differs (exit 1). The whole receipt is compared: its reasons, scores and
    /// omissions are recomputed, its keywords, limit, asker and time checked against its
    /// arguments and the ledger, and its line against the receipts' hash chain.
    #[arg(long, value_name = "RECEIPT", conflicts_with_all = ["room", "keywords", "no_keywords", "max_entries", "plan_id"])]
    replay: Option<String>,
    /// With --replay: a receipts head recorded earlier (`verify` prints it); the receipt
    /// must be in its history, so an edited or re-chained receipt is caught.
    #[arg(long, value_name = "HASH", requires = "replay")]
    receipts_head: Option<String>,
    /// With --replay: recompute on an index built afresh from a copy of the ledger's
    /// prefix instead of on the index as it was at the receipt's position (independent
    /// of the server's index; slower, a first start's work). Both must agree.
    #[arg(long, requires = "replay")]
    rebuild: bool,
    /// After the brief: per upstream room, its live entries and how many are shown, and
    /// why each shown entry was chosen (its share and matched keywords).
    #[arg(long, conflicts_with = "replay")]
    explain: bool,
}

impl ContextCmd {
    pub(super) fn run(self, ctx: &Ctx) -> anyhow::Result<Outcome> {
        if let Some(id) = &self.replay {
            let r =
                ctx.memory
                    .replay_receipt_with(id, self.receipts_head.as_deref(), self.rebuild)?;
            emit(ctx.json, &r, crate::render_audit::replay);
            return Ok(if r.identical {
                Outcome::Ok
            } else {
                Outcome::Violations
            });
        }
        let brief_keywords = if self.no_keywords {
            Some(Vec::new())
        } else {
            (!self.keywords.is_empty()).then_some(self.keywords)
        };
        let args = BriefArgs {
            room_id: self.room,
            brief_keywords,
            max_entries: self.max_entries,
            plan_id: self.plan_id,
        };
        let out = ctx.memory.brief(args, &ctx.who)?;
        if self.explain && !ctx.json {
            emit(false, &out, |o| {
                format!("{}\n{}", render::context(o), render::context_explained(o))
            });
        } else {
            emit(ctx.json, &out, render::context);
        }
        if !ctx.json
            && let Some(r) = &out.receipt
        {
            super::out::note(&format!(
                "receipt {r} (replay it: warroom-memory context --replay {r})"
            ));
        }
        Ok(
            if out.entry_ids.is_empty() && out.predecessor_outputs.is_empty() {
                Outcome::NothingFound
            } else {
                Outcome::Ok
            },
        )
    }
}

/// How `plan show` draws the DAG.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum DagFormat {
    /// Indented text.
    Text,
    /// A Mermaid flowchart (paste into a Markdown file).
    Mermaid,
    /// Graphviz DOT (`| dot -Tsvg > plan.svg`).
    Dot,
}

/// Plans and the epic DAG.
#[derive(Debug, Subcommand)]
pub enum PlanCmd {
    /// Register a plan from a JSON or OSTwin markdown file ('-' for stdin).
    Register {
        /// The plan file (.json, or markdown).
        file: PathBuf,
        /// Plan id (markdown default: a `plan_id:` line, else a slug of the title).
        #[arg(long)]
        plan_id: Option<String>,
    },
    /// Print the DAG of every plan.
    Show {
        /// Output format.
        #[arg(long, value_enum, default_value_t = DagFormat::Text)]
        format: DagFormat,
    },
}

/// Largest plan file `plan register` reads (a plan of hundreds of epics is ~100 KB).
const PLAN_FILE_LIMIT: u64 = 4 << 20;

impl PlanCmd {
    pub(super) fn run(self, ctx: &Ctx) -> anyhow::Result<Outcome> {
        match self {
            PlanCmd::Register { file, plan_id } => {
                let text = crate::fsx::read_named_text(&file, "plan register", PLAN_FILE_LIMIT)?;
                let out = ctx.memory.register_plan(
                    RegisterPlanArgs {
                        plan: None,
                        markdown: Some(text),
                        plan_id,
                    },
                    &ctx.who,
                )?;
                emit(ctx.json, &out, render::register_plan);
                Ok(Outcome::Ok)
            }
            PlanCmd::Show { format } => {
                let dag = ctx.memory.plan_view()?;
                emit(ctx.json, &dag, |d| match format {
                    DagFormat::Text => render::dag_text(d),
                    DagFormat::Mermaid => render::dag_mermaid(d),
                    DagFormat::Dot => render::dag_dot(d),
                });
                Ok(if dag.epics.is_empty() {
                    Outcome::NothingFound
                } else {
                    Outcome::Ok
                })
            }
        }
    }
}

/// War-room channels.
#[derive(Debug, Subcommand)]
pub enum ChannelCmd {
    /// Append a message to a room's channel.
    Post {
        /// Room (default: --as-room / $WARROOM_ROOM_ID).
        #[arg(long)]
        room: Option<String>,
        /// Sending role (default: --as-role / $WARROOM_ROLE).
        #[arg(long)]
        from: Option<String>,
        /// Addressed role.
        #[arg(long)]
        to: Option<String>,
        /// task, done, review, pass, fail, fix, error, signoff, …
        #[arg(long = "type")]
        type_: String,
        /// Epic or task ref.
        #[arg(long = "ref")]
        ref_: Option<String>,
        /// Message text (≤ 1048576 bytes).
        #[arg(long)]
        body: String,
        /// Retry key: the same key with the same content prints the first message and
        /// writes nothing.
        #[arg(long, value_name = "KEY")]
        idempotency_key: Option<String>,
    },
    /// Read a room's channel (oldest first).
    Read {
        /// Room (default: --as-room / $WARROOM_ROOM_ID).
        #[arg(long)]
        room: Option<String>,
        /// Only this message type.
        #[arg(long = "type")]
        type_: Option<String>,
        /// Only messages at or after this time.
        #[arg(long)]
        since: Option<String>,
        /// Only from this role.
        #[arg(long)]
        from: Option<String>,
        /// Only to this role.
        #[arg(long)]
        to: Option<String>,
        /// Only this ref.
        #[arg(long = "ref")]
        ref_: Option<String>,
        /// Only the newest N (1–200, default 50).
        #[arg(long = "last")]
        last_n: Option<u32>,
        /// Only messages older than this message id (page back: an answer holds at most
        /// 4 MiB of messages and names its oldest id).
        #[arg(long)]
        before: Option<String>,
    },
}

impl ChannelCmd {
    pub(super) fn run(self, ctx: &Ctx) -> anyhow::Result<Outcome> {
        match self {
            ChannelCmd::Post {
                room,
                from,
                to,
                type_,
                ref_,
                body,
                idempotency_key,
            } => {
                let args = ChannelPostArgs {
                    room_id: room,
                    from,
                    to,
                    type_,
                    ref_,
                    body,
                    idempotency_key,
                };
                let out = ctx.memory.channel_post(args, &ctx.who)?;
                emit(ctx.json, &out, render::channel_post);
                Ok(Outcome::Ok)
            }
            ChannelCmd::Read {
                room,
                type_,
                since,
                from,
                to,
                ref_,
                last_n,
                before,
            } => {
                let args = ChannelReadArgs {
                    room_id: room,
                    type_,
                    since,
                    from,
                    to,
                    ref_,
                    last_n,
                    before,
                };
                let out = ctx.memory.channel_read(args, &ctx.who)?;
                emit(ctx.json, &out, render::channel_read);
                Ok(if out.messages.is_empty() {
                    Outcome::NothingFound
                } else {
                    Outcome::Ok
                })
            }
        }
    }
}
