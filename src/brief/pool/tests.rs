//! The pool from cells equals the pool from the reference scan, and the pool at a horizon
//! equals the pool of the ledger's prefix: the same candidates bit for bit, the same
//! counts — so a brief and its replay choose from the same entries. On random ledgers
//! with every audience, random scopes and bucket sizes.

use proptest::prelude::*;

use crate::brief::select::Version;

use super::*;
use crate::brief::candidates::tests::{WORDS, build, scorer, specs};

fn scope_of(own: u8, upstream: &[(u8, u8, u32)]) -> Scope {
    Scope {
        room_id: format!("room-{own}"),
        plan_id: None,
        upstream: upstream
            .iter()
            .map(|(r, p, d)| (format!("room-{r}"), format!("plan-{p}"), *d))
            .collect(),
    }
}

/// A pool's candidates bit for bit, its counts, its live counts by room, and what the
/// audience kept from it (in all and by upstream room).
type Bits = (
    Vec<(u32, u8, u64, u64, bool)>,
    usize,
    usize,
    Vec<(Sym, usize)>,
    (usize, Vec<(Sym, usize)>),
);

fn bits(p: &Pool) -> Bits {
    let sorted = |m: &HashMap<Sym, usize>| {
        let mut v: Vec<(Sym, usize)> = m.iter().map(|(a, b)| (*a, *b)).collect();
        v.sort_unstable();
        v
    };
    let live = sorted(&p.live_upstream);
    (
        p.candidates
            .iter()
            .map(|c| {
                (
                    c.pos,
                    c.group,
                    c.log_score.to_bits(),
                    c.relevance.to_bits(),
                    c.by_meaning,
                )
            })
            .collect(),
        p.total,
        p.unrelated,
        live,
        (p.held, sorted(&p.held_upstream)),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn cells_pool_like_the_scan(
        specs in specs(),
        own in 0u8..6,
        upstream in prop::collection::vec((0u8..6, 0u8..3, 1u32..4), 0..4),
        keywords in prop::collection::vec(0usize..9, 0..3),
        k in 1usize..6,
        near in 0usize..12,
        ranking in 0u8..3,
        meaning in prop::collection::vec((0u32..220, 0.01f64..1.0), 0..12),
    ) {
        let ix = build(&specs);
        let scope = scope_of(own, &upstream);
        let keywords: Vec<String> =
            keywords.iter().map(|&w| WORDS.get(w).unwrap_or(&"zebra").to_string()).collect();
        let sc = scorer(ranking);
        let mut scratch = Scratch::default();
        // Matches by meaning alone (some past the ledger, some also matched by words).
        // Sizes by distance (nearer rooms' buckets larger) on both paths alike.
        let k = super::Buckets { base: k, near };
        let fast = pool(&ix, &scope, &keywords, &sc, &mut scratch, k, None, &meaning, None, Version::Nearness);
        let r = Resolved::new(&ix, &scope, &sc);
        let mut scratch2 = Scratch::default();
        let mut reference = {
            // The scan over the same scores.
            let text = keywords.join(" ");
            if !text.trim().is_empty() {
                let terms = ix.text.query(&text);
                ix.text.score(&terms, sc.ranking.scoring(), &mut scratch2);
            }
            let by_meaning: HashMap<u32, f64> = meaning
                .iter()
                .copied()
                .filter(|&(p, rel)| rel > 0.0 && scratch2.get(p) <= 0.0)
                .collect();
            by_scan(&r, &scratch2, &by_meaning, k, None)
        };
        reference.candidates.sort_unstable_by(|a, b| a.order(b));
        prop_assert_eq!(bits(&fast), bits(&reference));
        // A pool that says it is whole is: a larger bucket offers nothing more.
        let all = pool(&ix, &scope, &keywords, &sc, &mut scratch, super::Buckets::flat(usize::MAX), None, &meaning, None, Version::Nearness);
        if !fast.cut {
            prop_assert_eq!(all.candidates.len(), fast.candidates.len());
        }
        // In a bucket, every match by words before any match by meaning alone.
        for w in all.candidates.windows(2) {
            let same = |c: &Candidate| (ix.room_of(c.pos), ix.meta(c.pos).kind, c.group);
            if same(&w[0]) == same(&w[1]) {
                prop_assert!(!w[0].by_meaning || w[1].by_meaning);
            }
        }
        // What the audience kept is counted apart, once: every live entry of another
        // room is in exactly one of the eligible, the unrelated and the kept.
        let others = (0..ix.len() as u32)
            .filter(|&p| ix.meta(p).live && ix.room_of(p) != scope.room_id)
            .count();
        prop_assert_eq!(fast.total + fast.unrelated + fast.held, others);
        // No working note of another room, ever; no explicit downstream entry off-DAG.
        for c in &all.candidates {
            let a = ix.audience_of(c.pos);
            prop_assert_ne!(a, Some(crate::entry::Audience::Room));
            if a == Some(crate::entry::Audience::Downstream) {
                prop_assert!(c.distance.is_some());
            }
        }
    }

    #[test]
    fn the_pool_at_a_horizon_is_the_prefix_pool(
        specs in specs(),
        cut in 0.0f64..1.0,
        own in 0u8..6,
        upstream in prop::collection::vec((0u8..6, 0u8..3, 1u32..4), 0..4),
        keywords in prop::collection::vec(0usize..9, 0..3),
        k in 1usize..6,
        ranking in 0u8..3,
    ) {
        let cut = (cut * specs.len() as f64) as usize;
        let whole = build(&specs);
        let prefix = build(&specs[..cut]);
        let h = whole.horizon_at_line(cut as u64);
        let scope = scope_of(own, &upstream);
        let keywords: Vec<String> =
            keywords.iter().map(|&w| WORDS.get(w).unwrap_or(&"zebra").to_string()).collect();
        let sc = scorer(ranking);
        let mut scratch = Scratch::default();
        let k = super::Buckets::flat(k);
        let want = pool(&prefix, &scope, &keywords, &sc, &mut scratch, k, None, &[], None, Version::CURRENT);
        let got = pool(&whole, &scope, &keywords, &sc, &mut scratch, k, None, &[], Some(h), Version::CURRENT);
        // Symbols of rooms first seen after the horizon never appear in the prefix's.
        prop_assert_eq!(bits(&got), bits(&want));
    }
}
