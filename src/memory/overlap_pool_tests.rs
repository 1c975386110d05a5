//! The pool's look-up against the pairwise judgement it stands for.

use super::*;
use crate::index::test_support::index_of;
use crate::memory::overlaps::{Features, strength};

/// A small ledger whose entries share words, identifiers and refs in every mix: rooms,
/// kinds and refs drawn from few values, summaries from a small vocabulary (some words
/// frequent enough to be the group's bits, some rare), identifiers now and then.
fn ledger(seed: u64, n: u32) -> Vec<String> {
    // Beyond the 24 common words, 144 made-up ones (two syllables each): more than the
    // group's frequent bits, so words the budget leaves unread are looked up in runs.
    let syl = [
        "ba", "ko", "mi", "ru", "te", "lo", "sa", "vi", "ne", "do", "pu", "fe",
    ];
    let common = [
        "token",
        "expiry",
        "queue",
        "cache",
        "login",
        "refresh",
        "index",
        "schema",
        "retry",
        "billing",
        "cents",
        "decimal",
        "search",
        "session",
        "cookie",
        "redis",
        "argon2id",
        "bcrypt",
        "webhook",
        "payload",
        "locale",
        "timeout",
        "migration",
        "consumer",
    ];
    let words: Vec<String> = common
        .iter()
        .map(|w| w.to_string())
        .chain(
            syl.iter()
                .flat_map(|a| syl.iter().map(move |b| format!("{a}{b}n"))),
        )
        .collect();
    let kinds = ["decision", "interface", "convention", "warning", "artifact"];
    let idents = [
        "require_user",
        "/auth/refresh",
        "order.placed",
        "UUIDv7",
        "RS256",
    ];
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    (0..n)
        .map(|i| {
            // Skewed towards the first words, so some lists are long.
            let count = 2 + next(9) as usize;
            let mut s: Vec<String> = (0..count)
                .map(|_| {
                    let a = next(words.len() as u64) as usize;
                    words[a.min(next(words.len() as u64) as usize)].clone()
                })
                .collect();
            if next(4) == 0 {
                s.push(idents[next(idents.len() as u64) as usize].to_string());
            }
            serde_json::json!({
                "id": format!("mem-{i:04}"),
                "ts": format!("2026-01-01T{:02}:{:02}:{:02}Z", i / 3600, i / 60 % 60, i % 60),
                "kind": kinds[next(kinds.len() as u64) as usize],
                "room_id": format!("room-{}", next(5)),
                "author_role": "engineer",
                "ref": if next(3) == 0 { String::new() } else { format!("EPIC-{}", next(6)) },
                "tags": [],
                "summary": s.join(" "),
                "detail": "",
                "supersedes": null,
            })
            .to_string()
        })
        .collect()
}

/// The entries a look-up of `i` meets: the older carriers of its keys' lists, read
/// rarest first (length, then key) while their lengths add up to at most the budget;
/// a list without an older carrier is passed over, the first that does not fit ends it.
fn met(pool: &Pool, i: usize) -> Vec<usize> {
    let (terms, ids) = pool.runs(i);
    let g = pool.groups[i];
    let mut lists: Vec<(usize, Key, &Vec<u32>)> = keys(terms, ids, pool.packed[i].ref_)
        .into_iter()
        .filter_map(|k| pool.lists.get(&(g, k)).map(|l| (l.len(), k, l)))
        .collect();
    lists.sort_unstable_by_key(|&(len, k, _)| (len, k));
    let (mut read, mut out) = (0, Vec::new());
    for (len, _, list) in lists {
        if list[0] as usize >= i {
            continue;
        }
        if read + len > pool.budget {
            break;
        }
        read += len;
        out.extend(list.iter().map(|&j| j as usize).filter(|&j| j < i));
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// A look-up is exact for every entry it meets, whatever the budget leaves unread (the
/// terms of lists not read are looked up in the candidates' runs, behind their
/// signatures): an entry's partners are the strongest entries met of other rooms by the
/// pairwise judgement (ties: the newer). With the whole budget on a small ledger, every
/// older entry sharing a key is met; with a budget of 2–30 most keys are left unread.
#[test]
fn partners_are_the_pairwise_judgements_strongest() {
    let mut found_any = 0;
    for seed in 1..=30u64 {
        let budget = [BUDGET, 2, 4, 12, 30][seed as usize % 5];
        let lines = ledger(seed, 150);
        let ix = index_of(&lines);
        let mut pool = Pool::build(&ix, 2).unwrap();
        pool.budget = budget;
        let feats: Vec<Features> = pool
            .pos
            .iter()
            .map(|&p| Features::from_entry(&ix, ix.entry(p).unwrap()))
            .collect();
        let mut sc = Scratch::new(&pool);
        for i in 0..pool.len() {
            let mut want: Vec<(usize, f64)> = met(&pool, i)
                .into_iter()
                .filter(|&j| feats[i].compared_with(&feats[j]))
                .filter_map(|j| strength(&feats[i], &feats[j]).map(|s| (j, s)))
                .collect();
            want.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
            want.truncate(KEEP);
            let got = pool.partners(i, &mut sc);
            assert_eq!(got, want, "seed {seed}, entry {i}: {}", feats[i].summary);
            found_any += got.len();
        }
    }
    // Not vacuous: the ledgers pair entries.
    assert!(found_any > 300, "pairs found: {found_any}");
}
