//! Human-readable text for results: the CLI's default output and the readable text copy
//! that accompanies every MCP `structuredContent`.
//!
//! Edge code: the core returns typed results; only this module decides how they look.

use std::fmt::Write;

use crate::api::brief::BriefOutput;
use crate::api::channel::{ChannelPostOutput, ChannelReadOutput};
use crate::api::ledger::{GetOutput, PublishOutput, QueryOutput, SearchOutput};
use crate::api::plan::{DagOut, RegisterPlanOutput};
use crate::channel::Message;
use crate::entry::Entry;

/// `text` made safe for a terminal: every control character except newline and tab, and
/// the bidirectional overrides that reorder what a reader sees, shown escaped (`\u{1b}`),
/// so an entry cannot move the cursor, recolour, retitle or hide text on an auditor's
/// terminal.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    let bad = |c: char| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(bad) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if bad(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Longest detail shown in list views before pointing at `memory_get`.
const DETAIL_PREVIEW: usize = 300;

/// One-line header of an entry: kind, id, room/role, ref, time, tags.
pub fn entry_header(e: &Entry) -> String {
    let mut s = format!("[{}] {} · {}/{}", e.kind, e.id, e.room_id, e.author_role);
    if !e.ref_.is_empty() {
        let _ = write!(s, " · {}", e.ref_);
    }
    let _ = write!(s, " · {}", e.ts);
    if !e.tags.is_empty() {
        let _ = write!(s, " · tags: {}", e.tags.join(", "));
    }
    if let Some(sup) = &e.supersedes {
        let _ = write!(s, " · supersedes {sup}");
    }
    s
}

/// An entry as a short block: header, summary, clipped detail.
pub fn entry_block(e: &Entry, full_detail: bool) -> String {
    let mut s = entry_header(e);
    for line in e.summary.lines() {
        let _ = write!(s, "\n    {line}");
    }
    if !e.detail.is_empty() {
        if full_detail {
            let _ = write!(s, "\n    detail:");
            for line in e.detail.lines() {
                let _ = write!(s, "\n      {line}");
            }
        } else {
            let shown = crate::text::clip(&e.detail.replace('\n', " "), DETAIL_PREVIEW);
            let _ = write!(s, "\n    detail ({} bytes): {shown}", e.detail.len());
        }
    }
    if !e.redacted.is_empty() {
        let _ = write!(
            s,
            "\n    (redacted before storing: {})",
            e.redacted.join(", ")
        );
    }
    s
}

/// Text of a publish result.
pub fn publish(o: &PublishOutput) -> String {
    let mut s = format!("published {}\n{}", o.entry.id, entry_block(&o.entry, false));
    if !o.redacted.is_empty() {
        let _ = write!(
            s,
            "\nnote: secrets were redacted before writing: {}",
            o.redacted.join(", ")
        );
    }
    for r in &o.related {
        let verb = match r.kind.as_str() {
            "decision" => "decided",
            "interface" => "defined",
            "convention" => "agreed",
            "warning" => "warned",
            _ => "published",
        };
        let _ = write!(
            s,
            "\nrelated: {} {verb} \"{}\" ({}; {}): supersede it or reconcile in the channel",
            r.room_id,
            crate::text::clip(&r.summary, 120),
            r.id,
            r.why.join("; ")
        );
    }
    for w in &o.warnings {
        let _ = write!(s, "\nwarning: {w}");
    }
    s
}

fn view_note(excluded: &Option<String>) -> String {
    match excluded {
        Some(r) => format!(" (your room {r} left out; pass room_id to include it)"),
        None => String::new(),
    }
}

/// Text of a query result.
pub fn query(o: &QueryOutput) -> String {
    if o.entries.is_empty() {
        return format!("no matching entries{}", view_note(&o.excluded_room));
    }
    let mut s = format!(
        "{} of {} matching entries, newest first{}{}",
        o.entries.len(),
        o.total,
        if o.truncated { " (truncated)" } else { "" },
        view_note(&o.excluded_room)
    );
    for e in &o.entries {
        let _ = write!(s, "\n\n{}", entry_block(e, false));
    }
    s
}

/// Text of a search result.
pub fn search(o: &SearchOutput) -> String {
    if o.hits.is_empty() {
        return format!(
            "no hits for terms [{}] at {}{}",
            o.terms.join(", "),
            o.now,
            view_note(&o.excluded_room)
        );
    }
    let mut s = format!(
        "{} of {}{} for terms [{}] at {}{}",
        o.hits.len(),
        if o.total_exact { "" } else { "at least " },
        crate::text::count(o.total, "hit", "hits"),
        o.terms.join(", "),
        o.now,
        view_note(&o.excluded_room)
    );
    for (i, h) in o.hits.iter().enumerate() {
        let _ = write!(
            s,
            "\n\n{}. score {:.4} = relevance {:.4} × {:.4} (decay {:.4}, age {:.1} h)\n{}",
            i + 1,
            h.score,
            h.relevance(),
            h.time_factor,
            h.decay,
            h.age_hours,
            entry_block(&h.entry, false)
        );
    }
    s
}

/// The `--explain` block of a search: each hit's field shares and the seed's score.
pub fn explain(
    ranking: crate::index::Ranking,
    o: &SearchOutput,
    ex: &[crate::api::ledger::SearchExplanation],
) -> String {
    use crate::index::Ranking;
    use crate::index::text_weights as w;
    let formula = match ranking {
        Ranking::Blend { floor } => {
            format!("score = relevance × ({floor} + {} × decay)", 1.0 - floor)
        }
        Ranking::Seed => "score = bm25(summary + tags) × decay (seed)".into(),
        Ranking::Relevance => "score = relevance (age ignored)".into(),
    };
    let mut s = format!(
        "\n\nexplain: ranking {}: {formula}; relevance = BM25F(k1=1.2, b=0.75; weights \
         summary+tags 1, detail {}, ref {}); decay = exp(−ln2 × age_hours / half_life)",
        ranking.name(),
        w::W_DETAIL,
        w::W_REF
    );
    if let Some(w) = o.hits.iter().find_map(|h| h.weight) {
        let _ = write!(
            s,
            "\n  semantic: relevance = {w} × lexical + {} × semantic; lexical = min(1, BM25F / \
             the query's ideal BM25F); semantic = the cosine above the query's baseline (the \
             90th percentile of its candidates' cosines: about the 10th nearest's, never \
             below their median)",
            1.0 - w
        );
    }
    for (i, (h, e)) in o.hits.iter().zip(ex).enumerate() {
        if let (Some(lex), Some(cos), Some(sem), Some(w)) =
            (h.lexical, h.cosine, h.semantic, h.weight)
        {
            let _ = write!(
                s,
                "\n  {}. {:.6} = ({w} × lexical {:.4} + {:.1} × semantic {:.4}) × time {:.6}   \
                 [BM25F {:.4}, cosine {:.4}]",
                i + 1,
                h.score,
                lex,
                1.0 - w,
                sem,
                h.time_factor,
                h.bm25,
                cos
            );
            continue;
        }
        let _ = write!(
            s,
            "\n  {}. {:.6} = {:.6} × {:.6}   [summary {:.4}, tags {:.4}, detail {:.4}, ref {:.4}]   \
             seed: {:.6} × {:.6} = {:.6}",
            i + 1,
            h.score,
            h.bm25,
            h.time_factor,
            e.fields[0],
            e.fields[1],
            e.fields[2],
            e.fields[3],
            e.seed_bm25,
            h.decay,
            e.seed_score
        );
    }
    s
}

/// Text of a get result, with the supersede chain.
pub fn get(o: &GetOutput) -> String {
    let mut s = format!(
        "{} (line {}, {})\n{}",
        o.entry.id,
        o.line,
        if o.live { "live" } else { "SUPERSEDED" },
        entry_block(&o.entry, true)
    );
    if !o.replaced.is_empty() {
        let _ = write!(s, "\n\nreplaced (older, nearest first):");
        for e in &o.replaced {
            let _ = write!(
                s,
                "\n  {}\n    {}",
                entry_header(e),
                crate::text::clip(&e.summary, 200)
            );
        }
        if o.replaced_more > 0 {
            let _ = write!(
                s,
                "\n  … and {} older",
                crate::text::count(o.replaced_more, "entry", "entries")
            );
        }
    }
    if !o.replaced_by.is_empty() {
        let _ = write!(s, "\n\nreplaced by (newer, nearest first):");
        for e in &o.replaced_by {
            let _ = write!(
                s,
                "\n  {}\n    {}",
                entry_header(e),
                crate::text::clip(&e.summary, 200)
            );
        }
        if o.replaced_by_more > 0 {
            let _ = write!(
                s,
                "\n  … and {} newer (get the last one shown to follow the chain)",
                crate::text::count(o.replaced_by_more, "entry", "entries")
            );
        }
    }
    s
}

/// Text of a context result: the markdown itself.
pub fn context(o: &BriefOutput) -> String {
    o.markdown.clone()
}

/// Text of a plan registration.
/// Why a brief holds what it holds (`context --explain`): per upstream room, live and
/// shown entries; then each shown entry's share, room and matched keywords.
pub fn context_explained(o: &BriefOutput) -> String {
    let mut s = String::from("Why these entries (docs/brief.md):\n");
    for a in &o.accounts {
        let _ = writeln!(s, "  upstream {}", a.line());
    }
    for i in &o.included {
        let _ = writeln!(
            s,
            "  {} {} from {}{}",
            i.id,
            i.reason,
            i.room_id,
            if i.matched.is_empty() {
                String::new()
            } else {
                format!(" (matched: {})", i.matched.join(", "))
            }
        );
    }
    s
}

/// `memory_register_plan` as text.
pub fn register_plan(o: &RegisterPlanOutput) -> String {
    let mut s = format!(
        "{} plan {} ({}) stored in {}\norder: {}",
        if o.replaced { "replaced" } else { "registered" },
        o.plan_id,
        crate::text::count(o.epics.len(), "epic", "epics"),
        o.file,
        o.topological_order.join(" → ")
    );
    for e in &o.epics {
        let _ = write!(s, "\n  {} · {} · {}", e.ref_, e.room_id, e.title);
        if !e.depends_on.is_empty() {
            let _ = write!(s, "  ← {}", e.depends_on.join(", "));
        }
    }
    s
}

/// One channel message as a line.
pub fn message_line(m: &Message) -> String {
    let to = if m.to.is_empty() {
        String::new()
    } else {
        format!(" → {}", m.to)
    };
    let r = if m.ref_.is_empty() {
        String::new()
    } else {
        format!(" · {}", m.ref_)
    };
    format!(
        "[{}] {}{to} ({}{r}) {}: {}",
        m.ts, m.from, m.type_, m.id, m.body
    )
}

/// Text of a channel post.
pub fn channel_post(o: &ChannelPostOutput) -> String {
    format!("posted to {}\n{}", o.room_id, message_line(&o.message))
}

/// Text of a channel read.
pub fn channel_read(o: &ChannelReadOutput) -> String {
    let mut s = format!(
        "{} of {} in {}'s channel, oldest first{}",
        o.messages.len(),
        crate::text::count(o.total, "message", "messages"),
        o.room_id,
        if o.malformed_lines > 0 {
            format!(" ({} malformed lines skipped)", o.malformed_lines)
        } else {
            String::new()
        }
    );
    for m in &o.messages {
        let _ = write!(s, "\n{}", message_line(m));
    }
    if let Some(more) = &o.more {
        let _ = write!(s, "\n({more})");
    }
    s
}

/// The DAG as indented text, one epic per line with its upstream.
pub fn dag_text(d: &DagOut) -> String {
    let mut s = String::new();
    let mut plan = "";
    for e in &d.epics {
        if e.plan_id != plan {
            plan = &e.plan_id;
            let _ = writeln!(s, "plan {plan}");
        }
        let _ = write!(s, "  {:<12} {:<14} {}", e.ref_, e.room_id, e.title);
        if !e.depends_on.is_empty() {
            let _ = write!(s, "  ← {}", e.depends_on.join(", "));
        }
        s.push('\n');
        let p = &e.purpose;
        if !p.objective.is_empty() {
            let _ = writeln!(s, "    objective: {}", crate::text::clip(&p.objective, 200));
        }
        if !p.description.is_empty() {
            let first = p.description.lines().next().unwrap_or_default();
            let _ = writeln!(
                s,
                "    description: {} ({})",
                crate::text::clip(first, 200),
                crate::text::count(p.description.lines().count(), "line", "lines")
            );
        }
        for (name, items) in [
            ("definition of done", &p.definition_of_done),
            ("acceptance criteria", &p.acceptance_criteria),
        ] {
            for item in items {
                let _ = writeln!(s, "    {name}: {}", crate::text::clip(item, 200));
            }
        }
    }
    let _ = writeln!(s, "order: {}", d.topological_order.join(" → "));
    for p in &d.problems {
        let _ = writeln!(s, "problem: {p}");
    }
    s.trim_end().to_string()
}

fn graph_id(label: &str) -> String {
    label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// The DAG as a Mermaid flowchart.
pub fn dag_mermaid(d: &DagOut) -> String {
    let mut s = String::from("flowchart TD\n");
    for e in &d.epics {
        let label = format!("{}/{}", e.plan_id, e.ref_);
        let title = e.title.replace('"', "'");
        let _ = writeln!(
            s,
            "  {}[\"{} · {}<br/>{}\"]",
            graph_id(&label),
            e.ref_,
            e.room_id,
            title
        );
    }
    for [a, b] in &d.edges {
        let _ = writeln!(s, "  {} --> {}", graph_id(a), graph_id(b));
    }
    s.trim_end().to_string()
}

/// The DAG in Graphviz DOT.
pub fn dag_dot(d: &DagOut) -> String {
    let mut s = String::from("digraph epics {\n  rankdir=LR;\n  node [shape=box];\n");
    for e in &d.epics {
        let title = e.title.replace('"', "'");
        let _ = writeln!(
            s,
            "  \"{}/{}\" [label=\"{}\\n{}\\n{}\"];",
            e.plan_id, e.ref_, e.ref_, e.room_id, title
        );
    }
    for [a, b] in &d.edges {
        let _ = writeln!(s, "  \"{a}\" -> \"{b}\";");
    }
    s.push('}');
    s
}
