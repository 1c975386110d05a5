//! Unit tests of the full-text index: BM25 by hand, fields, identifiers, chunking.

use super::*;

fn index(docs: &[&str]) -> TextIndex {
    let mut ix = TextIndex::default();
    for (i, d) in docs.iter().enumerate() {
        ix.add(i as u32, d, [], "", "");
    }
    ix
}

fn ranked_by(ix: &TextIndex, q: &str, scoring: Scoring) -> Vec<(u32, f64)> {
    let mut s = Scratch::default();
    ix.score(&ix.query(q), scoring, &mut s);
    let mut v: Vec<(u32, f64)> = s.drain().collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

fn ranked(ix: &TextIndex, q: &str) -> Vec<(u32, f64)> {
    ranked_by(ix, q, Scoring::Seed)
}

#[test]
fn stems_and_drops_stop_words() {
    let ix = TextIndex::default();
    assert_eq!(
        ix.tokenize("The Passwords are hashed"),
        vec!["password", "hash"]
    );
}

#[test]
fn bm25_matches_hand_computation() {
    let docs = [
        "bcrypt password hashing",
        "argon2 password",
        "jwt tokens expire",
    ];
    let ix = index(&docs);
    // "bcrypt": df 1 of N 3 → idf = ln(1 + 2.5/1.5); lengths as the tokenizer counts them.
    let lens: Vec<f64> = docs.iter().map(|d| ix.tokenize(d).len() as f64).collect();
    assert_eq!(lens, vec![3.0, 2.0, 3.0]);
    let idf = (1.0f64 + 2.5 / 1.5).ln();
    let dl = lens[0];
    let avgdl = lens.iter().sum::<f64>() / 3.0;
    let expect = idf * 2.2 / (1.0 + 1.2 * (0.25 + 0.75 * dl / avgdl));
    for scoring in [Scoring::Seed, Scoring::Fielded] {
        // With text only in the summary, BM25F is the seed's BM25.
        let got = ranked_by(&ix, "bcrypt", scoring);
        assert_eq!(got.len(), 1);
        assert!(
            (got[0].1 - expect).abs() < 1e-12,
            "{scoring:?}: {} vs {expect}",
            got[0].1
        );
    }
}

#[test]
fn rarer_terms_and_shorter_docs_rank_higher() {
    let ix = index(&[
        "password hashing chosen for the auth service login flow today",
        "password hashing",
        "tokens",
    ]);
    let r = ranked(&ix, "password hashing");
    assert_eq!(r.iter().map(|x| x.0).collect::<Vec<_>>(), vec![1, 0]);
    assert!(ranked(&ix, "nothing-here").is_empty());
    assert!(ranked(&ix, "").is_empty());
}

#[test]
fn detail_and_ref_match_only_when_fielded_and_weigh_less() {
    let mut ix = TextIndex::default();
    ix.add(0, "JWT verification", ["auth"], "", "EPIC-001");
    ix.add(
        1,
        "Token checks",
        [],
        "Keys are vetted and signed with RS256",
        "",
    );
    ix.add(2, "RS256 keys everywhere", [], "", "");
    // The seed sees summary + tags only.
    assert_eq!(ranked_by(&ix, "vetted", Scoring::Seed), vec![]);
    assert_eq!(ranked_by(&ix, "vetted", Scoring::Fielded)[0].0, 1);
    assert_eq!(ranked_by(&ix, "EPIC-001", Scoring::Fielded)[0].0, 0);
    // The same word in the summary outranks it in the detail.
    let r = ranked_by(&ix, "RS256", Scoring::Fielded);
    assert_eq!(r.iter().map(|x| x.0).collect::<Vec<_>>(), vec![2, 1]);
    // Field shares add up to the score and name where the match is.
    let terms = ix.query("vetted");
    let shares = ix.field_shares(&terms, 1);
    let total = ix.score_one(&terms, Scoring::Fielded, 1);
    assert!((shares.iter().sum::<f64>() - total).abs() < 1e-12);
    assert!(shares[2] > 0.0 && shares[0] == 0.0 && shares[3] == 0.0);
    // One document's score is exactly what scoring every document gives it.
    for text in ["RS256 keys", "vetted token checks", "EPIC-001 keys"] {
        let terms = ix.query(text);
        for scoring in [Scoring::Seed, Scoring::Fielded] {
            let mut scratch = Scratch::default();
            ix.score(&terms, scoring, &mut scratch);
            let all: std::collections::HashMap<u32, f64> = scratch.drain().collect();
            for doc in 0..3 {
                let want = all.get(&doc).copied().unwrap_or(0.0);
                assert_eq!(
                    ix.score_one(&terms, scoring, doc),
                    want,
                    "{text} {scoring:?} {doc}"
                );
            }
        }
    }
}

#[test]
fn exact_identifier_outranks_shared_parts() {
    let ix = index(&[
        "verify the token before use",
        "call verifyToken in middleware",
    ]);
    let r = ranked(&ix, "verify_token");
    assert_eq!(r.iter().map(|x| x.0).collect::<Vec<_>>(), vec![1, 0]);
    // The part alone finds both: the prose word and the identifier it is part of.
    let mut both: Vec<_> = ranked(&ix, "verify").iter().map(|x| x.0).collect();
    both.sort_unstable();
    assert_eq!(both, vec![0, 1]);
}

#[test]
fn chunked_tokenizing_equals_whole_text_tokenizing() {
    let texts = [
        "Chose bcrypt over argon2 for password-hashing; don't use MD5!",
        "POST /auth/login returns {token, expires_at} — JWT (RS256)",
        "Café naïve résumé Ångström 中文 日本語 x² ½ e.g. i.e. U.S.A.",
        "tabs\tand\nnewlines\u{a0}nbsp  double  spaces",
        "it's the users' cache: 3.14 v1.2.3 foo_bar foo-bar CamelCase",
        "https://example.com/a/very/long/path/that/is/longer/than/sixty-four/bytes?q=1 and after",
        "",
        "   ",
    ];
    for t in texts {
        let mut ix = TextIndex::default();
        let mut ids = Vec::new();
        // Cut as an entry's summary; each chunk twice, so the second is the cache's answer.
        let mut cut = crate::chunks::Cut::default();
        cut.push(0, t, [], "", "");
        for _ in 0..2 {
            ids.clear();
            for c in cut.entry(0).1[0] {
                ix.chunk_ids(cut.text(c), c.hash, &mut ids);
            }
        }
        let names: Vec<&str> = ids.iter().map(|&id| ix.terms.term(id)).collect();
        assert_eq!(names, ix.tokenize(t), "{t:?}");
    }
}

/// A bulk load's tokenizer cache forgets its cold chunks when the load ends (its hot
/// slots stay), and the index answers as one built entry by entry, before and after
/// more entries come.
#[test]
fn a_bulk_load_forgets_its_cold_chunks_and_answers_the_same() {
    let docs = [
        "chose bcrypt over argon2 for password-hashing; rotate-keys-weekly",
        "jwt tokens expire after 15 minutes, rotate-keys-weekly",
        "the cache of sessions lives in redis",
        "password rotation weekly for service-accounts",
    ];
    let mut bulk = TextIndex::default();
    bulk.begin_bulk();
    for (i, d) in docs[..3].iter().enumerate() {
        bulk.add(i as u32, d, [], "", "");
    }
    let held = bulk.chunks.heap_bytes();
    bulk.end_bulk();
    let hot = bulk.chunks.heap_bytes();
    assert!(hot < held, "{hot} < {held}");
    assert_eq!(hot, TextIndex::default().chunks.heap_bytes());
    let queries = [
        "password",
        "rotate keys weekly",
        "jwt expire",
        "redis sessions",
    ];
    let three = index(&docs[..3]);
    for q in queries {
        assert_eq!(ranked(&bulk, q), ranked(&three, q), "{q}");
    }
    bulk.add(3, docs[3], [], "", "");
    let four = index(&docs);
    for q in queries {
        assert_eq!(ranked(&bulk, q), ranked(&four, q), "{q}");
    }
}

#[test]
fn scratch_is_clean_between_queries() {
    let ix = index(&["alpha beta", "beta gamma"]);
    let mut s = Scratch::default();
    ix.score(&ix.query("beta"), Scoring::Fielded, &mut s);
    let first: Vec<_> = s.drain().collect();
    ix.score(&ix.query("beta"), Scoring::Fielded, &mut s);
    let second: Vec<_> = s.drain().collect();
    assert_eq!(first, second);
}

#[test]
fn length_code_bounds_are_never_below_the_exact_score_and_tight_below_128_tokens() {
    // Summary and detail lengths from 1 to ~1,500 tokens (steps of the length codes from
    // 128 on), the query word once or a few times, in summary, tags, detail or ref.
    let mut ix = TextIndex::default();
    let mut doc = 0;
    for len in (1..200).chain((200..1500).step_by(7)) {
        let filler = vec!["filler"; len].join(" ");
        let few = format!("{} retry retry", vec!["pad"; len % 40].join(" "));
        let shapes: [(&str, &[&str], &str, &str); 4] = [
            (&format!("retry {filler}"), &[], "", ""),
            ("retry", &[], &filler, ""),
            (&few, &["retry"], &format!("retry {filler}"), "retry"),
            (&filler, &[], &format!("{filler} retry"), ""),
        ];
        for (summary, tags, detail, ref_) in shapes {
            ix.add(doc, summary, tags.iter().copied(), detail, ref_);
            doc += 1;
        }
    }
    let q = &ix.query("retry")[0];
    let norms = ix.norms();
    let cn = ix.code_norms(norms);
    let mut inexact = 0;
    for scoring in [Scoring::Seed, Scoring::Fielded] {
        let w = match scoring {
            Scoring::Seed => q.idf_seed,
            Scoring::Fielded => q.idf,
        } * (K1 + 1.0);
        for (i, p) in ix.postings.list(q.term).iter().enumerate() {
            let exact = ix.term_score(q, i, scoring, norms);
            let bound = ix.term_bound(&p, scoring, w, &cn);
            assert!(
                bound >= exact,
                "{scoring:?} doc {}: {bound} < {exact}",
                p.doc
            );
            let len = &ix.docs[p.doc as usize];
            if len.st < crate::norms::EXACT && len.detail < crate::norms::EXACT {
                assert!(bound <= exact * (1.0 + 1e-8) + 1e-12, "{bound} vs {exact}");
            } else if bound > exact * (1.0 + 1e-6) {
                inexact += 1;
            }
        }
    }
    assert!(inexact > 0, "long documents exercise the coded steps");
}

proptest::proptest! {
    /// Every way `seek_back` can go — a few postings back, a guess from the mean gap that
    /// lands before or after the answer, a target before the whole list — counts what a
    /// linear scan counts. Runs of adjacent documents and long gaps make the guess wrong
    /// both ways.
    #[test]
    fn seek_back_counts_what_a_scan_counts(
        gaps in proptest::collection::vec(
            proptest::prop_oneof![3 => 1u32..3, 1 => 3u32..400], 1..600),
        seeks in proptest::collection::vec((0usize..700, 0u32..100_000), 1..40),
    ) {
        let mut ix = TextIndex::default();
        let mut docs = Vec::new();
        let mut doc = 0;
        for g in &gaps {
            doc += g;
            docs.push(doc);
        }
        let last = *docs.last().expect("one gap at least");
        let mut has = docs.iter().copied().peekable();
        for d in 0..=last {
            let text = if has.next_if_eq(&d).is_some() { "needle" } else { "hay" };
            ix.add(d, text, [], "", "");
        }
        let q = ix.query("needle");
        proptest::prop_assert_eq!(q.len(), 1);
        for (end, target) in seeks {
            let end = end.min(docs.len());
            let target = target % (last + 2);
            let want = docs[..end].iter().filter(|&&d| d <= target).count();
            proptest::prop_assert_eq!(ix.seek_back(&q[0], end, target), want, "end {} doc {}", end, target);
        }
    }
}

#[test]
fn term_keys_share_exactly_what_tokens_share_known_or_not() {
    let seen = [
        "Access tokens expire after 15 minutes via /auth/refresh",
        "Money is stored as integer cents (amount_cents)",
    ];
    let ix = index(&seen);
    let texts = [
        seen[0],
        seen[1],
        "Tokens stay valid for 24 hours; /auth/refresh is not needed",
        "Invoices keep DECIMAL dollars, not amount_cents",
        "unseen zebra words entirely",
    ];
    let tokens =
        |t: &str| -> std::collections::BTreeSet<String> { ix.tokenize(t).into_iter().collect() };
    for a in texts {
        let ka = ix.term_keys(a);
        assert_eq!(ka.len(), tokens(a).len(), "{a}");
        assert!(ka.windows(2).all(|w| w[0] < w[1]), "sorted, distinct");
        for b in texts {
            let kb = ix.term_keys(b);
            let shared_keys = ka.iter().filter(|k| kb.contains(k)).count();
            let shared_tokens = tokens(a).intersection(&tokens(b)).count();
            assert_eq!(shared_keys, shared_tokens, "{a} / {b}");
        }
    }
}

#[test]
fn term_keys_remembered_per_thread_follow_the_index_as_it_learns_terms() {
    let mut ix = TextIndex::default();
    ix.add(0, "alpha beta", [], "", "");
    // "Gamma," is no chunk the index has cut: keyed through the memo, unknown at first.
    let before = ix.term_keys("Gamma, alpha");
    assert_eq!(
        before,
        ix.term_keys("Gamma, alpha"),
        "the memo's answer is the same"
    );
    assert!(
        before.iter().any(|k| k >> 63 == 1),
        "gamma is unknown: {before:?}"
    );
    ix.add(1, "gamma", [], "", "");
    let gamma = u64::from(ix.terms.get("gamma").unwrap());
    let after = ix.term_keys("Gamma, alpha");
    assert!(
        after.contains(&gamma),
        "a term learnt since is its id: {after:?}"
    );
    assert!(after.iter().all(|k| k >> 63 == 0));
    // Another index (another generation) with the same number of terms is not confused.
    let mut other = TextIndex::default();
    other.add(0, "gamma delta epsilon", [], "", "");
    assert_eq!(other.terms.len(), ix.terms.len());
    assert_ne!(
        other.terms.get("gamma").unwrap(),
        ix.terms.get("gamma").unwrap()
    );
    assert_eq!(
        other.term_keys("Gamma,"),
        vec![u64::from(other.terms.get("gamma").unwrap())]
    );
}
