//! Arguments and results of `channel_post` and `channel_read`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::channel::Message;

/// Arguments of `channel_post`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ChannelPostArgs {
    /// The room whose channel to write. Defaults to (and, with a room identity, must be)
    /// your own room.
    #[serde(default)]
    pub room_id: Option<String>,
    /// Sending role. Defaults to WARROOM_ROLE.
    #[serde(default)]
    pub from: Option<String>,
    /// Addressed role (manager, engineer, qa, …); empty for everyone in the room.
    #[serde(default)]
    pub to: Option<String>,
    /// Message type: task, done, review, pass, fail, fix, error, signoff — or any other
    /// short word. A room's latest `done` message is shown to downstream rooms.
    #[serde(rename = "type")]
    pub type_: String,
    /// The epic or task ref, e.g. "EPIC-001".
    #[serde(default, rename = "ref")]
    pub ref_: Option<String>,
    /// The message text, at most 65536 bytes.
    pub body: String,
}

/// Arguments of `channel_read`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ChannelReadArgs {
    /// The room whose channel to read. Defaults to (and, with a room identity, must be)
    /// your own room: a room's conversation is private to it.
    #[serde(default)]
    pub room_id: Option<String>,
    /// Only messages of this type (e.g. "done").
    #[serde(default, rename = "type")]
    pub type_: Option<String>,
    /// Only messages at or after this time (RFC 3339, a date, or an age like "24h").
    #[serde(default)]
    pub since: Option<String>,
    /// Only the newest N messages (1–200, default 50), returned oldest first.
    #[serde(default)]
    #[schemars(range(min = 1, max = 200))]
    pub last_n: Option<u32>,
}

/// Result of `channel_post`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ChannelPostOutput {
    /// The room.
    pub room_id: String,
    /// The stored message.
    pub message: Message,
    /// Kinds of secrets redacted from the body before writing.
    pub redacted: Vec<String>,
}

/// Result of `channel_read`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ChannelReadOutput {
    /// The room.
    pub room_id: String,
    /// Matching messages, oldest first.
    pub messages: Vec<Message>,
    /// How many messages matched in all.
    pub total: usize,
    /// True if more matched than were returned.
    pub truncated: bool,
    /// Malformed lines skipped in the channel file.
    pub malformed_lines: usize,
}
