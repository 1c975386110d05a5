//! `verify`'s chain check: recomputes every line's link (see [`crate::chain`]) and proves
//! that no chained line was changed, removed, reordered or backdated; with a recorded head,
//! that nothing was rolled back or inserted before it.
//!
//! What each finding means:
//! - a chained line whose `prev` is the link of the line right before it: intact;
//! - `prev` names an earlier line that is not the one right before it: a *fork* — two
//!   branches of the ledger joined by a union merge (git's `merge=union`), or a line
//!   inserted after the fact with a correct link. Forks are reported, not violations; a
//!   recorded head tells the two apart (`--head`);
//! - `prev` names no earlier line: `broken-link` — a line before it was changed, removed or
//!   moved;
//! - a line dated more than [`SKEW_SECONDS`] before the line it links to: `backdated`.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::chain::{GENESIS, Link, SKEW_SECONDS, hex, link_of, parse_hex};
use crate::clock::parse_rfc3339;

/// A chained line that continues from an earlier line than the one right before it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Fork {
    /// 1-based line number of the line.
    pub line: u64,
    /// The line it links to (0 = the start of the ledger).
    pub continues: u64,
}

/// What the chain check found (violations go to the report's list).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChainReport {
    /// Lines carrying a `prev` link.
    pub chained: u64,
    /// Non-blank lines without one (older versions, OSTwin): accepted, not proven.
    pub unchained: u64,
    /// Forks (union merges, or inserted lines), in line order.
    pub forks: Vec<Fork>,
    /// The link of the last line: record it to prove later that nothing was rolled back.
    pub head: String,
    /// The line holding the head (0 for an empty file).
    pub head_line: u64,
    /// The `--head` given, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded_head: Option<String>,
    /// The line holding the recorded head, when it was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded_head_line: Option<u64>,
}

#[derive(Deserialize)]
struct Fields<'a> {
    #[serde(borrow, default)]
    prev: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    ts: Option<std::borrow::Cow<'a, str>>,
}

/// The streaming chain check.
#[derive(Default)]
pub struct ChainCheck {
    /// Line number (1-based) of each link seen; the first wins.
    at: HashMap<Link, u32>,
    /// Per line (index = line - 1): the line it links to (0 = the start, [`NONE`] =
    /// unchained or unlinkable), and its time.
    parent: Vec<u32>,
    ts: Vec<i64>,
    /// The report so far.
    pub report: ChainReport,
}

/// `parent` of a line that links to nothing.
const NONE: u32 = u32::MAX;

/// A violation found by the chain check: (kind, message).
pub type Finding = (&'static str, String);

impl ChainCheck {
    /// Takes the next physical line (without its newline); `line` is its 1-based number.
    pub fn observe(&mut self, bytes: &[u8], line: u64) -> Option<Finding> {
        let link = link_of(bytes);
        self.at.entry(link).or_insert(line as u32);
        self.report.head = hex(&link);
        self.report.head_line = line;
        let fields: Option<Fields<'_>> = serde_json::from_slice(bytes).ok();
        let ts = fields
            .as_ref()
            .and_then(|f| f.ts.as_deref())
            .and_then(|t| parse_rfc3339(t).ok())
            .map_or(i64::MIN, |t| t.0);
        self.ts.push(ts);
        let Some(prev) = fields.as_ref().and_then(|f| f.prev.as_deref()) else {
            self.parent.push(NONE);
            if !bytes.iter().all(u8::is_ascii_whitespace) {
                self.report.unchained += 1;
            }
            return None;
        };
        self.report.chained += 1;
        let Some(target) = parse_hex(prev) else {
            self.parent.push(NONE);
            return Some((
                "bad-link",
                format!(
                    "`prev` is `{}`, not 32 lower-case hex digits",
                    crate::validate::printable(prev)
                ),
            ));
        };
        let to = if prev == GENESIS {
            Some(0)
        } else {
            self.at
                .get(&target)
                .copied()
                .filter(|&l| u64::from(l) < line)
        };
        let Some(to) = to else {
            self.parent.push(NONE);
            return Some((
                "broken-link",
                "its `prev` is the link of no line before it: a line before it was changed, \
                 removed or moved (or this line was)"
                    .to_string(),
            ));
        };
        self.parent.push(to);
        if u64::from(to) + 1 != line {
            self.report.forks.push(Fork {
                line,
                continues: u64::from(to),
            });
        }
        let before = if to == 0 {
            i64::MIN
        } else {
            self.ts[to as usize - 1]
        };
        if ts != i64::MIN && before != i64::MIN && ts < before - SKEW_SECONDS {
            return Some((
                "backdated",
                format!(
                    "dated {} s before line {to}, the line it follows (allowed skew: {SKEW_SECONDS} s)",
                    before - ts
                ),
            ));
        }
        None
    }

    /// Checks a recorded head against the whole file: it must still be there, and every
    /// chained line before it must be in its history. Returns (line, kind, message) per
    /// violation; line 0 when the head is missing.
    pub fn check_head(&mut self, head: &str) -> Vec<(u64, &'static str, String)> {
        self.report.recorded_head = Some(head.to_string());
        let Some(link) = parse_hex(head) else {
            return vec![(
                0,
                "head-missing",
                format!(
                    "`{}` is not a head (32 lower-case hex digits)",
                    crate::validate::printable(head)
                ),
            )];
        };
        let Some(&at) = self.at.get(&link) else {
            return vec![(
                0,
                "head-missing",
                format!(
                    "the recorded head {head} is in no line of the file: lines at or before \
                     it were removed or changed (a rollback or a rewrite)"
                ),
            )];
        };
        self.report.recorded_head_line = Some(u64::from(at));
        let mut history = vec![false; at as usize + 1];
        let mut cur = at;
        while cur > 0 && cur != NONE && !history[cur as usize] {
            history[cur as usize] = true;
            cur = self.parent[cur as usize - 1];
        }
        let mut out = Vec::new();
        for line in 1..at {
            if !history[line as usize] && self.parent[line as usize - 1] != NONE {
                out.push((
                    u64::from(line),
                    "outside-head",
                    format!(
                        "comes before the recorded head (line {at}) but is not in its \
                         history: inserted after the head was recorded, or merged from \
                         another branch (record a new head after a merge)"
                    ),
                ));
            }
        }
        out
    }
}
