//! The ranking from cells and postings equals the reference scan: same head, same order,
//! same counts, on random ledgers (rooms, plans, kinds, supersedes, equal times, entries
//! newer than *now*) and random scopes.

use proptest::prelude::*;

use super::*;
use crate::clock::Timestamp;
use crate::entry::{Entry, EntryRef};
use crate::index::Loc;

const NOW: i64 = 1_795_608_000;
pub(crate) const WORDS: [&str; 8] = [
    "cache", "retry", "budget", "token", "auth", "queue", "schema", "deploy",
];

/// One generated entry: (words, kind, room, plan, time step, supersede the entry this
/// many back).
pub(crate) type Spec = (Vec<usize>, u8, u8, u8, u8, u8);

/// The index of `specs`; every fifth entry names each audience in turn (the ranking
/// ignores it; the selection's pool does not).
pub(crate) fn build(specs: &[Spec]) -> LedgerIndex {
    let mut ix = LedgerIndex::default();
    // Times never go down (file order is time order), with ties, some after NOW.
    let mut ts = NOW - 3600 * 24 * 30;
    for (i, (words, kind, room, plan, step, back)) in specs.iter().enumerate() {
        ts += i64::from(*step % 4) * 3600 * 24;
        let summary: Vec<&str> = words.iter().map(|&w| WORDS[w % WORDS.len()]).collect();
        let e = Entry {
            id: format!("e{i}"),
            ts: Timestamp(ts).to_rfc3339(),
            kind: Kind::ALL[*kind as usize % Kind::ALL.len()],
            room_id: format!("room-{}", room % 5),
            author_role: "engineer".into(),
            ref_: format!("EPIC-{}", room % 5),
            tags: vec![],
            summary: summary.join(" "),
            detail: String::new(),
            supersedes: (*back > 0 && (*back as usize) <= i)
                .then(|| format!("e{}", i - *back as usize)),
            plan_id: (plan % 3 > 0).then(|| format!("plan-{}", plan % 3)),
            redacted: vec![],
            audience: [None, Some(crate::entry::Audience::Room), None]
                .get(i % 5)
                .copied()
                .flatten()
                .or(match i % 7 {
                    3 => Some(crate::entry::Audience::Downstream),
                    5 => Some(crate::entry::Audience::Project),
                    _ => None,
                }),
        };
        let loc = Loc {
            line: i as u64 + 1,
            offset: 0,
        };
        ix.apply(&EntryRef::from(&e), Timestamp(ts), loc, b"");
    }
    ix
}

/// Random ledgers of up to 200 entries, for [`build`].
pub(crate) fn specs() -> impl Strategy<Value = Vec<Spec>> {
    prop::collection::vec(
        (
            prop::collection::vec(0usize..8, 1..4),
            0u8..6,
            0u8..5,
            0u8..3,
            0u8..4,
            0u8..6,
        ),
        1..200,
    )
}

pub(crate) fn scorer(ranking: u8) -> Scorer {
    Scorer {
        now: Timestamp(NOW),
        half_lives: crate::config::Settings::default().half_life_hours,
        ranking: [Ranking::Relevance, Ranking::default(), Ranking::Seed][ranking as usize % 3],
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    #[test]
    fn cells_rank_like_the_scan(
        specs in prop::collection::vec(
            (prop::collection::vec(0usize..8, 1..4), 0u8..6, 0u8..5, 0u8..3, 0u8..4, 0u8..6),
            0..200),
        own in 0u8..6,
        own_plan in prop::option::of(0u8..3),
        upstream in prop::collection::vec((0u8..6, 0u8..3, 1u32..4), 0..4),
        keywords in prop::collection::vec(0usize..9, 0..3),
        head in 0usize..24,
        ranking in 0u8..3,
    ) {
        let ix = build(&specs);
        prop_assert!(ix.in_time_order());
        let scope = Scope {
            room_id: format!("room-{own}"),
            plan_id: own_plan.map(|p| format!("plan-{p}")),
            upstream: upstream
                .iter()
                .map(|(r, p, d)| (format!("room-{r}"), format!("plan-{p}"), *d))
                .collect(),
        };
        // Index 8 is a word no entry has.
        let keywords: Vec<String> =
            keywords.iter().map(|&w| WORDS.get(w).unwrap_or(&"zebra").to_string()).collect();
        let sc = scorer(ranking);
        let mut scratch = Scratch::default();
        let fast = rank(&ix, &scope, &keywords, &sc, &mut scratch, head, None);
        let reference = rank_with(&ix, &scope, &keywords, &sc, &mut scratch, head, false, None);
        prop_assert_eq!(fast, reference);
    }

    /// The ranking at a horizon of the whole ledger is the ranking of an index rebuilt
    /// from the prefix: same head (bit for bit), same counts.
    #[test]
    fn ranking_at_a_horizon_is_the_prefix_ranking(
        specs in prop::collection::vec(
            (prop::collection::vec(0usize..8, 1..4), 0u8..6, 0u8..5, 0u8..3, 0u8..4, 0u8..6),
            1..160),
        cut in 0.0f64..1.0,
        own in 0u8..6,
        upstream in prop::collection::vec((0u8..6, 0u8..3, 1u32..4), 0..4),
        keywords in prop::collection::vec(0usize..9, 0..3),
        head in 0usize..24,
        ranking in 0u8..3,
    ) {
        let cut = (cut * specs.len() as f64) as usize;
        let whole = build(&specs);
        let prefix = build(&specs[..cut]);
        let h = whole.horizon_at_line(cut as u64);
        prop_assert_eq!(h as usize, cut);
        let scope = Scope {
            room_id: format!("room-{own}"),
            plan_id: None,
            upstream: upstream
                .iter()
                .map(|(r, p, d)| (format!("room-{r}"), format!("plan-{p}"), *d))
                .collect(),
        };
        let keywords: Vec<String> =
            keywords.iter().map(|&w| WORDS.get(w).unwrap_or(&"zebra").to_string()).collect();
        let sc = scorer(ranking);
        let mut scratch = Scratch::default();
        let want = rank(&prefix, &scope, &keywords, &sc, &mut scratch, head, None);
        let got = rank_at(&whole, &scope, &keywords, &sc, &mut scratch, head, h);
        let bits = |r: &Ranked| r.head.iter()
            .map(|c| (c.pos, c.group, c.log_score.to_bits(), c.relevance.to_bits()))
            .collect::<Vec<_>>();
        prop_assert_eq!(bits(&got), bits(&want));
        prop_assert_eq!((got.total, got.unrelated), (want.total, want.unrelated));
    }
}

#[test]
fn out_of_order_ledgers_are_scanned() {
    let specs: Vec<Spec> = vec![(vec![0], 1, 1, 0, 1, 0), (vec![1], 3, 2, 0, 0, 0)];
    let mut ix = build(&specs);
    let e = Entry {
        id: "old".into(),
        ts: Timestamp(NOW - 3600 * 24 * 365).to_rfc3339(),
        kind: Kind::Warning,
        room_id: "room-3".into(),
        author_role: "qa".into(),
        ref_: "EPIC-3".into(),
        tags: vec![],
        summary: "cache warning".into(),
        detail: String::new(),
        supersedes: None,
        plan_id: None,
        redacted: vec![],
        audience: None,
    };
    let loc = Loc { line: 3, offset: 0 };
    ix.apply(
        &EntryRef::from(&e),
        Timestamp(NOW - 3600 * 24 * 365),
        loc,
        b"",
    );
    assert!(!ix.in_time_order());
    let scope = Scope {
        room_id: "room-0".into(),
        ..Scope::default()
    };
    let mut scratch = Scratch::default();
    let r = rank(
        &ix,
        &scope,
        &["cache".into()],
        &scorer(1),
        &mut scratch,
        10,
        None,
    );
    assert_eq!(
        r,
        rank_with(
            &ix,
            &scope,
            &["cache".into()],
            &scorer(1),
            &mut scratch,
            10,
            false,
            None
        )
    );
    // e0 (a matching decision: group 4), e1 (a convention: group 3), old (group 2).
    assert_eq!(r.total, 3);
    assert_eq!(r.unrelated, 0);
    assert_eq!(
        r.head[0].pos, 2,
        "the old matching warning ranks first (group 2)"
    );
}
