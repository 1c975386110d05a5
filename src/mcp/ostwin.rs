//! The OSTwin tool profile (`serve --profile ostwin`): the tool names, arguments, defaults
//! and result shapes of OSTwin's memory server (`publish`, `query`, `search`,
//! `get_context`, `list_memories`) and channel server (`post_message`, `read_messages`,
//! `get_latest`), on top of the same core — same ledger, locking, secret scanning and
//! identity rules. Results are text, as OSTwin's are: `published:<id>`, JSON arrays
//! (oldest first), the `## Cross-Room Context` markdown.
//!
//! Where OSTwin's behaviour is a bug we fixed, ours is kept (docs/ostwin.md lists each):
//! `query` returns the *newest* 20 matches (OSTwin: the oldest 20), over-limit input is
//! refused rather than truncated, an invalid kind is a tool error rather than a success
//! whose text starts with `error:`, and a `room_dir` must be a room under the project's
//! war-rooms directory.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::registry::{ToolDef, describe_text, run_text};
use crate::api::channel::{ChannelPostArgs, ChannelReadArgs};
use crate::api::ledger::{FilterArgs, PublishArgs, QueryArgs, SearchArgs};
use crate::config::Identity;
use crate::entry::{Entry, Kind};
use crate::error::{Error, Result};
use crate::memory::Memory;

/// Most entries `query` returns (OSTwin's `MAX_SEARCH_RESULTS`).
pub const QUERY_CAP: u32 = 20;
/// Most entries `list_memories` returns (OSTwin: unbounded; newest kept).
pub const LIST_CAP: usize = 1000;

/// An entry as OSTwin writes it: `detail` and `supersedes` only when set.
fn ostwin_entry(e: &Entry) -> Value {
    let mut v = json!({
        "id": e.id, "ts": e.ts, "kind": e.kind, "room_id": e.room_id,
        "author_role": e.author_role, "ref": e.ref_, "tags": e.tags, "summary": e.summary,
    });
    if !e.detail.is_empty() {
        v["detail"] = json!(e.detail);
    }
    if let Some(s) = &e.supersedes {
        v["supersedes"] = json!(s);
    }
    v
}

fn array(entries: &[Entry]) -> String {
    Value::Array(entries.iter().map(ostwin_entry).collect()).to_string()
}

/// Arguments of `publish`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PublishIn {
    /// artifact | decision | interface | convention | warning | code
    pub kind: Kind,
    /// Concise summary (max 4KB): what other agents will see.
    pub summary: String,
    /// Tags for discovery, e.g. ['auth', 'database'].
    pub tags: Vec<String>,
    /// War-room that produced it, e.g. 'room-001'.
    pub room_id: String,
    /// engineer | qa | architect | manager
    pub author_role: String,
    /// Epic/task reference, e.g. 'EPIC-001'.
    #[serde(rename = "ref")]
    pub ref_: String,
    /// Extended detail (max 16KB).
    #[serde(default)]
    pub detail: Option<String>,
    /// Id of the entry this one replaces.
    #[serde(default)]
    pub supersedes: Option<String>,
}

/// Arguments of `query`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct QueryIn {
    /// Any of these tags.
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// Only this kind.
    #[serde(default)]
    pub kind: Option<Kind>,
    /// Only this epic/task ref.
    #[serde(default, rename = "ref")]
    pub ref_: Option<String>,
    /// Only this room.
    #[serde(default)]
    pub room_id: Option<String>,
    /// Only this author role.
    #[serde(default)]
    pub author_role: Option<String>,
    /// Skip this room.
    #[serde(default)]
    pub exclude_room: Option<String>,
    /// Only the last N matches (max 20 returned).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub last_n: Option<u32>,
}

/// Arguments of `search`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchIn {
    /// Free-text query.
    pub text: String,
    /// Only this kind.
    #[serde(default)]
    pub kind: Option<Kind>,
    /// Skip this room.
    #[serde(default)]
    pub exclude_room: Option<String>,
    /// Max results (default 10).
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    pub max_results: Option<u32>,
}

/// Arguments of `get_context`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ContextIn {
    /// The war-room to build context for.
    pub room_id: String,
    /// Keywords of the room's brief; omitted: the newest entries of other rooms.
    #[serde(default)]
    pub brief_keywords: Option<Vec<String>>,
    /// Max entries (default 15).
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    pub max_entries: Option<u32>,
}

/// Arguments of `list_memories`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListIn {
    /// Only this kind.
    #[serde(default)]
    pub kind: Option<Kind>,
}

/// Arguments of `post_message`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PostIn {
    /// The war-room directory (e.g. .war-rooms/room-001).
    pub room_dir: String,
    /// Sender role.
    pub from_role: String,
    /// Recipient role.
    pub to_role: String,
    /// task | done | review | pass | fail | fix | error | signoff
    pub msg_type: String,
    /// Task reference, e.g. TASK-001.
    #[serde(rename = "ref")]
    pub ref_: String,
    /// Message text (≤ 1 MiB).
    pub body: String,
}

/// Arguments of `read_messages`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadIn {
    /// The war-room directory.
    pub room_dir: String,
    /// Only this type.
    #[serde(default)]
    pub msg_type: Option<String>,
    /// Only from this role.
    #[serde(default)]
    pub from_role: Option<String>,
    /// Only to this role.
    #[serde(default)]
    pub to_role: Option<String>,
    /// Only this ref.
    #[serde(default, rename = "ref")]
    pub ref_: Option<String>,
    /// Only the last N (max 200).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub last_n: Option<u32>,
}

/// Arguments of `get_latest`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct LatestIn {
    /// The war-room directory.
    pub room_dir: String,
    /// The type to look for.
    pub msg_type: String,
}

/// Every room (OSTwin has no own-room exclusion), unless the caller names one.
fn rooms(room_id: Option<String>, exclude_room: Option<String>) -> FilterArgs {
    FilterArgs {
        room_id: Some(room_id.unwrap_or_else(|| "*".into())),
        exclude_room,
        ..FilterArgs::default()
    }
}

/// The room a `room_dir` names: a directory directly under the project's war-rooms.
fn room_of(m: &Memory, room_dir: &str) -> Result<String> {
    let p = std::path::Path::new(room_dir.trim_end_matches('/'));
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        m.paths().root.join(p)
    };
    let name = abs
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let war_rooms = m
        .paths()
        .war_rooms
        .canonicalize()
        .unwrap_or(m.paths().war_rooms.clone());
    let parent = abs
        .parent()
        .map(|d| d.canonicalize().unwrap_or(d.to_path_buf()));
    if parent.as_deref() != Some(war_rooms.as_path()) {
        return Err(Error::invalid(
            "room_dir",
            format!(
                "`{}` is not a room directory under {}",
                crate::validate::printable(room_dir),
                m.paths().war_rooms.display()
            ),
            "pass the room's directory, e.g. .war-rooms/room-001",
        ));
    }
    crate::validate::path_component("room_dir", &name)?;
    Ok(name)
}

fn publish(m: &Memory, who: &Identity, a: PublishIn) -> Result<String> {
    let out = m.publish(
        PublishArgs {
            kind: a.kind,
            summary: a.summary,
            tags: a.tags,
            room_id: Some(a.room_id),
            author_role: Some(a.author_role),
            ref_: Some(a.ref_),
            detail: a.detail,
            supersedes: a.supersedes,
            idempotency_key: None,
            audience: None,
        },
        who,
    )?;
    Ok(format!("published:{}", out.entry.id))
}

fn query(m: &Memory, who: &Identity, a: QueryIn) -> Result<String> {
    let mut filter = rooms(a.room_id, a.exclude_room);
    filter.tags = a.tags;
    filter.kind = a.kind;
    filter.ref_ = a.ref_;
    filter.author_role = a.author_role;
    let n = a.last_n.unwrap_or(QUERY_CAP).min(QUERY_CAP);
    let mut out = m.query(
        QueryArgs {
            filter,
            last_n: Some(n),
        },
        who,
    )?;
    out.entries.reverse(); // oldest first, as OSTwin lists them
    Ok(array(&out.entries))
}

fn search(m: &Memory, who: &Identity, a: SearchIn) -> Result<String> {
    if !a.text.chars().any(char::is_alphanumeric) {
        return Ok("[]".into());
    }
    let mut filter = rooms(None, a.exclude_room);
    filter.kind = a.kind;
    let out = m.search(
        SearchArgs {
            text: a.text,
            max_results: Some(a.max_results.unwrap_or(10)),
            filter,
        },
        who,
    )?;
    let entries: Vec<Entry> = out.hits.into_iter().map(|h| h.entry).collect();
    Ok(array(&entries))
}

const KIND_LABELS: [(&str, &str); 6] = [
    (
        "code",
        "Code (files, imports, snippets you can use directly)",
    ),
    ("interface", "Interfaces (API contracts & schemas)"),
    ("artifact", "Artifacts (what other rooms built)"),
    ("decision", "Decisions (why choices were made)"),
    ("convention", "Conventions (team standards)"),
    ("warning", "Warnings (things to watch out for)"),
];

/// OSTwin's selection: every other room's live entries — ranked by the brief's keywords
/// when given, else the newest — in OSTwin's markdown.
fn brief(m: &Memory, who: &Identity, a: ContextIn) -> Result<String> {
    let room = who.room_or_own("room_id", Some(a.room_id))?;
    let max = a.max_entries.unwrap_or(15);
    let keywords = a.brief_keywords.unwrap_or_default().join(" ");
    let entries: Vec<Entry> = if keywords.chars().any(char::is_alphanumeric) {
        let out = m.search(
            SearchArgs {
                text: keywords,
                max_results: Some(max),
                filter: rooms(None, Some(room)),
            },
            who,
        )?;
        out.hits.into_iter().map(|h| h.entry).collect()
    } else {
        let mut out = m.query(
            QueryArgs {
                filter: rooms(None, Some(room)),
                last_n: Some(max),
            },
            who,
        )?;
        out.entries.reverse();
        out.entries
    };
    if entries.is_empty() {
        return Ok("No cross-room context available yet.".into());
    }
    let mut lines = vec!["## Cross-Room Context (auto-generated)\n".to_string()];
    for (kind, label) in KIND_LABELS {
        let of_kind: Vec<&Entry> = entries.iter().filter(|e| e.kind.as_str() == kind).collect();
        if of_kind.is_empty() {
            continue;
        }
        lines.push(format!("### {label}\n"));
        for e in of_kind {
            let r = if e.ref_.is_empty() { "?" } else { &e.ref_ };
            lines.push(format!("- **[{r}]** ({}): {}", e.room_id, e.summary));
            if !e.detail.is_empty() {
                let preview: String = e.detail.chars().take(500).collect();
                let more = if e.detail.chars().count() > 500 {
                    "..."
                } else {
                    ""
                };
                lines.push(format!("  ```\n  {preview}{more}\n  ```"));
            }
        }
        lines.push(String::new());
    }
    Ok(lines.join("\n"))
}

fn list_memories(m: &Memory, who: &Identity, a: ListIn) -> Result<String> {
    let mut entries = m.recent_in_rooms(None, a.kind, LIST_CAP, who)?;
    entries.reverse();
    let items: Vec<Value> = entries
        .iter()
        .map(|e| {
            json!({"id": e.id, "ts": e.ts, "kind": e.kind, "room_id": e.room_id, "ref": e.ref_,
                   "tags": e.tags, "summary_preview": e.summary.chars().take(200).collect::<String>()})
        })
        .collect();
    Ok(Value::Array(items).to_string())
}

fn post_message(m: &Memory, who: &Identity, a: PostIn) -> Result<String> {
    let room = room_of(m, &a.room_dir)?;
    let out = m.channel_post(
        ChannelPostArgs {
            room_id: Some(room),
            from: Some(a.from_role),
            to: Some(a.to_role),
            type_: a.msg_type,
            ref_: Some(a.ref_),
            body: a.body,
            idempotency_key: None,
        },
        who,
    )?;
    Ok(format!("posted:{}", out.message.id))
}

fn read(m: &Memory, who: &Identity, room_dir: &str, args: ChannelReadArgs) -> Result<Vec<Value>> {
    let room = room_of(m, room_dir)?;
    let out = m.channel_read(
        ChannelReadArgs {
            room_id: Some(room),
            ..args
        },
        who,
    )?;
    Ok(out
        .messages
        .iter()
        .map(|msg| serde_json::to_value(msg).expect("messages serialize"))
        .collect())
}

fn read_messages(m: &Memory, who: &Identity, a: ReadIn) -> Result<String> {
    let args = ChannelReadArgs {
        type_: a.msg_type,
        from: a.from_role,
        to: a.to_role,
        ref_: a.ref_,
        last_n: Some(a.last_n.unwrap_or(200).min(200)),
        ..ChannelReadArgs::default()
    };
    Ok(Value::Array(read(m, who, &a.room_dir, args)?).to_string())
}

fn get_latest(m: &Memory, who: &Identity, a: LatestIn) -> Result<String> {
    let args = ChannelReadArgs {
        type_: Some(a.msg_type),
        last_n: Some(1),
        ..ChannelReadArgs::default()
    };
    Ok(read(m, who, &a.room_dir, args)?
        .pop()
        .unwrap_or(Value::Null)
        .to_string())
}

macro_rules! tool {
    ($name:literal, $title:literal, $desc:literal, $ro:expr, $args:ty, $f:ident) => {
        ToolDef {
            name: $name,
            title: $title,
            description: $desc,
            read_only: $ro,
            describe: describe_text::<$args>,
            call: |m, who, args| run_text::<$args>($name, args, |a| $f(m, who, a)),
        }
    };
}

/// The OSTwin profile's tools, in OSTwin's order.
pub static TOOLS: [ToolDef; 8] = [
    tool!(
        "publish",
        "Publish a memory entry",
        "Publish a memory entry to the shared memory ledger (artifact, decision, interface, convention, warning, code). Returns the generated memory ID.",
        false,
        PublishIn,
        publish
    ),
    tool!(
        "query",
        "Query shared memory",
        "Query shared memory with optional filters. Returns a JSON array of matching live entries (the newest 20 at most, oldest first).",
        true,
        QueryIn,
        query
    ),
    tool!(
        "search",
        "Search shared memory",
        "Full-text search across shared memory; results sorted by relevance (best first).",
        true,
        SearchIn,
        search
    ),
    tool!(
        "get_context",
        "Cross-room context",
        "Markdown context from ALL OTHER rooms for a war-room, optionally ranked by the brief's keywords.",
        true,
        ContextIn,
        brief
    ),
    tool!(
        "list_memories",
        "List memories",
        "List live memory entries (lightweight: id, ts, kind, room_id, ref, tags, summary_preview).",
        true,
        ListIn,
        list_memories
    ),
    tool!(
        "post_message",
        "Post to a war-room channel",
        "Post a message to the war-room channel ({room_dir}/channel.jsonl). Returns the message ID.",
        false,
        PostIn,
        post_message
    ),
    tool!(
        "read_messages",
        "Read a war-room channel",
        "Read messages from the war-room channel with optional filters; a JSON array, oldest first.",
        true,
        ReadIn,
        read_messages
    ),
    tool!(
        "get_latest",
        "Latest message of a type",
        "The most recent message of a type from the war-room channel, as JSON, or null.",
        true,
        LatestIn,
        get_latest
    ),
];
