//! Arguments and results of `channel_post` and `channel_read`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::channel::Message;

/// Arguments of `channel_post`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ChannelPostArgs {
    /// Your room (the only one, with an identity).
    #[serde(default)]
    pub room_id: Option<String>,
    /// Default: your role.
    #[serde(default)]
    pub from: Option<String>,
    /// Addressed role; empty = everyone.
    #[serde(default)]
    pub to: Option<String>,
    /// task, done, review, pass, fail, fix, error, signoff, or another word.
    #[serde(rename = "type")]
    pub type_: String,
    /// Epic/task ref.
    #[serde(default, rename = "ref")]
    pub ref_: Option<String>,
    /// Text, ≤ 1 MiB.
    pub body: String,
    /// Retry key (≤ 128 bytes): same key and content, first result.
    #[serde(default)]
    pub idempotency_key: Option<String>,
}

/// Arguments of `channel_read`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ChannelReadArgs {
    /// Your room (the only one, with an identity).
    #[serde(default)]
    pub room_id: Option<String>,
    /// Only this type, e.g. done.
    #[serde(default, rename = "type")]
    pub type_: Option<String>,
    /// From: RFC 3339, a date, or an age (24h).
    #[serde(default)]
    pub since: Option<String>,
    /// Only from this role.
    #[serde(default)]
    pub from: Option<String>,
    /// Only to this role.
    #[serde(default)]
    pub to: Option<String>,
    /// Only this ref.
    #[serde(default, rename = "ref")]
    pub ref_: Option<String>,
    /// Newest N (1–200, default 50).
    #[serde(default)]
    #[schemars(range(min = 1, max = 200))]
    pub last_n: Option<u32>,
    /// Page back.
    #[serde(default)]
    pub before: Option<String>,
}

/// Result of `channel_post`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ChannelPostOutput {
    /// The room.
    pub room_id: String,
    /// The stored message.
    pub message: Message,
    /// Kinds of secrets redacted from the body.
    pub redacted: Vec<String>,
    /// Not done after the write, which is kept: do not retry.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Result of `channel_read`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ChannelReadOutput {
    /// The room.
    pub room_id: String,
    /// Matching messages, oldest first.
    pub messages: Vec<Message>,
    /// Matched in all.
    pub total: usize,
    /// More matched than returned.
    pub truncated: bool,
    /// Malformed lines skipped.
    pub malformed_lines: usize,
    /// Set when the byte bound left messages out: how to read on (left out of the
    /// output schema for tools/list's byte budget).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub more: Option<String>,
}
