//! The pool's look-up against the pairwise judgement it stands for.

use super::*;
use crate::index::test_support::index_of;
use crate::overlap::{Features, strength};

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
        let mut pool = Pool::build(&ix, &Basis::of(&ix), 2, false).unwrap();
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

/// Rounds over an index that `between` changes after each round, as a daemon's ledger
/// may change while a pass runs with its lock released between rounds.
struct Changing<F: FnMut(&mut crate::index::LedgerIndex)> {
    ix: std::cell::RefCell<crate::index::LedgerIndex>,
    between: std::cell::RefCell<F>,
    rounds: std::cell::Cell<usize>,
}

impl<F: FnMut(&mut crate::index::LedgerIndex)> Changing<F> {
    fn new(ix: crate::index::LedgerIndex, between: F) -> Self {
        Changing {
            ix: ix.into(),
            between: between.into(),
            rounds: 0.into(),
        }
    }
}

impl<F: FnMut(&mut crate::index::LedgerIndex)> Rounds for Changing<F> {
    fn round(
        &self,
        f: &mut dyn FnMut(&crate::index::LedgerIndex) -> crate::error::Result<()>,
    ) -> crate::error::Result<()> {
        let r = f(&self.ix.borrow());
        self.rounds.set(self.rounds.get() + 1);
        (self.between.borrow_mut())(&mut self.ix.borrow_mut());
        r
    }
}

/// Lines that would change the pass's answer: copies of early entries' summaries in a
/// room of their own (new pairs), each superseding a later entry (closed pairs).
fn later_lines(lines: &[String], n: usize) -> Vec<String> {
    (0..n)
        .map(|k| {
            let mut e: serde_json::Value = serde_json::from_str(&lines[k]).unwrap();
            let target: serde_json::Value = serde_json::from_str(&lines[k + 60]).unwrap();
            e["id"] = format!("mem-later-{k:03}").into();
            e["room_id"] = "room-9".into();
            e["ts"] = format!("2026-02-01T00:00:{:02}Z", k % 60).into();
            e["supersedes"] = target["id"].clone();
            e.to_string()
        })
        .collect()
}

fn kept(p: &crate::memory::open_overlaps::Pass) -> Vec<[u32; 4]> {
    p.kept_pairs().collect()
}

/// A pass whose index grows between its rounds (new entries pairing with old ones, and
/// superseding others) finds exactly the pairs of the ledger it began on: entries after
/// its horizon are not looked at and their supersedes are not applied.
#[test]
fn a_pass_in_rounds_finds_the_pairs_of_the_ledger_it_began_on() {
    use crate::memory::open_overlaps::pass;
    let done = std::sync::atomic::AtomicUsize::new(0);
    for seed in 1..=6u64 {
        let lines = ledger(seed, 150);
        let later = later_lines(&lines, 40);
        let before = index_of(&lines);
        let want = kept(&pass(&before, None, &done, false).unwrap());
        assert!(!want.is_empty(), "seed {seed}: the ledger pairs entries");
        // Not vacuous: with the later lines in, the answer differs.
        let all: Vec<String> = lines.iter().chain(&later).cloned().collect();
        let grown = kept(&pass(&index_of(&all), None, &done, false).unwrap());
        assert_ne!(grown, want, "seed {seed}: the later lines change the pairs");

        // One later line after each round.
        let (mut next, mut n) = (later.into_iter(), lines.len());
        let growing = Changing::new(index_of(&lines), |ix| {
            if let Some(line) = next.next() {
                crate::index::test_support::apply_line(ix, n, &line);
                n += 1;
            }
        });
        let got = pass(&growing, None, &done, false).unwrap();
        assert_eq!(kept(&got), want, "seed {seed}");
        assert_eq!(got.basis.h, 150);
        assert!(growing.rounds.get() >= 3, "read in rounds");
        assert!(growing.ix.borrow().len() > 150, "the index grew meanwhile");
    }
}

/// A pass whose ledger is replaced between rounds (an index rebuilt from another file)
/// stops with an error instead of mixing two ledgers.
#[test]
fn a_pass_stops_when_its_ledger_is_replaced() {
    let lines = ledger(3, 150);
    // The same number of entries and more, but other ids from the first on.
    let other: Vec<String> = ledger(4, 200)
        .into_iter()
        .map(|l| l.replace("mem-", "mem-x"))
        .collect();
    let mut other = Some(index_of(&other));
    let r = Changing::new(index_of(&lines), |ix| {
        if let Some(o) = other.take() {
            *ix = o;
        }
    });
    let e = crate::memory::open_overlaps::pass(&r, None, &Default::default(), false)
        .err()
        .expect("the pass stops");
    assert!(e.to_string().contains("replaced"), "{e}");
}
