//! Search, exhaustive and pruned (block-max MaxScore), returns exactly the hits of a
//! brute-force reference on random ledgers, queries, rankings, filters and limits.

use super::*;
use proptest::prelude::*;

const WORDS: [&str; 12] = [
    "cache", "retry", "budget", "token", "auth", "login", "order", "payment", "queue", "index",
    "schema", "deploy",
];

/// Random ledgers: per entry its summary's words, kind, room, age in hours and a length
/// to repeat them to, which makes some entries long enough that their length codes are
/// steps, not lengths ([`crate::norms`]), and still competitive (the repeated
/// words' frequencies grow with the length).
fn build(docs: &[(Vec<usize>, u8, u8, u32, u16)], bulk: bool) -> LedgerIndex {
    let mut ix = LedgerIndex::default();
    if bulk {
        ix.begin_bulk();
    }
    for (i, (words, kind, room, age, pad)) in docs.iter().enumerate() {
        let mut summary: Vec<&str> = words.iter().map(|&w| WORDS[w % WORDS.len()]).collect();
        // Every fourth entry names a ticket no other names: a list of one posting, which
        // is bounded by that posting itself.
        let ticket = format!("ticket{i}");
        if i % 4 == 0 {
            summary.push(&ticket);
        }
        let filler: Vec<&str> = summary
            .iter()
            .copied()
            .cycle()
            .take(usize::from(*pad))
            .collect();
        if i % 2 == 0 {
            summary.extend(&filler);
        }
        let ts = Timestamp(parse_rfc3339(NOW).unwrap().0 - i64::from(*age) * 3600);
        let mut e = entry(
            &format!("e{i}"),
            &ts.to_rfc3339(),
            Kind::ALL[*kind as usize % Kind::ALL.len()],
            &format!("room-{}", room % 4),
            &[WORDS[(*room as usize) % WORDS.len()]],
            &summary.join(" "),
        );
        if i % 3 == 0 {
            e.detail = format!("{} details", WORDS[(i / 3) % WORDS.len()]);
        }
        if i % 2 == 1 && *pad > 0 {
            e.detail = format!("{} {}", WORDS[(i / 2) % WORDS.len()], filler.join(" "));
        }
        add(&mut ix, e);
    }
    if bulk {
        ix.end_bulk();
    }
    ix
}

/// Search by brute force: every document's score accumulated term by term, every
/// match filtered and timed, all sorted.
fn reference(
    ix: &LedgerIndex,
    text: &str,
    filter: &Compiled,
    limit: usize,
    sc: &Scorer,
) -> (Vec<SearchHit>, usize) {
    let mut scratch = Scratch::default();
    ix.text
        .score(&ix.text.query(text), sc.ranking.scoring(), &mut scratch);
    let mut hits: Vec<SearchHit> = scratch
        .drain()
        .filter(|&(pos, _)| {
            filter.matches_meta(ix.meta(pos)) && filter.matches_tags(ix.tags_of(pos))
        })
        .map(|(pos, bm25)| SearchHit::at(ix, pos, bm25, sc))
        .collect();
    let total = hits.len();
    hits.sort_by(|a, b| ix.hit_order(a, b));
    hits.truncate(limit);
    (hits, total)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn pruned_equals_exhaustive(
        docs in prop::collection::vec(
            (prop::collection::vec(0usize..12, 1..8), 0u8..6, 0u8..6, 0u32..2000,
             prop_oneof![3 => Just(0u16), 1 => 0u16..600]), 1..300),
        query in prop::collection::vec(0usize..12, 1..4),
        limit in 1usize..12,
        ranking in 0u8..3,
        exclude in prop::option::of(0u8..4),
        in_time_order in any::<bool>(),
        bulk in any::<bool>(),
        ticket in prop::option::of(0usize..300),
    ) {
        let mut docs = docs;
        if in_time_order {
            // Oldest first: file order is time order, and windows bound the time factor.
            docs.sort_by_key(|d| std::cmp::Reverse(d.3));
        }
        // Bounded posting by posting, or all at once at the end of a bulk load.
        let ix = build(&docs, bulk);
        prop_assert!(!in_time_order || ix.in_time_order());
        let text: Vec<&str> = query.iter().map(|&w| WORDS[w]).collect();
        let mut text = text.join(" ");
        if let Some(t) = ticket {
            text.push_str(&format!(" ticket{t}"));
        }
        let ranking = [Ranking::Relevance, Ranking::default(), Ranking::Seed][ranking as usize];
        let sc = scorer(parse_rfc3339(NOW).unwrap(), ranking);
        let filter = Filter {
            exclude_room: exclude.map(|r| RoomPattern::parse("x", &format!("room-{r}")).unwrap()),
            ..Filter::default()
        }
        .compile(&ix);
        let full = ix.search_tuned(&text, &filter, limit, &sc, usize::MAX);
        let pruned = ix.search_tuned(&text, &filter, limit, &sc, 0);
        let (hits, total) = reference(&ix, &text, &filter, limit, &sc);
        prop_assert_eq!(&full.hits, &hits);
        prop_assert_eq!(full.total, total);
        prop_assert!(full.total_exact);
        prop_assert_eq!(&pruned.hits, &hits);
        // Pruned totals are a lower bound (exact only when no posting was looked at).
        if pruned.total_exact {
            prop_assert_eq!(pruned.total, total);
        } else {
            prop_assert!(pruned.total <= total && pruned.total >= pruned.hits.len());
        }
    }
}
