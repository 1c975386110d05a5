//! Cutting text safely: every helper here cuts a `str` only at a character boundary it
//! found, never at a byte it computed, so no input in any script can make it panic.
//!
//! A leaf module: it depends on nothing in the crate, and the core (context, overlaps,
//! secrets, semantic) and the edges (render, console) both cut text through it. Lengths
//! are UTF-8 bytes, as every limit of the ledger is (schemas/ledger-entry.schema.json).
//!
//! Architecture Invariant: `clippy::string_slice` is denied for the crate; the few slices
//! left in hot loops (the index's chunk and word tables) carry an `allow` on that line with
//! the reason the index is a boundary.

/// The largest character boundary of `text` at or below `at` (`text.len()` when beyond).
pub fn floor_boundary(text: &str, at: usize) -> usize {
    if at >= text.len() {
        return text.len();
    }
    // A character is at most 4 bytes, so at most 3 steps back.
    (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

/// The smallest character boundary of `text` at or above `at` (`text.len()` when beyond).
pub fn ceil_boundary(text: &str, at: usize) -> usize {
    (at..text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len())
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
pub fn prefix(text: &str, max: usize) -> &str {
    text.split_at(floor_boundary(text, max)).0
}

/// The first `n` characters of `text` (all of it when shorter).
pub fn prefix_chars(text: &str, n: usize) -> &str {
    let end = text.char_indices().nth(n).map_or(text.len(), |(i, _)| i);
    text.split_at(end).0
}

/// `text` without its first and last character (empty when it has fewer than three).
pub fn inner(text: &str) -> &str {
    let mut cs = text.chars();
    cs.next();
    cs.next_back();
    cs.as_str()
}

/// `text` cut to at most `max` bytes before a `…` that marks the cut (the whole text when
/// it fits). The result may be up to 3 bytes longer than `max` (the mark).
pub fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    format!("{}…", prefix(text, max))
}

/// `text` cut so that the whole result, the `…` mark included, is at most `max` bytes.
pub fn clip_within(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    format!("{}…", prefix(text, max.saturating_sub('…'.len_utf8())))
}

/// `n` with the singular or plural noun: `1 entry`, `3 entries`.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Strategies for property tests of text: this crate's and the crates' above it (the
/// `testing` feature, which only dev-dependencies turn on).
#[cfg(any(test, feature = "testing"))]
pub mod strategies {
    use proptest::prelude::*;

    /// Text drawn from many scripts at once, with combining marks, ZWJ sequences, bidi
    /// controls and invisible characters: the inputs an ASCII-only test never meets.
    pub fn any_script() -> impl Strategy<Value = String> {
        let pieces = prop::sample::select(vec![
            "Café",
            "école",
            "ÉCOLE",
            "Straße",
            "Привет",
            "мир",
            "Καλημέρα",
            "数据库",
            "使用",
            "データ",
            "東京",
            "데이터",
            "مرحبا",
            "שלום",
            "नमस्ते",
            "สวัสดี",
            "İstanbul",
            "ılık",
            "👩\u{200d}💻",
            "🚀",
            "e\u{301}",
            "\u{200b}",
            "\u{202e}",
            "\u{2066}",
            "snake_cäse",
            "v2ñ",
            "naïveCafé",
            "a",
            " ",
            "_",
            "/",
            ".",
            "-",
            "\n",
            "\t",
            "1",
            "Z",
        ]);
        prop_oneof![
            prop::collection::vec(pieces, 0..24).prop_map(|v| v.concat()),
            any::<String>(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::strategies::any_script;
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn cuts_never_panic_and_stay_within(t in any_script(), max in 0usize..64, n in 0usize..32) {
            let p = prefix(&t, max);
            prop_assert!(p.len() <= max && t.starts_with(p));
            // The longest such prefix: one more character would not fit.
            if p.len() < t.len() {
                let next = t.split_at(p.len()).1.chars().next().map_or(0, char::len_utf8);
                prop_assert!(p.len() + next > max);
            }
            prop_assert!(clip_within(&t, max).len() <= max.max('…'.len_utf8()));
            let c = clip(&t, max);
            prop_assert!(c == t || (c.ends_with('…') && c.len() <= max + 3));
            prop_assert_eq!(prefix_chars(&t, n).chars().count(), t.chars().count().min(n));
            let i = inner(&t);
            prop_assert_eq!(i.chars().count(), t.chars().count().saturating_sub(2));
            let f = floor_boundary(&t, max);
            let c = ceil_boundary(&t, max);
            prop_assert!(t.is_char_boundary(f) && t.is_char_boundary(c) && f <= c);
        }
    }

    #[test]
    fn examples() {
        assert_eq!(clip("héllo", 2), "h…");
        assert_eq!(clip("abc", 3), "abc");
        assert_eq!(prefix("Café", 4), "Caf");
        assert_eq!(prefix("Café", 5), "Café");
        assert_eq!(clip("Привет мир", 5), "Пр…");
        assert_eq!(clip_within("数据库使用", 7), "数…");
        assert_eq!(inner("Café"), "af");
        assert_eq!(inner("数据"), "");
        assert_eq!(prefix_chars("数据库", 2), "数据");
        assert_eq!(count(1, "entry", "entries"), "1 entry");
    }
}
