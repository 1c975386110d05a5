//! Unit tests of the index: apply, supersede bookkeeping, filters, query order, search scores.

use super::*;
use crate::entry::EntryRef;
use warroom_base::clock::parse_rfc3339;

const NOW: &str = "2026-11-25T12:00:00Z";

fn entry(id: &str, ts: &str, kind: Kind, room: &str, tags: &[&str], summary: &str) -> Entry {
    Entry {
        id: id.into(),
        ts: ts.into(),
        kind,
        room_id: room.into(),
        author_role: "architect".into(),
        ref_: "EPIC-1".into(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        summary: summary.into(),
        detail: String::new(),
        supersedes: None,
        plan_id: None,
        redacted: vec![],
        audience: None,
    }
}

fn add(ix: &mut LedgerIndex, e: Entry) -> Option<u32> {
    let ts = parse_rfc3339(&e.ts).unwrap();
    let line = ix.len() as u64 + 1;
    ix.apply(&EntryRef::from(&e), ts, Loc { line, offset: 0 }, b"")
}

fn ids(ix: &LedgerIndex, positions: &[u32]) -> Vec<String> {
    positions.iter().map(|&p| ix.id(p).to_string()).collect()
}

/// The scorer of these tests: `now`, the default half-lives, `ranking`.
fn scorer(now: Timestamp, ranking: Ranking) -> Scorer {
    Scorer {
        now,
        half_lives: half_lives(),
        ranking,
    }
}

fn half_lives() -> [f64; 6] {
    crate::entry::Kind::default_half_lives()
}

#[test]
fn supersede_retires_the_target_and_chains_both_ways() {
    let mut ix = LedgerIndex::default();
    add(
        &mut ix,
        entry(
            "a",
            "2026-11-01T00:00:00Z",
            Kind::Decision,
            "r1",
            &[],
            "bcrypt",
        ),
    );
    let mut b = entry(
        "b",
        "2026-11-02T00:00:00Z",
        Kind::Decision,
        "r1",
        &[],
        "argon2",
    );
    b.supersedes = Some("a".into());
    add(&mut ix, b);
    assert_eq!(ix.live_count(), 1);
    assert!(!ix.meta(0).live);
    assert_eq!(ix.stored(0).superseded_by(), Some(1));
    let q = ix.query(&Filter::default().compile(&ix), 50);
    assert_eq!(ids(&ix, &q.positions), vec!["b"]);
    let all = Filter {
        include_superseded: true,
        ..Filter::default()
    };
    assert_eq!(ix.query(&all.compile(&ix), 50).total, 2);
}

#[test]
fn bad_supersedes_and_duplicates_are_problems_not_crashes() {
    let mut ix = LedgerIndex::default();
    add(
        &mut ix,
        entry(
            "a",
            "2026-11-01T00:00:00Z",
            Kind::Decision,
            "r1",
            &[],
            "one",
        ),
    );
    let mut b = entry(
        "b",
        "2026-11-01T00:00:01Z",
        Kind::Decision,
        "r1",
        &[],
        "two",
    );
    b.supersedes = Some("a".into());
    add(&mut ix, b);
    let mut c = entry(
        "c",
        "2026-11-01T00:00:02Z",
        Kind::Decision,
        "r1",
        &[],
        "three",
    );
    c.supersedes = Some("a".into()); // already superseded
    add(&mut ix, c);
    assert_eq!(
        add(
            &mut ix,
            entry("a", "2026-11-01T00:00:03Z", Kind::Code, "r2", &[], "dup")
        ),
        None
    );
    let (problems, n) = ix.problems();
    assert_eq!(n, 2);
    assert!(problems[0].message.contains("already superseded by `b`"));
    assert!(problems[1].message.contains("duplicate id `a`"));
    assert_eq!(ix.live_count(), 2); // b and c
}

#[test]
fn supersede_of_a_later_line_is_resolved_and_cycles_refused() {
    let mut ix = LedgerIndex::default();
    let mut x = entry("x", "2026-11-01T00:00:00Z", Kind::Decision, "r", &[], "x");
    x.supersedes = Some("y".into());
    add(&mut ix, x);
    assert_eq!(ix.dangling_supersedes().count(), 1);
    add(
        &mut ix,
        entry("y", "2026-11-01T00:00:01Z", Kind::Decision, "r", &[], "y"),
    );
    assert_eq!(ix.dangling_supersedes().count(), 0);
    assert!(!ix.meta(1).live);

    let mut ix = LedgerIndex::default();
    let mut a = entry("a", "2026-11-01T00:00:00Z", Kind::Decision, "r", &[], "a");
    a.supersedes = Some("b".into());
    let mut b = entry("b", "2026-11-01T00:00:01Z", Kind::Decision, "r", &[], "b");
    b.supersedes = Some("a".into());
    add(&mut ix, a);
    add(&mut ix, b);
    assert_eq!(ix.live_count(), 2);
    assert!(ix.problems().0.iter().any(|p| p.message.contains("cycle")));
}

#[test]
fn query_filters_are_anded_and_newest_first() {
    let mut ix = LedgerIndex::default();
    add(
        &mut ix,
        entry(
            "1",
            "2026-11-01T00:00:00Z",
            Kind::Decision,
            "room-038",
            &["auth"],
            "a",
        ),
    );
    add(
        &mut ix,
        entry(
            "2",
            "2026-11-03T00:00:00Z",
            Kind::Warning,
            "room-042",
            &["auth"],
            "b",
        ),
    );
    add(
        &mut ix,
        entry(
            "3",
            "2026-11-02T00:00:00Z",
            Kind::Decision,
            "room-038",
            &["db"],
            "c",
        ),
    );
    add(
        &mut ix,
        entry(
            "4",
            "2026-11-02T00:00:00Z",
            Kind::Decision,
            "room-100",
            &["auth", "db"],
            "d",
        ),
    );
    let all = ix.query(&Filter::default().compile(&ix), 50);
    assert_eq!(ids(&ix, &all.positions), vec!["2", "4", "3", "1"]);

    let f = Filter {
        tags: vec!["auth".into(), "db".into()],
        exclude_room: Some(RoomPattern::parse("exclude_room", "room-042").unwrap()),
        ..Filter::default()
    };
    assert_eq!(
        ids(&ix, &ix.query(&f.compile(&ix), 50).positions),
        vec!["4", "3", "1"]
    );

    let f = Filter {
        room: Some(RoomPattern::parse("room_id", "room-0*").unwrap()),
        kind: Some(Kind::Decision),
        since: Some(parse_rfc3339("2026-11-02T00:00:00Z").unwrap()),
        ..Filter::default()
    };
    assert_eq!(
        ids(&ix, &ix.query(&f.compile(&ix), 50).positions),
        vec!["3"]
    );

    let capped = ix.query(&Filter::default().compile(&ix), 2);
    assert_eq!((capped.positions.len(), capped.total), (2, 4));

    let none = Filter {
        author_role: Some("nobody".into()),
        ..Filter::default()
    };
    assert_eq!(ix.query(&none.compile(&ix), 50).total, 0);
    let unknown_tag = Filter {
        tags: vec!["zzz".into()],
        ..Filter::default()
    };
    assert_eq!(ix.query(&unknown_tag.compile(&ix), 50).total, 0);
}

#[test]
fn out_of_order_timestamps_still_sort_by_time() {
    let mut ix = LedgerIndex::default();
    add(
        &mut ix,
        entry("late", "2026-11-05T00:00:00Z", Kind::Code, "r", &[], "a"),
    );
    add(
        &mut ix,
        entry("early", "2026-11-01T00:00:00Z", Kind::Code, "r", &[], "b"),
    );
    add(
        &mut ix,
        entry("tie", "2026-11-05T00:00:00Z", Kind::Code, "r", &[], "c"),
    );
    let q = ix.query(&Filter::default().compile(&ix), 50);
    assert_eq!(ids(&ix, &q.positions), vec!["tie", "late", "early"]);
}

#[test]
fn search_multiplies_bm25_by_kind_decay() {
    let now = parse_rfc3339(NOW).unwrap();
    let mut ix = LedgerIndex::default();
    // Same text; code is 72 h old (one half-life), convention 720 h old (one half-life).
    add(
        &mut ix,
        entry(
            "code",
            "2026-11-22T12:00:00Z",
            Kind::Code,
            "r",
            &[],
            "retry budget",
        ),
    );
    add(
        &mut ix,
        entry(
            "conv",
            "2026-10-26T12:00:00Z",
            Kind::Convention,
            "r",
            &[],
            "retry budget",
        ),
    );
    add(
        &mut ix,
        entry(
            "new",
            "2026-11-25T12:00:00Z",
            Kind::Decision,
            "r",
            &[],
            "retry budget",
        ),
    );
    let r = ix.search(
        "retry",
        &Filter::default().compile(&ix),
        10,
        &scorer(now, Ranking::Seed),
    );
    assert_eq!(r.total, 3);
    let by_id = |id: &str| *r.hits.iter().find(|h| ix.id(h.pos) == id).unwrap();
    assert!((by_id("code").decay - 0.5).abs() < 1e-12);
    assert!((by_id("conv").decay - 0.5).abs() < 1e-12);
    assert_eq!(by_id("new").decay, 1.0);
    assert_eq!(by_id("code").age_hours, 72.0);
    let h = by_id("code");
    assert!((h.score - h.bm25 * h.decay).abs() < 1e-12);
    // Equal scores (code, conv) tie-break to the newer entry.
    assert_eq!(
        ids(&ix, &r.hits.iter().map(|h| h.pos).collect::<Vec<_>>()),
        vec!["new", "code", "conv"]
    );
    // The default blend keeps that order and applies floor + (1 − floor) × decay.
    let r = ix.search(
        "retry",
        &Filter::default().compile(&ix),
        10,
        &scorer(now, Ranking::default()),
    );
    assert_eq!(
        ids(&ix, &r.hits.iter().map(|h| h.pos).collect::<Vec<_>>()),
        vec!["new", "code", "conv"]
    );
    let h = r.hits[1];
    let floor = crate::DEFAULT_DECAY_FLOOR;
    assert!((h.time_factor - (floor + (1.0 - floor) * 0.5)).abs() < 1e-12);
    assert!((h.score - h.bm25 * h.time_factor).abs() < 1e-12);
}

#[test]
fn search_respects_filters_limit_and_superseded() {
    let now = parse_rfc3339(NOW).unwrap();
    let mut ix = LedgerIndex::default();
    for i in 0..30 {
        add(
            &mut ix,
            entry(
                &format!("e{i}"),
                "2026-11-25T00:00:00Z",
                Kind::Decision,
                "r1",
                &["auth"],
                "login tokens",
            ),
        );
    }
    add(
        &mut ix,
        entry(
            "own",
            "2026-11-25T00:00:00Z",
            Kind::Decision,
            "me",
            &[],
            "login tokens",
        ),
    );
    let mut s = entry(
        "s",
        "2026-11-25T00:00:00Z",
        Kind::Decision,
        "r1",
        &[],
        "login again",
    );
    s.supersedes = Some("e0".into());
    add(&mut ix, s);
    let f = Filter {
        exclude_room: Some(RoomPattern::parse("exclude_room", "me").unwrap()),
        ..Filter::default()
    };
    let r = ix.search(
        "login",
        &f.compile(&ix),
        10,
        &scorer(now, Ranking::default()),
    );
    assert_eq!(r.hits.len(), 10);
    assert_eq!(r.total, 30); // 29 live e*, plus s; not `own`, not superseded e0
    assert!(
        r.hits
            .iter()
            .all(|h| ix.id(h.pos) != "own" && ix.id(h.pos) != "e0")
    );
    let tagged = Filter {
        tags: vec!["auth".into()],
        ..f
    };
    let r = ix.search(
        "login",
        &tagged.compile(&ix),
        50,
        &scorer(now, Ranking::default()),
    );
    assert_eq!(r.total, 29);
}

#[test]
fn counted_totals_agree_with_a_full_scan() {
    let mut ix = LedgerIndex::default();
    for i in 0..40 {
        let kind = Kind::ALL[i % 6];
        let tags: &[&str] = match i % 3 {
            0 => &["a"],
            1 => &["a", "b"],
            _ => &[],
        };
        let mut e = entry(
            &format!("e{i}"),
            "2026-11-01T00:00:00Z",
            kind,
            &format!("room-{}", i % 4),
            tags,
            "x",
        );
        if i % 7 == 6 {
            e.supersedes = Some(format!("e{}", i - 3));
        }
        add(&mut ix, e);
    }
    let filters = [
        Filter::default(),
        Filter {
            kind: Some(Kind::Decision),
            ..Filter::default()
        },
        Filter {
            exclude_room: Some(RoomPattern::parse("x", "room-1").unwrap()),
            ..Filter::default()
        },
        Filter {
            room: Some(RoomPattern::parse("x", "room-{2,3}").unwrap()),
            kind: Some(Kind::Code),
            ..Filter::default()
        },
        Filter {
            tags: vec!["a".into()],
            ..Filter::default()
        },
        Filter {
            tags: vec!["b".into()],
            exclude_room: Some(RoomPattern::parse("x", "room-1").unwrap()),
            kind: Some(Kind::Decision),
            ..Filter::default()
        },
    ];
    for f in filters {
        let c = f.compile(&ix);
        // The slot decides these filters exactly as the entry's metadata does.
        assert!(c.slot_decides, "{f:?}");
        for p in 0..ix.len() as u32 {
            assert_eq!(
                c.matches_slot(ix.slot(p)),
                c.matches_meta(ix.meta(p)),
                "{f:?} {p}"
            );
        }
        let with_superseded = Filter {
            include_superseded: true,
            ..f.clone()
        }
        .compile(&ix);
        for p in 0..ix.len() as u32 {
            assert!(with_superseded.matches_slot(ix.slot(p)) >= c.matches_slot(ix.slot(p)));
            assert_eq!(
                with_superseded.matches_slot(ix.slot(p)),
                with_superseded.matches_meta(ix.meta(p))
            );
        }
        let scanned = ix
            .chrono()
            .iter()
            .filter(|&p| c.matches_meta(ix.meta(p)) && c.matches_tags(ix.tags_of(p)))
            .count();
        assert_eq!(c.count_from_totals(&ix), Some(scanned), "{f:?}");
        assert_eq!(ix.query(&c, 3).total, scanned);
    }
    let timed = Filter {
        since: Some(parse_rfc3339(NOW).unwrap()),
        ..Filter::default()
    };
    assert_eq!(timed.compile(&ix).count_from_totals(&ix), None);
    assert!(!timed.compile(&ix).slot_decides);
}

#[test]
fn tag_union_in_time_order_is_merged_newest_first_without_duplicates() {
    let mut ix = LedgerIndex::default();
    let tags: [&[&str]; 5] = [&["a"], &["b"], &["a", "b"], &["c"], &["b"]];
    for (i, t) in tags.iter().enumerate() {
        add(
            &mut ix,
            entry(
                &format!("e{i}"),
                &format!("2026-11-0{}T00:00:00Z", i + 1),
                Kind::Code,
                "r",
                t,
                "x",
            ),
        );
    }
    assert!(ix.in_time_order());
    let f = Filter {
        tags: vec!["a".into(), "b".into()],
        ..Filter::default()
    };
    let q = ix.query(&f.compile(&ix), 3);
    assert_eq!(ids(&ix, &q.positions), vec!["e4", "e2", "e1"]);
    assert_eq!(q.total, 4);
}

#[path = "search/search_tests.rs"]
mod pruned;
