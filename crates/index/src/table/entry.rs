//! The ledger entry: one JSON object per line of `.agents/ledger.jsonl`.
//!
//! This module owns the wire format (field names, order, defaults for lines written by
//! others) and the bounds of the seed: summary 4096 bytes, detail 16384 bytes. The normative
//! description is `schemas/ledger-entry.schema.json`; [`crate::schema`] validates against it.
//!
//! Reading is lenient where the seed was (OSTwin lines have no `detail` or `supersedes`,
//! ids like `mem-dec-1775214241555000000-78833`); writing is strict and canonical.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::validate::MAX_ID_BYTES;
use warroom_base::clock::{Timestamp, parse_rfc3339};
use warroom_base::error::{Error, Result};

/// Seed bound on `summary`, in UTF-8 bytes.
pub const MAX_SUMMARY_BYTES: usize = 4096;
/// Seed bound on `detail`, in UTF-8 bytes.
pub const MAX_DETAIL_BYTES: usize = 16_384;
/// Most tags one entry may carry.
pub const MAX_TAGS: usize = 32;
/// Longest tag, in UTF-8 bytes.
pub const MAX_TAG_BYTES: usize = 64;

/// What an entry records. Each kind has its own half-life in search.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Something built and where it lives (a file, a migration, a document).
    Artifact,
    /// A choice made and why, so other rooms do not re-litigate it.
    Decision,
    /// A contract other rooms code against: an API, a schema, an event shape.
    Interface,
    /// A team-wide rule: naming, layout, error style, tooling.
    Convention,
    /// A trap, a flaky thing, a known bug: what to watch out for.
    Warning,
    /// A snippet, import path or command other rooms can use directly.
    Code,
}

impl Kind {
    /// Every kind, in the order of the seed's list.
    pub const ALL: [Kind; 6] = [
        Kind::Artifact,
        Kind::Decision,
        Kind::Interface,
        Kind::Convention,
        Kind::Warning,
        Kind::Code,
    ];

    /// The wire name (`decision`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Artifact => "artifact",
            Kind::Decision => "decision",
            Kind::Interface => "interface",
            Kind::Convention => "convention",
            Kind::Warning => "warning",
            Kind::Code => "code",
        }
    }

    /// Position in [`Kind::ALL`], for per-kind tables.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The seed's half-life in hours: how fast an entry of this kind loses search weight.
    pub fn default_half_life_hours(self) -> f64 {
        match self {
            Kind::Convention => 720.0,
            Kind::Interface => 480.0,
            Kind::Decision => 336.0,
            Kind::Artifact | Kind::Warning => 168.0,
            Kind::Code => 72.0,
        }
    }

    /// Every kind's default half-life, indexed by [`Kind::index`].
    pub fn default_half_lives() -> [f64; 6] {
        let mut h = [0.0; 6];
        for k in Kind::ALL {
            h[k.index()] = k.default_half_life_hours();
        }
        h
    }

    /// One line on what the kind is for, shown to agents.
    pub fn purpose(self) -> &'static str {
        match self {
            Kind::Artifact => "something built and where it lives",
            Kind::Decision => "a choice made and why",
            Kind::Interface => "a contract other rooms code against (API, schema, event)",
            Kind::Convention => "a team-wide rule (naming, layout, tooling)",
            Kind::Warning => "a trap or known problem to watch out for",
            Kind::Code => "a snippet, import path or command to reuse",
        }
    }

    /// Parses a kind named by a caller; the error lists the valid kinds and their purpose.
    pub fn parse(field: &str, text: &str) -> Result<Kind> {
        let t = text.trim().to_ascii_lowercase();
        Kind::ALL
            .into_iter()
            .find(|k| k.as_str() == t)
            .ok_or_else(|| {
                let list: Vec<String> = Kind::ALL
                    .iter()
                    .map(|k| format!("{} ({})", k.as_str(), k.purpose()))
                    .collect();
                Error::invalid(
                    field,
                    format!("`{}` is not a kind", crate::validate::printable(text)),
                    format!("use one of: {}", list.join("; ")),
                )
            })
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who an entry is for (docs/brief.md). Absent on a line, it defaults by kind
/// ([`Audience::of`]), so ledgers written before the field (OSTwin's too) keep their
/// meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Audience {
    /// A working note: it stays in its room's view and channel, and reaches no other
    /// room's brief.
    Room,
    /// For the rooms that depend on this one (its downstream in the plan's DAG).
    Downstream,
    /// Binding on every room of the project (a convention, a project-wide warning).
    Project,
}

impl Audience {
    /// Every audience, in wire order.
    pub const ALL: [Audience; 3] = [Audience::Room, Audience::Downstream, Audience::Project];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Audience::Room => "room",
            Audience::Downstream => "downstream",
            Audience::Project => "project",
        }
    }

    /// A wire name read leniently: an unknown value is no audience (the kind's default),
    /// never a malformed line.
    pub fn from_wire(text: &str) -> Option<Audience> {
        Audience::ALL.into_iter().find(|a| a.as_str() == text)
    }

    /// The audience of an entry of `kind` that names none: conventions bind the project,
    /// everything else is for the publisher's downstream.
    pub fn default_for(kind: Kind) -> Audience {
        match kind {
            Kind::Convention => Audience::Project,
            _ => Audience::Downstream,
        }
    }

    /// The audience in force: the one given, else the kind's default.
    pub fn of(given: Option<Audience>, kind: Kind) -> Audience {
        given.unwrap_or_else(|| Audience::default_for(kind))
    }
}

/// Who may see an entry: the one rule every path that shows entries to a room applies
/// (queries, searches, resources, briefs, overlaps, receipts). `given`: the audience the
/// entry was published with; `own`: the viewer is the publishing room (or has no room: an
/// operator); `downstream`: the viewer's room is downstream of the publisher's in the
/// plan. A working note (`room`) reaches its own room only; an entry said `downstream`
/// only rooms downstream of its publisher; anything else every room.
pub fn may_see(given: Option<Audience>, own: bool, downstream: bool) -> bool {
    own || match given {
        Some(Audience::Room) => false,
        Some(Audience::Downstream) => downstream,
        _ => true,
    }
}

/// An audience's schema in tools and files: its three names, without each variant's docs
/// (the field's description says them; tools/list stays within its byte budget).
pub fn audience_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "string", "enum": ["room", "downstream", "project"]})
}

fn lenient_audience<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Audience>, D::Error> {
    let text: Option<Cow<'de, str>> = Option::deserialize(d)?;
    Ok(text.as_deref().and_then(Audience::from_wire))
}

/// One ledger line, as written and as returned by every tool.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Entry {
    /// Unique id: `mem-<ULID>` when written by this server; any non-empty string ≤ 128 bytes
    /// is accepted from other writers (OSTwin writes `mem-dec-<ns>-<pid>`).
    pub id: String,
    /// When the server stored it, RFC 3339 UTC with seconds precision.
    pub ts: String,
    /// What the entry records.
    pub kind: Kind,
    /// The war-room that published it.
    #[serde(default)]
    pub room_id: String,
    /// The role of the publishing agent (architect, engineer, qa, manager, …).
    #[serde(default)]
    pub author_role: String,
    /// The epic or task reference it belongs to (e.g. `EPIC-007`); may be empty.
    #[serde(default, rename = "ref")]
    pub ref_: String,
    /// Lower-cased topic tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// The fact itself, ≤ 4096 bytes.
    pub summary: String,
    /// Longer explanation, ≤ 16384 bytes; may be empty.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub detail: String,
    /// Id of the entry this one replaces (soft delete), or null.
    #[serde(default)]
    pub supersedes: Option<String>,
    /// The plan whose room published it, when the room belongs to a registered plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_id: Option<String>,
    /// What secret scanning redacted from this entry before it was written (kinds only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redacted: Vec<String>,
    /// Who it is for, when its publisher said (absent: by kind). Left out of the tools'
    /// output schemas, which inline an entry in every result (tools/list's byte budget);
    /// `schemas/ledger-entry.schema.json` names it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_audience"
    )]
    #[schemars(skip)]
    pub audience: Option<Audience>,
}

fn null_as_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(Option::<String>::deserialize(d)?.unwrap_or_default())
}

/// Why a ledger line could not be read as an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError(pub String);

/// A ledger line parsed without copying: strings borrow from the line unless they contain
/// JSON escapes. Cold start reads every line this way; [`Entry`] is the owned form.
#[derive(Debug, Clone, Deserialize)]
pub struct EntryRef<'a> {
    /// See [`Entry::id`].
    #[serde(borrow)]
    pub id: Cow<'a, str>,
    /// See [`Entry::ts`].
    #[serde(borrow)]
    pub ts: Cow<'a, str>,
    /// See [`Entry::kind`].
    pub kind: Kind,
    /// See [`Entry::room_id`].
    #[serde(default, borrow)]
    pub room_id: Cow<'a, str>,
    /// See [`Entry::author_role`].
    #[serde(default, borrow)]
    pub author_role: Cow<'a, str>,
    /// See [`Entry::ref_`].
    #[serde(default, borrow, rename = "ref")]
    pub ref_: Cow<'a, str>,
    /// See [`Entry::tags`].
    #[serde(default, borrow)]
    pub tags: Vec<Cow<'a, str>>,
    /// See [`Entry::summary`].
    #[serde(borrow)]
    pub summary: Cow<'a, str>,
    /// See [`Entry::detail`].
    #[serde(default, borrow)]
    pub detail: Option<Cow<'a, str>>,
    /// See [`Entry::supersedes`].
    #[serde(default, borrow)]
    pub supersedes: Option<Cow<'a, str>>,
    /// See [`Entry::plan_id`].
    #[serde(default, borrow)]
    pub plan_id: Option<Cow<'a, str>>,
    /// See [`Entry::redacted`].
    #[serde(default, borrow)]
    pub redacted: Vec<Cow<'a, str>>,
    /// See [`Entry::audience`]: the wire text, read leniently ([`Audience::from_wire`]).
    #[serde(default, borrow)]
    pub audience: Option<Cow<'a, str>>,
    /// The publisher's retry key, when it gave one (not part of [`Entry`]: the server
    /// keeps it only to recognise a retry).
    #[serde(default, borrow)]
    pub idempotency_key: Option<Cow<'a, str>>,
}

impl<'a> EntryRef<'a> {
    /// Parses one ledger line. Unknown fields are ignored; missing optional fields default.
    pub fn parse(line: &'a [u8]) -> std::result::Result<(EntryRef<'a>, Timestamp), LineError> {
        // A UTF-8 byte order mark (PowerShell writes one) is not part of the entry.
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        let text =
            std::str::from_utf8(line).map_err(|e| LineError(format!("not valid UTF-8 ({e})")))?;
        let entry: EntryRef<'a> =
            serde_json::from_str(text).map_err(|e| LineError(format!("not an entry: {e}")))?;
        if entry.id.is_empty() || entry.id.len() > MAX_ID_BYTES {
            return Err(LineError(format!(
                "`id` must be 1..={MAX_ID_BYTES} bytes, got {}",
                entry.id.len()
            )));
        }
        if entry.summary.is_empty() {
            return Err(LineError("`summary` is empty".into()));
        }
        let ts = parse_rfc3339(&entry.ts).map_err(|e| LineError(format!("bad `ts`: {e}")))?;
        Ok((entry, ts))
    }

    /// The owned form.
    pub fn to_owned_entry(&self) -> Entry {
        let s = |c: &Cow<'_, str>| c.to_string();
        Entry {
            id: s(&self.id),
            ts: s(&self.ts),
            kind: self.kind,
            room_id: s(&self.room_id),
            author_role: s(&self.author_role),
            ref_: s(&self.ref_),
            tags: self.tags.iter().map(s).collect(),
            summary: s(&self.summary),
            detail: self.detail.as_ref().map(s).unwrap_or_default(),
            supersedes: self.supersedes.as_ref().map(s),
            plan_id: self.plan_id.as_ref().map(s),
            redacted: self.redacted.iter().map(s).collect(),
            audience: self.audience.as_deref().and_then(Audience::from_wire),
        }
    }

    /// The audience the line names (an unknown value: none).
    pub fn audience(&self) -> Option<Audience> {
        self.audience.as_deref().and_then(Audience::from_wire)
    }
}

impl<'a> From<&'a Entry> for EntryRef<'a> {
    fn from(e: &'a Entry) -> Self {
        let b = |s: &'a String| Cow::Borrowed(s.as_str());
        EntryRef {
            id: b(&e.id),
            ts: b(&e.ts),
            kind: e.kind,
            room_id: b(&e.room_id),
            author_role: b(&e.author_role),
            ref_: b(&e.ref_),
            tags: e.tags.iter().map(b).collect(),
            summary: b(&e.summary),
            detail: Some(b(&e.detail)),
            supersedes: e.supersedes.as_ref().map(b),
            plan_id: e.plan_id.as_ref().map(b),
            redacted: e.redacted.iter().map(b).collect(),
            audience: e.audience.map(|a| Cow::Borrowed(a.as_str())),
            idempotency_key: None,
        }
    }
}

impl Entry {
    /// Parses one ledger line into the owned form (see [`EntryRef::parse`]).
    pub fn from_line(line: &[u8]) -> std::result::Result<(Entry, Timestamp), LineError> {
        EntryRef::parse(line).map(|(e, ts)| (e.to_owned_entry(), ts))
    }

    /// The canonical one-line JSON form (no trailing newline). JSON escapes every control
    /// character, so the result never contains a raw `\n`.
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("an entry always serializes")
    }
}

/// Normalizes tags as the seed does (trim, lower-case) and checks their bounds.
pub fn normalize_tags(tags: &[String]) -> Result<Vec<String>> {
    if tags.len() > MAX_TAGS {
        return Err(Error::invalid(
            "tags",
            format!("{} tags given, the limit is {MAX_TAGS}", tags.len()),
            "keep the few tags that name the topic",
        ));
    }
    let mut out: Vec<String> = Vec::with_capacity(tags.len());
    for (i, t) in tags.iter().enumerate() {
        let norm = t.trim().to_lowercase();
        let field = format!("tags[{i}]");
        crate::validate::bytes_within(
            &field,
            &norm,
            MAX_TAG_BYTES,
            &format!("use a short topic word such as `auth` (≤ {MAX_TAG_BYTES} bytes)"),
        )?;
        if norm.chars().any(char::is_control) {
            return Err(Error::invalid(
                field,
                "it contains a control character",
                "use plain words",
            ));
        }
        if !out.contains(&norm) {
            out.push(norm);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ostwin_lines_without_detail_or_supersedes() {
        let line = br#"{"id":"mem-dec-1775214241555000000-78833","ts":"2026-04-03T11:04:01Z","kind":"decision","room_id":"room-001","author_role":"architect","ref":"EPIC-001","tags":["auth"],"summary":"Use JWT"}"#;
        let (e, ts) = Entry::from_line(line).unwrap();
        assert_eq!(e.id, "mem-dec-1775214241555000000-78833");
        assert_eq!(e.detail, "");
        assert_eq!(e.supersedes, None);
        assert_eq!(ts.to_rfc3339(), "2026-04-03T11:04:01Z");
    }

    #[test]
    fn unknown_fields_are_ignored_and_null_detail_is_empty() {
        let line = br#"{"id":"x","ts":"2026-04-03T11:04:01Z","kind":"code","summary":"s","detail":null,"future":{"a":1}}"#;
        let (e, _) = Entry::from_line(line).unwrap();
        assert_eq!(e.detail, "");
    }

    #[test]
    fn malformed_lines_say_why() {
        for (line, why) in [
            (&b"{\"id\":\"x\""[..], "not an entry"),
            (
                br#"{"id":"","ts":"2026-04-03T11:04:01Z","kind":"code","summary":"s"}"#,
                "`id`",
            ),
            (
                br#"{"id":"x","ts":"yesterday","kind":"code","summary":"s"}"#,
                "bad `ts`",
            ),
            (
                br#"{"id":"x","ts":"2026-04-03T11:04:01Z","kind":"memo","summary":"s"}"#,
                "memo",
            ),
            (b"\xff\xfe", "UTF-8"),
        ] {
            let err = Entry::from_line(line).unwrap_err();
            assert!(err.0.contains(why), "{} should mention {why}", err.0);
        }
    }

    #[test]
    fn written_lines_have_the_seed_field_order() {
        let e = Entry {
            id: "mem-1".into(),
            ts: "2026-11-25T10:30:00Z".into(),
            kind: Kind::Decision,
            room_id: "room-042".into(),
            author_role: "architect".into(),
            ref_: "EPIC-007".into(),
            tags: vec!["auth".into()],
            summary: "line\nbreak".into(),
            detail: String::new(),
            supersedes: None,
            plan_id: None,
            redacted: vec![],
            audience: None,
        };
        let line = e.to_line();
        assert!(!line.contains('\n'));
        assert!(line.starts_with(r#"{"id":"mem-1","ts":"2026-11-25T10:30:00Z","kind":"decision","room_id":"room-042","author_role":"architect","ref":"EPIC-007","tags":["auth"],"summary":"line\nbreak","detail":"","supersedes":null}"#), "{line}");
    }

    #[test]
    fn tags_are_trimmed_lowercased_and_bounded() {
        let t = normalize_tags(&[" Auth ".into(), "DB".into(), "auth".into()]).unwrap();
        assert_eq!(t, vec!["auth", "db"]);
        assert!(normalize_tags(&["  ".into()]).is_err());
        assert!(normalize_tags(&vec!["a".to_string(); 33]).is_err());
        assert!(normalize_tags(&["x".repeat(65)]).is_err());
        assert!(Kind::parse("kind", "Decision").is_ok());
        let e = Kind::parse("kind", "memo").unwrap_err().to_string();
        assert!(e.contains("convention") && e.contains("`kind`"), "{e}");
    }
}
