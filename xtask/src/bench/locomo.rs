//! LoCoMo (Maharana et al., ACL 2024) as a retrieval benchmark: every dialogue turn one
//! ledger entry, every QA question one search, its evidence turns the relevant entries.
//!
//! The data is read at benchmark time from `../shared/bench-data/locomo10.json` (or a path
//! given); it is licensed CC BY-NC 4.0 and is never copied into this repository.
//!
//! Choices, pinned here so figures are comparable between runs:
//! - Entry: `id` = the turn's `dia_id` (`D1:3`), `summary` = `"<speaker>: <text>"`, kind
//!   `artifact` (168 h half-life, the one the seed's decay was measured with), `ts` = the
//!   session's date and time (turns of a session share it; ties go by position).
//! - The server's now is the last session's time: questions are asked after the dialogue.
//! - Categories by the numbers in the file, named as in the LoCoMo repository's evaluation
//!   code: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial. Headline
//!   figures use categories 1–4 (5 asks about things that were never said).
//! - Evidence ids that name no turn (a few are malformed in the file) are dropped; a
//!   question left with none is skipped and counted.

use std::path::Path;

use anyhow::Context as _;
use serde_json::Value;

use super::quality::{Case, Group};
use warroom_memory::clock::{Timestamp, parse_rfc3339};
use warroom_memory::entry::{Entry, Kind};

/// Category names, indexed by the number in the file.
pub const CATEGORIES: [&str; 6] = [
    "?",
    "multi-hop",
    "temporal",
    "open-domain",
    "single-hop",
    "adversarial",
];

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// Parses LoCoMo's session times, e.g. `1:56 pm on 8 May, 2023`.
pub fn parse_session_time(text: &str) -> Option<Timestamp> {
    let (clock, date) = text.split_once(" on ")?;
    let (hm, ampm) = clock.trim().split_once(' ')?;
    let (h, m) = hm.split_once(':')?;
    let (mut h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
    match ampm.to_ascii_lowercase().as_str() {
        "pm" if h < 12 => h += 12,
        "am" if h == 12 => h = 0,
        "am" | "pm" => {}
        _ => return None,
    }
    let mut parts = date.split([' ', ',']).filter(|s| !s.is_empty());
    let day: u32 = parts.next()?.parse().ok()?;
    let month_name = parts.next()?;
    let month = MONTHS
        .iter()
        .position(|name| name.eq_ignore_ascii_case(month_name))?
        + 1;
    let year: u32 = parts.next()?.parse().ok()?;
    parse_rfc3339(&format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:00Z")).ok()
}

/// Loads every conversation as one group. Returns the groups and the number of questions
/// skipped for want of resolvable evidence.
pub fn load(path: &Path) -> anyhow::Result<(Vec<Group>, usize)> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading LoCoMo from {}", path.display()))?;
    let data: Vec<Value> = serde_json::from_str(&text).context("LoCoMo is not a JSON array")?;
    let mut groups = Vec::new();
    let mut skipped = 0;
    for (ci, conv) in data.iter().enumerate() {
        let c = &conv["conversation"];
        let mut entries = Vec::new();
        let mut now = Timestamp(0);
        for n in 1.. {
            let (Some(turns), Some(when)) = (
                c[format!("session_{n}")].as_array(),
                c[format!("session_{n}_date_time")].as_str(),
            ) else {
                break;
            };
            let ts = parse_session_time(when)
                .with_context(|| format!("conversation {ci}: session time {when:?}"))?;
            now = now.max(ts);
            for t in turns {
                let (Some(id), Some(speaker), Some(body)) = (
                    t["dia_id"].as_str(),
                    t["speaker"].as_str(),
                    t["text"].as_str(),
                ) else {
                    continue;
                };
                entries.push(Entry {
                    id: id.to_string(),
                    ts: ts.to_rfc3339(),
                    kind: Kind::Artifact,
                    room_id: "locomo".into(),
                    author_role: "speaker".into(),
                    ref_: String::new(),
                    tags: Vec::new(),
                    summary: format!("{speaker}: {body}"),
                    detail: String::new(),
                    supersedes: None,
                    plan_id: None,
                    redacted: Vec::new(),
                    audience: None,
                });
            }
        }
        let ids: std::collections::HashSet<&str> = entries.iter().map(|e| e.id.as_str()).collect();
        let mut cases = Vec::new();
        for q in conv["qa"].as_array().into_iter().flatten() {
            let category = q["category"].as_u64().unwrap_or(0) as usize;
            let relevant: Vec<String> = q["evidence"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .flat_map(|e| e.split([';', ',', ' ']))
                .map(str::trim)
                .filter(|e| ids.contains(e))
                .map(str::to_string)
                .collect();
            let Some(question) = q["question"].as_str() else {
                continue;
            };
            if relevant.is_empty() {
                skipped += 1;
                continue;
            }
            cases.push(Case {
                name: format!("{ci}"),
                query: question.to_string(),
                category: CATEGORIES.get(category).unwrap_or(&"?").to_string(),
                relevant,
                expect_top: Vec::new(),
            });
        }
        groups.push(Group {
            name: format!("locomo-{ci}"),
            entries,
            now,
            cases,
        });
    }
    Ok((groups, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_times() {
        let t = parse_session_time("1:56 pm on 8 May, 2023").unwrap();
        assert_eq!(t.to_rfc3339(), "2023-05-08T13:56:00Z");
        let t = parse_session_time("12:04 am on 20 January, 2024").unwrap();
        assert_eq!(t.to_rfc3339(), "2024-01-20T00:04:00Z");
        assert!(parse_session_time("noon on a Tuesday").is_none());
    }
}
