//! War-room channels (memory layer 1): `<war_rooms>/<room_id>/channel.jsonl`, one OSTwin
//! message per line — `{"v":1,"id":…,"ts":…,"from":…,"to":…,"type":…,"ref":…,"body":…}`.
//!
//! Same storage discipline as the ledger ([`crate::store::jsonl`]): whole-line appends under an
//! exclusive lock, incremental tail reading, malformed lines skipped and counted. Each room's
//! channel is opened lazily the first time it is touched and then tailed on every call.
//! A body longer than [`HELD_BODY_BYTES`] is not held: it is read back from its line when
//! asked for ([`Channel::message`]), so a channel of large messages costs its server the
//! messages' fields, not their bodies.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::clock::{Timestamp, parse_rfc3339};
use crate::error::{Error, Result};
use crate::index::Loc;
use crate::store::jsonl::{AppendOptions, Poll};
use crate::store::{Backend, Keys, Lock, Source, Stream};

/// Longest message body accepted on post, in UTF-8 bytes.
pub const MAX_BODY_BYTES: usize = 1_048_576;
/// Bodies up to this many bytes are held in memory; longer ones are read back on demand.
pub const HELD_BODY_BYTES: usize = 1024;

/// The core message types; any other non-empty type string is accepted too.
pub const CORE_TYPES: [&str; 8] = [
    "task", "done", "review", "pass", "fail", "fix", "error", "signoff",
];

/// One channel line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Message {
    /// Format version (1).
    #[serde(default = "one")]
    pub v: u32,
    /// Unique id (`<from>-<type>-<ULID>` when written by this server).
    pub id: String,
    /// When the message was stored (RFC 3339 UTC).
    pub ts: String,
    /// Sending role.
    pub from: String,
    /// Addressed role (may be empty).
    #[serde(default)]
    pub to: String,
    /// Message type: task, done, review, pass, fail, fix, error, signoff, or any other.
    #[serde(rename = "type")]
    pub type_: String,
    /// Epic or task ref.
    #[serde(default, rename = "ref")]
    pub ref_: String,
    /// Message text.
    pub body: String,
    /// Kinds of secrets redacted from the body before writing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redacted: Vec<String>,
    /// The poster's retry key, when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
}

fn one() -> u32 {
    1
}

/// A message with where it was read from.
#[derive(Debug, Clone)]
pub struct StoredMessage {
    /// The message.
    pub msg: Message,
    /// Its timestamp.
    pub ts: Timestamp,
    /// Its line.
    pub loc: Loc,
    /// The line's length in bytes.
    pub len: usize,
    /// False when the body is not held (`msg.body` empty): read it with
    /// [`Channel::message`].
    pub held: bool,
}

impl StoredMessage {
    fn new(mut msg: Message, ts: Timestamp, loc: Loc, len: usize) -> StoredMessage {
        let held = msg.body.len() <= HELD_BODY_BYTES;
        if !held {
            msg.body = String::new();
        }
        StoredMessage {
            msg,
            ts,
            loc,
            len,
            held,
        }
    }

    /// The body's length if held, else a bound (the line's length).
    pub fn body_bytes(&self) -> usize {
        if self.held {
            self.msg.body.len()
        } else {
            self.len
        }
    }
}

/// One room's channel, tailed.
#[derive(Debug)]
pub struct Channel {
    source: Source,
    messages: Vec<StoredMessage>,
    problems: Vec<(Loc, String)>,
}

impl Channel {
    fn new(source: Source) -> Channel {
        Channel {
            source,
            messages: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// The first message posted with retry key `key`, if any.
    pub fn by_idempotency_key(&self, key: &str) -> Option<&StoredMessage> {
        self.messages
            .iter()
            .find(|m| m.msg.idempotency_key.as_deref() == Some(key))
    }

    /// Reads whatever was appended since the last call.
    pub fn refresh(&mut self) -> Result<()> {
        let label = self.source.label();
        loop {
            let (messages, problems) = (&mut self.messages, &mut self.problems);
            let poll = self
                .source
                .poll(|line| {
                    let loc = Loc {
                        line: line.line_no,
                        offset: line.offset,
                    };
                    if line.oversized {
                        problems.push((loc, "line longer than 16 MiB".into()));
                        return;
                    }
                    if line.bytes.iter().all(u8::is_ascii_whitespace) {
                        return;
                    }
                    match parse_message(line.bytes) {
                        Ok((msg, ts)) => {
                            messages.push(StoredMessage::new(msg, ts, loc, line.bytes.len()))
                        }
                        Err(e) => {
                            tracing::warn!(channel = %label, line = loc.line, "malformed channel line: {e}");
                            problems.push((loc, e));
                        }
                    }
                })
                .map_err(|e| Error::Io {
                    context: format!("reading channel {label}"),
                    source: e,
                })?;
            match poll {
                Poll::Reset(why) => {
                    tracing::warn!(channel = %label, %why, "channel changed under us; re-reading");
                    self.messages.clear();
                    self.problems.clear();
                }
                _ => return Ok(()),
            }
        }
    }

    /// Messages in file order.
    pub fn messages(&self) -> &[StoredMessage] {
        &self.messages
    }

    /// `m` whole, its body read back from its line when it is not held (an error if the
    /// line changed since it was read).
    pub fn message(&self, m: &StoredMessage) -> Result<Message> {
        if m.held {
            return Ok(m.msg.clone());
        }
        let label = self.source.label();
        let bytes = self
            .source
            .read_range(m.loc.line, m.loc.offset, m.loc.offset + m.len as u64)
            .map_err(|e| Error::Io {
                context: format!("reading back a message of channel {label}"),
                source: e,
            })?;
        let line = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
        match parse_message(line) {
            Ok((msg, _)) if msg.id == m.msg.id => Ok(msg),
            _ => Err(Error::Conflict(format!(
                "channel {label} changed under its reader at line {}: message `{}` is not \
                 there any more. Fix: read the channel again",
                m.loc.line, m.msg.id
            ))),
        }
    }

    /// Malformed lines found so far.
    pub fn problems(&self) -> &[(Loc, String)] {
        &self.problems
    }

    /// The latest message of type `ty` (by time, then file order).
    pub fn latest(&self, ty: &str) -> Option<&StoredMessage> {
        self.messages
            .iter()
            .enumerate()
            .filter(|(_, m)| m.msg.type_ == ty)
            .max_by_key(|(i, m)| (m.ts, *i))
            .map(|(_, m)| m)
    }
}

/// Parses one channel line (lenient: OSTwin lines may lack `v`, `to`, `ref`).
pub fn parse_message(line: &[u8]) -> std::result::Result<(Message, Timestamp), String> {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let text = std::str::from_utf8(line).map_err(|e| format!("not valid UTF-8 ({e})"))?;
    let msg: Message = serde_json::from_str(text).map_err(|e| format!("not a message: {e}"))?;
    if msg.id.is_empty() || msg.from.is_empty() || msg.type_.is_empty() {
        return Err("`id`, `from` and `type` must be non-empty".into());
    }
    let ts = parse_rfc3339(&msg.ts).map_err(|e| format!("bad `ts`: {e}"))?;
    Ok((msg, ts))
}

/// Every channel this process has touched.
#[derive(Debug, Default)]
pub struct Channels {
    rooms: HashMap<String, Channel>,
    backend: Backend,
    jail: Option<std::sync::Arc<crate::fsx::Jail>>,
}

impl Channels {
    /// No channel yet; channels live in `backend`, and channel files are opened only
    /// inside `jail`.
    pub fn new(backend: Backend, jail: Option<std::sync::Arc<crate::fsx::Jail>>) -> Channels {
        Channels {
            rooms: HashMap::new(),
            backend,
            jail,
        }
    }

    /// File channels, opened only inside `jail`.
    pub fn jailed(jail: Option<std::sync::Arc<crate::fsx::Jail>>) -> Channels {
        Channels::new(Backend::Files, jail)
    }

    /// The channel of `room` at `path`, refreshed. The room id must be validated.
    pub fn get(&mut self, room: &str, path: PathBuf) -> Result<&Channel> {
        let ch = self.rooms.entry(room.to_string()).or_insert_with(|| {
            let stream = Stream::Channel(room.to_string());
            Channel::new(self.backend.source(stream, path, self.jail.clone()))
        });
        ch.refresh()?;
        Ok(ch)
    }

    /// Takes the append lock of the channel file at `path` (creating the room directory),
    /// waiting at most `opts.lock_wait`; taken before the in-process state lock.
    pub fn lock(backend: &Backend, room: &str, path: &Path, opts: &AppendOptions) -> Result<Lock> {
        let stream = Stream::Channel(room.to_string());
        backend.lock(&stream, path, opts).map_err(|e| Error::Io {
            context: format!("locking channel {}", backend.label(&stream, path)),
            source: e,
        })
    }

    /// Appends `msg` under `lock` (from [`Channels::lock`]) and returns it as read back.
    pub fn append(
        &mut self,
        mut lock: Lock,
        room: &str,
        path: PathBuf,
        msg: &Message,
        opts: &AppendOptions,
    ) -> Result<std::result::Result<StoredMessage, String>> {
        let line = serde_json::to_string(msg).expect("messages serialize");
        let keys = Keys {
            id: Some(&msg.id),
            supersedes: None,
        };
        lock.append(&line, keys, opts).map_err(|e| {
            if crate::store::outcome_unknown(&e) {
                return Error::Conflict(e.to_string());
            }
            Error::Io {
                context: format!(
                    "could not append to the channel of {room} (nothing was written; the channel \
                 is unchanged)"
                ),
                source: e,
            }
        })?;
        drop(lock);
        // After the commit point: a message not read back is still sent.
        Ok(crate::error::after_commit(
            "reading the message back",
            || {
                let ch = self.get(room, path)?;
                ch.messages
                    .iter()
                    .rev()
                    .find(|m| m.msg.id == msg.id)
                    .cloned()
                    .ok_or_else(|| {
                        Error::Conflict(format!(
                            "message `{}` was appended but not read back",
                            msg.id
                        ))
                    })
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ostwin_lines_and_skips_bad_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("channel.jsonl");
        std::fs::write(
            &path,
            concat!(
                r#"{"v":1,"id":"manager-task-1775214241555000000-78833","ts":"2026-04-03T11:04:01Z","from":"manager","to":"engineer","type":"task","ref":"EPIC-001","body":"Build it"}"#, "\n",
                "not json\n",
                r#"{"id":"engineer-done-1","ts":"2026-04-03T12:00:00Z","from":"engineer","type":"done","body":"Done: shipped"}"#, "\n",
                r#"{"id":"engineer-done-0","ts":"2026-04-03T11:30:00Z","from":"engineer","type":"done","body":"older"}"#, "\n",
            ),
        )
        .unwrap();
        let mut chans = Channels::default();
        let ch = chans.get("room-001", path).unwrap();
        assert_eq!(ch.messages().len(), 3);
        assert_eq!(ch.problems().len(), 1);
        assert_eq!(ch.problems()[0].0.line, 2);
        assert_eq!(ch.latest("done").unwrap().msg.body, "Done: shipped");
        assert_eq!(ch.messages()[1].msg.to, "");
    }
}
