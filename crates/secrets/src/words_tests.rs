//! Brief keywords scanned as words ([`super::scan_words_with`]): a secret redacts only its
//! own words, a neighbour never; words are not a note, so a keyword no language spells is
//! a keyword; a secret known by its shape is found wherever it stands.

use super::scan_words_with;

fn scanned(words: &[&str]) -> Vec<String> {
    scan_words_with(words, None)
        .into_iter()
        .map(|s| s.text)
        .collect()
}

#[test]
fn harmless_keywords_are_kept_whatever_stands_beside_them() {
    // False positives of a scan that read the list as a note, or joined the words.
    for words in [
        vec!["kw12x345"],
        vec!["release2024", "utf8mb4", "pgdata2024q4"],
        vec!["checkout", "orders", "shipping address"],
        vec!["iPhone15Pro", "MZ2wDz"],
        vec!["auth", "tokens", "sessions"],
        vec!["checkout", "AKIAZ3MHJK7LQPN4XR2T"],
        vec!["AKIAZ3MHJK7LQPN4XR2T", "checkout"],
    ] {
        let out = scanned(&words);
        for (w, o) in words.iter().zip(&out) {
            if !w.starts_with("AKIA") {
                assert_eq!(w, o, "{words:?} → {out:?}");
            }
        }
    }
}

#[test]
fn a_secret_among_keywords_is_redacted_alone() {
    let out = scanned(&["checkout", "AKIAZ3MHJK7LQPN4XR2T", "payments"]);
    assert_eq!(out[0], "checkout");
    assert!(out[1].starts_with("[REDACTED:aws"), "{out:?}");
    assert_eq!(out[2], "payments");
    let out = scanned(&["ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6", "auth"]);
    assert!(out[0].contains("[REDACTED:github"), "{out:?}");
    assert_eq!(out[1], "auth");
    let out = scanned(&["api_key=Zr8kQ2vLm4TxQ9pW", "auth"]);
    assert!(out[0].contains("REDACTED"), "{out:?}");
    assert_eq!(out[1], "auth");
    // Hidden by an invisible character, still found (the words are normalised first).
    let out = scanned(&["AKIAZ3MH\u{200b}JK7LQPN4XR2T"]);
    assert!(out[0].contains("REDACTED"), "{out:?}");
}

#[test]
fn different_keyword_lists_stay_different() {
    let a = scanned(&["checkout", "AKIAZ3MHJK7LQPN4XR2T"]);
    let b = scanned(&["cart", "AKIAZ3MHJK7LQPN4XR2T"]);
    assert_ne!(a, b, "the lists differ in a word that is no secret");
}

proptest::proptest! {
    #[test]
    fn every_word_maps_to_one_answer(words in proptest::collection::vec(warroom_base::text::strategies::any_script(), 0..6)) {
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        let out = scan_words_with(&refs, None);
        proptest::prop_assert_eq!(out.len(), words.len());
    }
}
