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
        if let Some(k) = &key
            && let Some(first) = state
                .channels
                .get(&room, path.clone())?
                .by_idempotency_key(k)
        {
            let m = &first.msg;
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
        let (message, warnings) = match written {
            Ok(stored) => (stored.msg, Vec::new()),
            Err(w) => (msg, vec![w]),
        };
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
        let matching: Vec<&Message> = ch
            .messages()
            .iter()
            .filter(|m| args.type_.as_ref().is_none_or(|t| m.msg.type_ == *t))
            .filter(|m| since.is_none_or(|s| m.ts >= s))
            .filter(|m| args.from.as_ref().is_none_or(|f| m.msg.from == *f))
            .filter(|m| args.to.as_ref().is_none_or(|t| m.msg.to == *t))
            .filter(|m| args.ref_.as_ref().is_none_or(|r| m.msg.ref_ == *r))
            .map(|m| &m.msg)
            .collect();
        let total = matching.len();
        let messages: Vec<Message> = matching[total.saturating_sub(limit)..]
            .iter()
            .map(|m| (*m).clone())
            .collect();
        Ok(ChannelReadOutput {
            room_id: room,
            truncated: total > messages.len(),
            messages,
            total,
            malformed_lines: ch.problems().len(),
        })
    }
}
