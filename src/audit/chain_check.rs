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
//! - a line dated more than [`SKEW_SECONDS`] before the line it links to: `backdated` —
//!   unless that line is the odd one out (dated ahead of both the line before it and the
//!   line after it): then *it* is `future-dated`, and the chain's time goes on from the
//!   lines around it. A line dated beyond the verifier's now (plus the skew) is
//!   `future-dated` too. One skewed clock or bad merge is reported, and writers keep
//!   working after it ([`crate::ledger::Ledger`] warns instead of refusing);
//! - a line without `prev` after a chained line: `unchained` — this server never writes
//!   one, so it was inserted (projects where an unchained writer really appends beside us
//!   set `allow_unchained`). Unchained lines are accepted only as a prefix written by older
//!   versions, and even there a line dated before the ledger's first line, or unchained
//!   lines before a line that links to the start of the ledger, are `unchained` too.

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

/// The streaming chain check. Cloneable, so a verification can be kept and continued
/// with the lines appended after it ([`super::verify::Verifier`]).
#[derive(Clone, Default, Serialize, Deserialize)]
pub struct ChainCheck {
    /// Unchained lines after chained ones are accepted (a documented project setting).
    pub allow_unchained: bool,
    /// The verifier's now (seconds): lines dated beyond it plus the skew are future-dated.
    pub now: Option<i64>,
    /// Findings about an earlier line, learnt from a later one: (line, kind, message).
    /// (Emptied by every feed that reads it, so never kept.)
    #[serde(skip)]
    pub late: Vec<(u64, &'static str, String)>,
    /// Lines already reported future-dated.
    future: std::collections::HashSet<u32>,
    /// Time of the first line, if it has one.
    first_ts: Option<i64>,
    /// Line number (1-based) of each link seen; the first wins.
    #[serde(with = "pairs")]
    at: foldhash::HashMap<Link, u32>,
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

/// What the chain check reads of one line, from the line alone — so that lines can be
/// read on several threads and taken in order by [`ChainCheck::observe_read`].
pub struct LineRead {
    link: Link,
    /// Its time (`i64::MIN` when it has none that parses).
    ts: i64,
    prev: Prev,
    blank: bool,
}

/// A line's `prev`.
enum Prev {
    None,
    /// Not 32 lower-case hex digits (printable).
    Bad(String),
    Genesis,
    Link(Link),
}

impl LineRead {
    /// [`LineRead::of`] every line, in order, on up to `threads` threads.
    pub fn of_lines(lines: &[&[u8]], threads: usize) -> Vec<LineRead> {
        crate::par::map(lines, threads, 256, "chain check", |l| LineRead::of(l))
    }

    /// Reads `bytes` (a physical line without its newline).
    pub fn of(bytes: &[u8]) -> LineRead {
        let fields: Option<Fields<'_>> = serde_json::from_slice(bytes).ok();
        let ts = fields
            .as_ref()
            .and_then(|f| f.ts.as_deref())
            .and_then(|t| parse_rfc3339(t).ok())
            .map_or(i64::MIN, |t| t.0);
        let prev = match fields.as_ref().and_then(|f| f.prev.as_deref()) {
            None => Prev::None,
            Some(p) => match parse_hex(p) {
                None => Prev::Bad(crate::validate::printable(p)),
                Some(_) if p == GENESIS => Prev::Genesis,
                Some(target) => Prev::Link(target),
            },
        };
        LineRead {
            link: link_of(bytes),
            ts,
            prev,
            blank: bytes.iter().all(u8::is_ascii_whitespace),
        }
    }
}

impl ChainCheck {
    /// Takes the next physical line (without its newline); `line` is its 1-based number.
    pub fn observe(&mut self, bytes: &[u8], line: u64) -> Option<Finding> {
        self.observe_read(LineRead::of(bytes), line)
    }

    /// Takes the next line as [`LineRead::of`] read it; `line` is its 1-based number.
    pub fn observe_read(&mut self, read: LineRead, line: u64) -> Option<Finding> {
        let LineRead {
            link,
            ts,
            prev,
            blank,
        } = read;
        self.at.entry(link).or_insert(line as u32);
        self.report.head = hex(&link);
        self.report.head_line = line;
        self.ts.push(ts);
        if line == 1 && ts != i64::MIN {
            self.first_ts = Some(ts);
        }
        let future = self.future_now(ts, line);
        let target = match prev {
            Prev::None => {
                self.parent.push(NONE);
                if blank {
                    return future;
                }
                self.report.unchained += 1;
                return self.unchained_finding(ts).or(future);
            }
            Prev::Bad(printable) => {
                self.report.chained += 1;
                self.parent.push(NONE);
                return Some((
                    "bad-link",
                    format!("`prev` is `{printable}`, not 32 lower-case hex digits"),
                ));
            }
            Prev::Genesis => None,
            Prev::Link(target) => Some(target),
        };
        self.report.chained += 1;
        let to = match target {
            None => Some(0),
            Some(target) => self
                .at
                .get(&target)
                .copied()
                .filter(|&l| u64::from(l) < line),
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
        if to == 0 && self.report.unchained > 0 && !self.allow_unchained {
            return Some((
                "unchained",
                format!(
                    "links to the start of the ledger, yet {} unchained line(s) come before \
                     it: they were inserted before the chain began",
                    self.report.unchained
                ),
            ));
        }
        self.backdated(ts, to).or(future)
    }

    /// `future-dated` for a line dated beyond the verifier's now plus the skew.
    fn future_now(&mut self, ts: i64, line: u64) -> Option<Finding> {
        let now = self.now?;
        if ts == i64::MIN || ts <= now + SKEW_SECONDS {
            return None;
        }
        self.future.insert(line as u32);
        Some((
            "future-dated",
            format!(
                "dated {} s after the verifier's now (allowed skew: {SKEW_SECONDS} s): a clock \
                 ahead, or a line merged from one",
                ts - now
            ),
        ))
    }

    /// An unchained line is a violation after a chained one, or when dated before the
    /// ledger's first line.
    fn unchained_finding(&self, ts: i64) -> Option<Finding> {
        if self.allow_unchained {
            return None;
        }
        if self.report.chained > 0 {
            return Some((
                "unchained",
                "has no `prev` link but comes after chained lines; this server never writes \
                 such a line, so it was inserted (set `allow_unchained: true` in \
                 .agents/warroom.yaml if another writer really appends unchained lines)"
                    .to_string(),
            ));
        }
        match self.first_ts {
            Some(first) if ts != i64::MIN && ts < first - SKEW_SECONDS => Some((
                "unchained",
                format!(
                    "has no `prev` link and is dated {} s before the ledger's first line",
                    first - ts
                ),
            )),
            _ => None,
        }
    }

    /// `backdated` for a line dated more than the skew before the line it links to — or,
    /// when that line is the odd one out (ahead of its own predecessor too), that line is
    /// reported `future-dated` instead and this one compared with the line before it.
    fn backdated(&mut self, ts: i64, to: u32) -> Option<Finding> {
        if to == 0 || ts == i64::MIN {
            return None;
        }
        let before = self.ts[to as usize - 1];
        if before == i64::MIN || ts >= before - SKEW_SECONDS {
            return None;
        }
        let grand = self.parent[to as usize - 1];
        let grand_ts = match grand {
            0 | NONE => None,
            g => Some(self.ts[g as usize - 1]).filter(|&t| t != i64::MIN),
        };
        if let Some(g) = grand_ts
            && ts >= g - SKEW_SECONDS
            && before > g + SKEW_SECONDS
        {
            if self.future.insert(to) {
                self.late.push((
                    u64::from(to),
                    "future-dated",
                    format!(
                        "dated {} s after the line that follows it (and {} s after the line \
                         before it): a clock ahead, or a line merged from one",
                        before - ts,
                        before - g
                    ),
                ));
            }
            return None;
        }
        Some((
            "backdated",
            format!(
                "dated {} s before line {to}, the line it follows (allowed skew: {SKEW_SECONDS} s)",
                before - ts
            ),
        ))
    }

    /// Checks a recorded head against the whole file: it must still be there, and every
    /// chained line before it must be in its history. Returns (line, kind, message) per
    /// violation; line 0 when the head is missing. Sets the report's `recorded_head` and
    /// `recorded_head_line`.
    pub fn check_head(&mut self, head: &str) -> Vec<(u64, &'static str, String)> {
        let (line, found) = self.head_findings(head);
        self.report.recorded_head = Some(head.to_string());
        self.report.recorded_head_line = line;
        found
    }

    /// [`ChainCheck::check_head`] without changing the check: the line holding `head`
    /// (when found) and the findings.
    #[allow(clippy::type_complexity)]
    pub fn head_findings(&self, head: &str) -> (Option<u64>, Vec<(u64, &'static str, String)>) {
        let Some(link) = parse_hex(head) else {
            return (
                None,
                vec![(
                    0,
                    "head-missing",
                    format!(
                        "`{}` is not a head (32 lower-case hex digits)",
                        crate::validate::printable(head)
                    ),
                )],
            );
        };
        let Some(&at) = self.at.get(&link) else {
            return (
                None,
                vec![(
                    0,
                    "head-missing",
                    format!(
                        "the recorded head {head} is in no line of the file: lines at or before \
                     it were removed or changed (a rollback or a rewrite)"
                    ),
                )],
            );
        };
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
        (Some(u64::from(at)), out)
    }
}

/// A map whose keys are not strings, kept as a list of pairs (JSON keys are strings).
mod pairs {
    use foldhash::HashMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::chain::Link;

    /// Links as their hex form (a JSON array of 16 numbers is twice as long).
    pub fn serialize<S: Serializer>(m: &HashMap<Link, u32>, s: S) -> Result<S::Ok, S::Error> {
        m.iter()
            .map(|(k, v)| (crate::chain::hex(k), *v))
            .collect::<Vec<_>>()
            .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<HashMap<Link, u32>, D::Error> {
        Vec::<(String, u32)>::deserialize(d)?
            .into_iter()
            .map(|(k, v)| {
                crate::chain::parse_hex(&k)
                    .map(|k| (k, v))
                    .ok_or_else(|| serde::de::Error::custom("a link is not 32 hex digits"))
            })
            .collect()
    }
}
