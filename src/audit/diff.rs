//! `diff A B`: what changed between two versions of a ledger, and whether the change was
//! append-only.
//!
//! Every non-blank line of A must still be in B, byte for byte (as a multiset: position may
//! change, as after a union merge of two branches). A line of A that is not in B is a
//! **violation** — `changed` if B has a line with the same id, `missing` otherwise. Lines of
//! B not matched by A are **additions**, wherever they are; additions that supersede an
//! entry are reported with a unified text diff of the old and new summary and detail.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use similar::TextDiff;

use super::{Line, lines};
pub use crate::api::audit::{DiffCounts, DiffViolation, SupersedeChange};
use crate::entry::{Entry, EntryRef, Kind};

/// Longest text diff kept per field (bytes); longer ones are clipped with a note.
const MAX_DIFF_BYTES: usize = 8_192;

/// Entries added for one room and kind.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AddedGroup {
    /// Room.
    pub room_id: String,
    /// Kind.
    pub kind: Kind,
    /// The added entries, in file order.
    pub entries: Vec<Entry>,
}

/// A line added in B that is not a valid entry.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct MalformedAddition {
    /// Line number in B.
    pub line: u64,
    /// Byte offset in B.
    pub offset: u64,
    /// Why it is not an entry.
    pub message: String,
}

/// The full report.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DiffReport {
    /// What A is (file, revision, or time).
    pub a: String,
    /// What B is.
    pub b: String,
    /// Counts.
    pub counts: DiffCounts,
    /// Added entries that supersede nothing, grouped by room and kind.
    pub added: Vec<AddedGroup>,
    /// Supersedes made by added entries, with text diffs.
    pub superseded: Vec<SupersedeChange>,
    /// Append-only violations.
    pub violations: Vec<DiffViolation>,
    /// Added lines that are not entries.
    pub malformed_added: Vec<MalformedAddition>,
}

impl DiffReport {
    /// True if no line of A was changed or lost.
    pub fn append_only(&self) -> bool {
        self.violations.is_empty()
    }
}

/// A unified diff of two texts, clipped to a readable size.
pub fn text_diff(old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let mut d = TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(2)
        .header("old", "new")
        .to_string();
    if d.len() > MAX_DIFF_BYTES {
        let mut end = MAX_DIFF_BYTES;
        while !d.is_char_boundary(end) {
            end -= 1;
        }
        d.truncate(end);
        d.push_str("\n… (diff clipped)\n");
    }
    d
}

fn with_newline(s: &str) -> String {
    if s.is_empty() || s.ends_with('\n') {
        s.to_string()
    } else {
        format!("{s}\n")
    }
}

fn pretty(bytes: &[u8]) -> String {
    serde_json::from_slice::<serde_json::Value>(bytes)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| String::from_utf8_lossy(bytes).into_owned())
        + "\n"
}

fn id_of(bytes: &[u8]) -> Option<String> {
    serde_json::from_slice::<serde_json::Value>(bytes)
        .ok()?
        .get("id")?
        .as_str()
        .map(str::to_string)
}

/// Compares two versions of a ledger.
pub fn diff(a_label: &str, a: &[u8], b_label: &str, b: &[u8]) -> DiffReport {
    let a_lines: Vec<_> = lines(a).into_iter().filter(|l| !l.is_blank()).collect();
    let b_lines: Vec<_> = lines(b).into_iter().filter(|l| !l.is_blank()).collect();
    // B's lines as a multiset: content → indices not yet matched (consumed front first).
    let mut unmatched: HashMap<&[u8], std::collections::VecDeque<usize>> = HashMap::new();
    for (i, l) in b_lines.iter().enumerate() {
        unmatched.entry(l.bytes).or_default().push_back(i);
    }
    let mut matched = vec![false; b_lines.len()];
    let b_by_id: HashMap<String, usize> = b_lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| id_of(l.bytes).map(|id| (id, i)))
        .collect();
    let mut violations = Vec::new();
    for l in &a_lines {
        if let Some(i) = unmatched.get_mut(l.bytes).and_then(|q| q.pop_front()) {
            matched[i] = true;
            continue;
        }
        let id = id_of(l.bytes);
        let same = id.as_ref().and_then(|id| b_by_id.get(id)).copied();
        if let Some(i) = same {
            // B's rewritten version of this line is the other half of the violation, not
            // an addition.
            matched[i] = true;
        }
        violations.push(DiffViolation {
            kind: if same.is_some() { "changed" } else { "missing" }.into(),
            line: l.no,
            offset: l.offset,
            id,
            before: String::from_utf8_lossy(l.bytes).into_owned(),
            after_line: same.map(|i| b_lines[i].no),
            diff: same.map(|i| text_diff(&pretty(l.bytes), &pretty(b_lines[i].bytes))),
        });
    }
    // Every entry of either version, by id, to show what an addition superseded.
    let mut known: HashMap<String, Entry> = HashMap::new();
    for l in a_lines.iter().chain(b_lines.iter()) {
        if let Ok((e, _)) = EntryRef::parse(l.bytes) {
            known
                .entry(e.id.to_string())
                .or_insert_with(|| e.to_owned_entry());
        }
    }
    let added = b_lines
        .iter()
        .enumerate()
        .filter(|(i, _)| !matched[*i])
        .map(|(_, l)| l);
    report(
        a_label,
        b_label,
        added,
        |id| known.get(id).cloned(),
        violations,
    )
}

/// The report of `added` lines (violations given): additions grouped by room and kind,
/// supersedes with text diffs against `known(id)`, malformed lines.
pub fn report<'a>(
    a_label: &str,
    b_label: &str,
    added_lines: impl Iterator<Item = &'a Line<'a>>,
    known: impl Fn(&str) -> Option<Entry>,
    violations: Vec<DiffViolation>,
) -> DiffReport {
    let mut groups: Vec<AddedGroup> = Vec::new();
    let mut superseded = Vec::new();
    let mut malformed_added = Vec::new();
    let mut added = 0;
    for l in added_lines.filter(|l| !l.is_blank()) {
        let entry = match EntryRef::parse(l.bytes) {
            Ok((e, _)) => e.to_owned_entry(),
            Err(e) => {
                malformed_added.push(MalformedAddition {
                    line: l.no,
                    offset: l.offset,
                    message: e.0,
                });
                continue;
            }
        };
        added += 1;
        if let Some(target) = &entry.supersedes {
            let old = known(target);
            let (os, od) = old.as_ref().map_or((String::new(), String::new()), |o| {
                (o.summary.clone(), o.detail.clone())
            });
            superseded.push(SupersedeChange {
                summary_diff: text_diff(&with_newline(&os), &with_newline(&entry.summary)),
                detail_diff: text_diff(&with_newline(&od), &with_newline(&entry.detail)),
                old,
                new: entry,
            });
            continue;
        }
        match groups
            .iter_mut()
            .find(|g| g.room_id == entry.room_id && g.kind == entry.kind)
        {
            Some(g) => g.entries.push(entry),
            None => groups.push(AddedGroup {
                room_id: entry.room_id.clone(),
                kind: entry.kind,
                entries: vec![entry],
            }),
        }
    }
    groups.sort_by(|x, y| (&x.room_id, x.kind).cmp(&(&y.room_id, y.kind)));
    DiffReport {
        a: a_label.to_string(),
        b: b_label.to_string(),
        counts: DiffCounts {
            added,
            superseded: superseded.len(),
            violations: violations.len(),
            malformed_added: malformed_added.len(),
        },
        added: groups,
        superseded,
        violations,
        malformed_added,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(id: &str, summary: &str, supersedes: Option<&str>) -> String {
        let sup = supersedes.map_or("null".to_string(), |s| format!("\"{s}\""));
        format!(
            r#"{{"id":"{id}","ts":"2026-11-20T00:00:00Z","kind":"decision","room_id":"r1","author_role":"a","ref":"","tags":[],"summary":"{summary}","detail":"","supersedes":{sup}}}"#
        )
    }

    #[test]
    fn additions_supersedes_and_violations() {
        let a = [
            e("1", "bcrypt", None),
            e("2", "jwt", None),
            e("3", "redis", None),
        ]
        .join("\n")
            + "\n";
        let edited = e("2", "JWT with RS256", None);
        let b = [
            e("1", "bcrypt", None),
            edited,
            e("4", "argon2id", Some("1")),
            e("5", "cache", None),
        ]
        .join("\n")
            + "\n";
        let r = diff("A", a.as_bytes(), "B", b.as_bytes());
        assert_eq!(r.counts.added, 2);
        assert_eq!(r.counts.superseded, 1);
        assert!(
            r.superseded[0].summary_diff.contains("-bcrypt")
                && r.superseded[0].summary_diff.contains("+argon2id")
        );
        assert_eq!(r.violations.len(), 2);
        assert_eq!(
            (r.violations[0].kind.as_str(), r.violations[0].line),
            ("changed", 2)
        );
        assert!(
            r.violations[0]
                .diff
                .as_ref()
                .unwrap()
                .contains("+  \"summary\": \"JWT with RS256\"")
        );
        assert_eq!(
            (r.violations[1].kind.as_str(), r.violations[1].line),
            ("missing", 3)
        );
        assert_eq!(r.added[0].entries[0].id, "5");
        assert_eq!(
            r.added.iter().map(|g| g.entries.len()).sum::<usize>(),
            1,
            "the edited line is not an addition"
        );
    }

    #[test]
    fn reordered_union_merges_are_not_violations() {
        let base = e("1", "x", None);
        let a = format!("{base}\n{}\n", e("2", "left", None));
        let b = format!(
            "{base}\n{}\n{}\n",
            e("3", "right", None),
            e("2", "left", None)
        );
        let r = diff("A", a.as_bytes(), "B", b.as_bytes());
        assert!(r.append_only());
        assert_eq!(r.counts.added, 1);
    }

    #[test]
    fn a_repaired_torn_tail_is_not_a_violation_but_a_malformed_addition_is_listed() {
        let a = format!("{}\n{{\"id\":\"torn", e("1", "x", None));
        let b = format!(
            "{}\n{{\"id\":\"torn\n{}\n",
            e("1", "x", None),
            e("2", "y", None)
        );
        let r = diff("A", a.as_bytes(), "B", b.as_bytes());
        assert!(r.append_only(), "{:?}", r.violations);
        assert_eq!(r.counts.added, 1);
        let c = format!("{}\nnot json\n", e("1", "x", None));
        let r = diff("A", a.as_bytes(), "C", c.as_bytes());
        assert_eq!(r.violations.len(), 1, "the torn line vanished");
        assert_eq!(r.malformed_added.len(), 1);
    }
}
