//! Human-readable text for the auditor commands: history/log, diff (coloured on a
//! terminal), verify. Edge code, like [`crate::render`].

use std::fmt::Write;

use crate::api::audit::{Change, DiffPage, HistoryOutput};
use crate::audit::diff::DiffReport;
use crate::audit::verify::VerifyReport;
use crate::render::entry_block;
use crate::text::{clip, count};

/// Colours the (already terminal-safe) text of a diff by the shape of each line: our
/// headers start at column 0, violation marks with `  ✗`, diff lines with `    +` / `    -`.
/// Entry text cannot forge a header: it only ever appears indented.
fn colourize(text: &str) -> String {
    let wrap = |code: &str, l: &str| format!("\x1b[{code}m{l}\x1b[0m");
    text.lines()
        .map(|l| {
            if l.starts_with("VIOLATIONS") {
                wrap("1;31", l)
            } else if !l.is_empty() && !l.starts_with(' ') {
                wrap("1", l)
            } else if let Some(rest) = l.strip_prefix("  ✗") {
                format!("  {}{rest}", wrap("31", "✗"))
            } else if l.starts_with("    +") && !l.starts_with("    +++") {
                wrap("32", l)
            } else if l.starts_with("    -") && !l.starts_with("    ---") {
                wrap("31", l)
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn indented_diff(d: &str) -> String {
    d.lines().map(|l| format!("    {l}\n")).collect()
}

/// History or log: entries with their status.
pub fn history(o: &HistoryOutput) -> String {
    if o.entries.is_empty() {
        return "no matching entries".into();
    }
    let mut s = format!(
        "{} of {}{}",
        o.entries.len(),
        crate::text::count(o.total, "entry", "entries"),
        if o.truncated { " (truncated)" } else { "" }
    );
    for h in &o.entries {
        let status = match &h.superseded_by {
            Some(by) => format!("SUPERSEDED by {by}"),
            None if h.live => "live".to_string(),
            None => "superseded".to_string(),
        };
        let _ = write!(
            s,
            "\n\nline {} · {status}\n{}",
            h.line,
            entry_block(&h.entry, false)
        );
    }
    s
}

/// A full diff report.
pub fn diff(r: &DiffReport, colour: bool) -> String {
    let plain = crate::render::terminal_safe(&diff_plain(r)).into_owned();
    if colour { colourize(&plain) } else { plain }
}

fn diff_plain(r: &DiffReport) -> String {
    let c = &r.counts;
    let mut s = format!(
        "{}\nA: {}\nB: {}\n{} added · {} superseded · {} violations · {} malformed additions\n",
        "ledger diff", r.a, r.b, c.added, c.superseded, c.violations, c.malformed_added
    );
    if !r.violations.is_empty() {
        let _ = writeln!(
            s,
            "
VIOLATIONS: lines of A changed or missing in B (append-only broken)"
        );
        for v in &r.violations {
            let id = v.id.as_deref().unwrap_or("?");
            match v.after_line {
                Some(b) => {
                    let _ = writeln!(
                        s,
                        "  ✗ line {} (byte {}) id {id}: changed (now line {b} of B)",
                        v.line, v.offset
                    );
                }
                None => {
                    let _ = writeln!(
                        s,
                        "  ✗ line {} (byte {}) id {id}: missing from B",
                        v.line, v.offset
                    );
                }
            }
            match &v.diff {
                Some(d) => s.push_str(&indented_diff(d)),
                None => {
                    let _ = writeln!(s, "    was: {}", clip(&v.before, 300));
                }
            }
        }
    }
    if !r.superseded.is_empty() {
        let _ = writeln!(s, "\nSuperseded");
        for ch in &r.superseded {
            let old = ch.old.as_ref().map_or("(unknown entry)".to_string(), |o| {
                format!("{} [{}] {}/{}", o.id, o.kind, o.room_id, o.author_role)
            });
            let _ = writeln!(
                s,
                "  {old}\n    → {} [{}] {}/{} at {}",
                ch.new.id, ch.new.kind, ch.new.room_id, ch.new.author_role, ch.new.ts
            );
            s.push_str(&indented_diff(&ch.summary_diff));
            if !ch.detail_diff.is_empty() {
                let _ = writeln!(s, "    detail:");
                s.push_str(&indented_diff(&ch.detail_diff));
            }
        }
    }
    if !r.added.is_empty() {
        let _ = writeln!(s, "\nAdded");
        for g in &r.added {
            let _ = writeln!(s, "  {} · {} ({})", g.room_id, g.kind, g.entries.len());
            for e in &g.entries {
                let _ = writeln!(
                    s,
                    "    + {} {}",
                    e.id,
                    clip(&e.summary.replace('\n', " "), 160)
                );
            }
        }
    }
    if !r.malformed_added.is_empty() {
        let _ = writeln!(s, "\nMalformed additions");
        for m in &r.malformed_added {
            let _ = writeln!(s, "  line {} (byte {}): {}", m.line, m.offset, m.message);
        }
    }
    s.trim_end().to_string()
}

/// One page of `memory_diff`.
pub fn diff_page(d: &DiffPage) -> String {
    let c = &d.counts;
    let mut s = format!(
        "diff {} → {}: {} added, {} superseded, {} violations{}; changes {}–{} of {}",
        d.a,
        d.b,
        c.added,
        c.superseded,
        c.violations,
        if d.append_only {
            " (append-only holds)"
        } else {
            " (APPEND-ONLY BROKEN)"
        },
        d.offset + usize::from(!d.changes.is_empty()),
        d.offset + d.changes.len(),
        d.total_changes
    );
    for ch in &d.changes {
        match ch {
            Change::Violation(v) => {
                let _ = write!(
                    s,
                    "\n\nVIOLATION {} line {} id {}",
                    v.kind,
                    v.line,
                    v.id.as_deref().unwrap_or("?")
                );
            }
            Change::Superseded(x) => {
                let _ = write!(
                    s,
                    "\n\nSUPERSEDED {} by {}\n{}",
                    x.old.as_ref().map_or("?", |o| o.id.as_str()),
                    x.new.id,
                    x.summary_diff.trim_end()
                );
            }
            Change::Added { entry } => {
                let _ = write!(s, "\n\nADDED {}", entry_block(entry, false));
            }
        }
    }
    if let Some(n) = d.next_offset {
        let _ = write!(s, "\n\nmore: call again with offset {n}");
    }
    s
}

/// A verify report.
pub fn verify(r: &VerifyReport) -> String {
    let mut s = format!(
        "{}: {}, {} ({} superseded), {} blank, {}",
        r.file,
        crate::text::count(r.lines as usize, "line", "lines"),
        crate::text::count(r.entries as usize, "entry", "entries"),
        r.superseded,
        r.blank,
        crate::text::count(r.bytes as usize, "byte", "bytes")
    );
    let c = &r.chain;
    let _ = write!(
        s,
        "\nchain: {} linked, {} unchained (older writers, OSTwin); head {} (line {})",
        c.chained, c.unchained, c.head, c.head_line
    );
    if !c.forks.is_empty() {
        let shown: Vec<String> = c
            .forks
            .iter()
            .take(10)
            .map(|f| format!("line {} continues line {}", f.line, f.continues))
            .collect();
        let _ = write!(
            s,
            "\n{} (branches joined by a union merge, or lines inserted; a recorded head tells them apart): {}{}",
            crate::text::count(c.forks.len(), "fork", "forks"),
            shown.join(", "),
            if c.forks.len() > 10 { ", …" } else { "" }
        );
    }
    if let (Some(h), Some(l)) = (&c.recorded_head, c.recorded_head_line) {
        let _ = write!(s, "\nrecorded head {h} found at line {l}");
    }
    if let Some(rc) = &r.receipts {
        let _ = write!(
            s,
            "\nreceipts {}: {} of {}, head {}{}",
            rc.file,
            crate::text::count(rc.receipts as usize, "receipt", "receipts"),
            crate::text::count(rc.lines as usize, "line", "lines"),
            rc.head,
            if rc.violations.is_empty() {
                ", chain intact".to_string()
            } else {
                format!(", {} violation(s):", rc.violations.len())
            }
        );
        if let (Some(h), Some(l)) = (&rc.recorded_head, rc.recorded_head_line) {
            let _ = write!(s, "\nrecorded receipts head {h} found at line {l}");
        }
        for v in &rc.violations {
            let _ = write!(s, "\n  receipts line {} [{}] {}", v.line, v.kind, v.message);
        }
    }
    if r.violations.is_empty() {
        s.push_str(if r.ok() {
            "\nOK: every line is a valid entry; ids unique; supersedes consistent; every \
             link intact."
        } else {
            "\nthe ledger is OK; its receipts are not (above)."
        });
        return s;
    }
    let _ = write!(
        s,
        "\n{}:",
        crate::text::count(r.violations.len(), "violation", "violations")
    );
    for v in &r.violations {
        let _ = write!(
            s,
            "\n  line {} (byte {}) [{}] {}",
            v.line, v.offset, v.kind, v.message
        );
    }
    s
}

/// Text of `context --replay`: the verdict, why each entry was included, what was left
/// out, and the brief as it was read (or what differs).
pub fn replay(r: &crate::memory::Replay) -> String {
    let c = &r.receipt;
    let mut s = format!(
        "receipt {} · room {} · asked by {} at {} · ledger line {} (head {})\n",
        c.id,
        c.room_id,
        match (&c.by.room, &c.by.role) {
            (Some(room), Some(role)) => format!("{room}/{role}"),
            (Some(room), None) => room.clone(),
            _ => "an operator".to_string(),
        },
        c.ts,
        c.ledger.lines,
        c.ledger.head
    );
    if r.identical {
        let _ = writeln!(
            s,
            "IDENTICAL: the brief recomputed from the ledger as it was has the receipt's \
             SHA-256 {} ({} bytes)",
            r.sha256, c.bytes
        );
    } else {
        s.push_str("DIFFERENT:\n");
        for d in &r.differences {
            let _ = writeln!(s, "  - {d}");
        }
    }
    s.push_str("\nwhy each entry was included:\n");
    for i in &c.included {
        let _ = writeln!(
            s,
            "  {} · {} · {}{}{} · score {:.4} (relevance {:.3} × time {:.3})",
            i.id,
            i.room_id,
            i.reason,
            i.distance
                .map(|d| format!(", {d} step(s) upstream"))
                .unwrap_or_default(),
            if i.matched.is_empty() {
                String::new()
            } else {
                format!(", matched {}", i.matched.join(", "))
            },
            i.score,
            i.relevance,
            i.time_factor
        );
    }
    let o = &c.omitted;
    let _ = writeln!(
        s,
        "left out: {} past the entry limit, {} over the byte limit, {} not eligible by rule, \
         {} superseded, {} duplicates collapsed, {} of the room's own, {} kept from it by \
         their audience (working notes)",
        o.entry_limit,
        o.byte_limit,
        o.not_eligible,
        o.superseded,
        o.duplicates,
        o.own_room,
        o.kept_by_audience
    );
    for a in &c.accounts {
        let _ = writeln!(s, "  upstream {}", a.line());
    }
    s.push('\n');
    s.push_str(&r.markdown);
    s
}

/// Text of `receipts`: one line per receipt.
pub fn receipts(list: &[crate::receipts::Receipt]) -> String {
    if list.is_empty() {
        return "no receipts".to_string();
    }
    list.iter()
        .map(|r| {
            format!(
                "{}  {}  {}  by {}  {} entries  {} bytes  ledger line {}  sha256 {}",
                r.id,
                r.ts,
                r.room_id,
                match (&r.by.room, &r.by.role) {
                    (Some(room), Some(role)) => format!("{room}/{role}"),
                    (Some(room), None) => room.clone(),
                    _ => "operator".to_string(),
                },
                r.included.len(),
                r.bytes,
                r.ledger.lines,
                crate::text::prefix(&r.sha256, 16)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `overlaps` command's first line: how many pairs are open (of `room`'s, if given)
/// and how many live entries were looked up.
pub fn overlaps_header(open: usize, examined: usize, room: Option<&str>) -> String {
    let scope = room.map_or(String::new(), |r| format!(" involving {r}"));
    let looked = count(examined, "live entry", "live entries");
    if open == 0 {
        return format!("no open overlaps{scope} ({looked} looked up)");
    }
    format!(
        "{}{scope} ({looked} looked up); each: reconcile in the channel, or supersede one side",
        count(open, "open overlap", "open overlaps"),
    )
}

/// One open overlap as the `overlaps` command lists it after its header: both sides
/// (kind, id, room and role, time, the summary clipped) and why.
pub fn overlap(p: &crate::memory::Overlap) -> String {
    let mut s = String::new();
    for (tag, side) in [("  ", &p.a), ("vs", &p.b)] {
        let _ = write!(
            s,
            "\n{tag} [{}] {} · {}/{} · {}\n     {}",
            side.kind,
            side.id,
            side.room_id,
            side.author_role,
            side.ts,
            clip(&side.summary.replace('\n', " "), 200)
        );
    }
    let _ = write!(s, "\n   why: {}\n", p.why.join("; "));
    s
}
