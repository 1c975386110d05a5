//! `channel_post` / `channel_read`: a room's private conversation.
//!
//! Privacy rule: a server process with a room identity only touches its own room's
//! channel. Cross-room knowledge flows through the ledger and predecessor context instead.

use super::Memory;
use super::read::page_size;
use crate::api::channel::{ChannelPostArgs, ChannelPostOutput, ChannelReadArgs, ChannelReadOutput};
use crate::channel::{MAX_BODY_BYTES, Message};
use crate::clock::parse_time_arg;
use crate::config::Identity;
use crate::error::{Error, Result};
use crate::schema::Schema;
use crate::validate::{bytes_within, short_id};

/// Most messages `channel_read` returns.
pub const MAX_CHANNEL_PAGE: u32 = 200;
/// Most bytes of messages (as stored lines) one `channel_read` answer holds: an answer
/// carries them twice (text and structured content), and MCP clients read a JSON-RPC
/// line of at most 16 MiB (rmcp's default).
pub const MAX_READ_BYTES: usize = 4 << 20;

fn room_for(requested: Option<String>, who: &Identity) -> Result<String> {
    if let Some(r) = &requested {
        crate::validate::path_component("room_id", r)?;
    }
    if let (Some(own), Some(room)) = (&who.room_id, &requested)
        && own != room
    {
        return Err(Error::Refused(format!(
            "the channel of room `{}` is private to that room; you are in room `{own}`. \
             Fix: read other rooms' knowledge with memory_query, memory_search or \
             memory_get_context",
            crate::validate::printable(room)
        )));
    }
    who.room_or_own("room_id", requested)
}

impl Memory {
    /// Appends one message to a room's channel.
    pub fn channel_post(
        &self,
        mut args: ChannelPostArgs,
        who: &Identity,
    ) -> Result<ChannelPostOutput> {
        let key = args.idempotency_key.take();
        if let Some(k) = &key {
            self.check_idempotency_key(k)?;
        }
        let room = room_for(args.room_id, who)?;
        let from = who.role_or_own("from", args.from)?;
        let to = args.to.unwrap_or_default();
        if !to.is_empty() {
            short_id("to", &to)?;
        }
        short_id("type", &args.type_)?;
        if args.type_.len() > 64 || args.type_.contains(char::is_whitespace) {
            return Err(Error::invalid(
                "type",
                format!(
                    "`{}` is not a short word",
                    crate::validate::printable(&args.type_)
                ),
                "use task, done, review, pass, fail, fix, error, signoff or another word without spaces (≤ 64 bytes)",
            ));
        }
        let ref_ = args.ref_.unwrap_or_default();
        if !ref_.is_empty() {
            short_id("ref", &ref_)?;
        }
        bytes_within(
            "body",
            &args.body,
            MAX_BODY_BYTES,
            "shorten the message; put long material in a file and publish an artifact entry",
        )?;
        self.guard_id("from", &from)?;
        self.guard_id("to", &to)?;
        self.guard_id("type", &args.type_)?;
        self.guard_id("ref", &ref_)?;
        let mut redacted = Vec::new();
        let body = self.guard_secrets("body", args.body, &mut redacted)?;
        bytes_within("body", &body, MAX_BODY_BYTES, "shorten the message")?;
        let now = self.write_now();
        self.budgets.charge(
            who,
            super::budgets::Meter::Append,
            now.0,
            body.len() as u64,
            &self.settings.limits,
        )?;
        let msg = Message {
            v: 1,
            id: format!(
                "{from}-{}-{}",
                args.type_,
                ulid::Ulid::from_parts(
                    (now.0.max(0) as u64) * 1000,
                    ulid::Ulid::generate().random()
                )
            ),
            ts: now.to_rfc3339(),
            from,
            to,
            type_: args.type_,
            ref_,
            body,
            redacted,
            idempotency_key: key.clone(),
        };
        Schema::ChannelMessage
            .check(&serde_json::to_value(&msg).expect("messages serialize"))
            .map_err(|e| {
                Error::invalid("message", e.join("; "), "correct the fields named above")
            })?;
        let path = self.paths().channel(&room);
        self.paths().confine(&path)?;
        let lock =
            crate::channel::Channels::lock(self.backend(), &room, &path, self.append_opts())?;
        let mut state = self.fresh()?;
        let first = match &key {
            Some(k) => {
                let ch = state.channels.get(&room, path.clone())?;
                ch.by_idempotency_key(k)
                    .map(|m| ch.message(m))
                    .transpose()?
            }
            None => None,
        };
        if let (Some(k), Some(m)) = (&key, &first) {
            return if (&m.from, &m.to, &m.type_, &m.ref_, &m.body)
                == (&msg.from, &msg.to, &msg.type_, &msg.ref_, &msg.body)
            {
                Ok(ChannelPostOutput {
                    room_id: room,
                    redacted: m.redacted.clone(),
                    message: m.clone(),
                    warnings: Vec::new(),
                })
            } else {
                Err(Error::Conflict(format!(
                    "idempotency_key `{}` was already used in room `{room}` for message `{}`, \
                     with other content; nothing was written. Fix: use a new key for a new \
                     message",
                    crate::validate::printable(k),
                    m.id
                )))
            };
        }
        let written = state
            .channels
            .append(lock, &room, path, &msg, self.append_opts())?;
        // The message as built (the stored copy may not hold a large body).
        let warnings = match written {
            Ok(_) => Vec::new(),
            Err(w) => vec![w],
        };
        let message = msg;
        Ok(ChannelPostOutput {
            room_id: room,
            redacted: message.redacted.clone(),
            message,
            warnings,
        })
    }

    /// Reads a room's channel (newest `last_n` matching messages, oldest first).
    pub fn channel_read(&self, args: ChannelReadArgs, who: &Identity) -> Result<ChannelReadOutput> {
        let room = room_for(args.room_id, who)?;
        let limit = page_size(
            "last_n",
            args.last_n,
            50,
            MAX_CHANNEL_PAGE,
            "use `since` or `type` to narrow",
        )?;
        if let Some(t) = &args.type_ {
            short_id("type", t)?;
        }
        let since = args
            .since
            .as_deref()
            .map(|s| parse_time_arg(s, self.now()))
            .transpose()
            .map_err(|e| {
                Error::invalid(
                    "since",
                    e.to_string(),
                    "use RFC 3339, a date, or an age like 24h",
                )
            })?;
        let mut state = self.fresh()?;
        let path = self.paths().channel(&room);
        self.paths().confine(&path)?;
        let ch = state.channels.get(&room, path)?;
        let all = ch.messages();
        // `before`: only messages older than this one (paging back from an answer's oldest).
        let end = match &args.before {
            None => all.len(),
            Some(id) => all.iter().position(|m| m.msg.id == *id).ok_or_else(|| {
                Error::invalid(
                    "before",
                    format!(
                        "no message `{}` in room `{room}`'s channel",
                        crate::validate::printable(id)
                    ),
                    "give the id of a message an earlier channel_read returned",
                )
            })?,
        };
        let matching: Vec<&crate::channel::StoredMessage> = all[..end]
            .iter()
            .filter(|m| args.type_.as_ref().is_none_or(|t| m.msg.type_ == *t))
            .filter(|m| since.is_none_or(|s| m.ts >= s))
            .filter(|m| args.from.as_ref().is_none_or(|f| m.msg.from == *f))
            .filter(|m| args.to.as_ref().is_none_or(|t| m.msg.to == *t))
            .filter(|m| args.ref_.as_ref().is_none_or(|r| m.msg.ref_ == *r))
            .collect();
        let total = matching.len();
        // Newest first until the page or the answer's byte bound is full (the newest one
        // always, however large: a message is at most 1 MiB of body).
        let mut messages: Vec<Message> = Vec::new();
        let mut bytes = 0usize;
        let mut over_bytes = false;
        for m in matching.iter().rev().take(limit) {
            if !messages.is_empty() && bytes + m.len > MAX_READ_BYTES {
                over_bytes = true;
                break;
            }
            bytes += m.len;
            messages.push(ch.message(m)?);
        }
        messages.reverse();
        let more = over_bytes.then(|| {
            format!(
                "an answer holds at most {} MiB of messages: {} older matching messages were \
                 not returned. Fix: read on with before = `{}`, the oldest message here \
                 (`--before` on the command line)",
                MAX_READ_BYTES >> 20,
                total - messages.len(),
                messages.first().map(|m| m.id.as_str()).unwrap_or_default()
            )
        });
        Ok(ChannelReadOutput {
            room_id: room,
            truncated: total > messages.len(),
            messages,
            total,
            malformed_lines: ch.problems().len(),
            more,
        })
    }
}
