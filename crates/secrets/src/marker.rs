//! The redaction marker, `[REDACTED:<rule>]`: written where a secret was
//! ([`super::scan`]), and taken out again where text is compared rather than shown
//! ([`without_markers`]). The marker is ours, not the publisher's words: two entries that
//! each held a redacted key share the marker, not a subject.

use std::borrow::Cow;

/// How a marker starts.
pub const OPEN: &str = "[REDACTED:";

/// Appends the marker for rule `id` to `out`.
pub(super) fn push(out: &mut String, id: &str) {
    out.push_str(OPEN);
    out.push_str(id);
    out.push(']');
}

/// True if `id` can name a finding inside a marker: not empty, at most 64 bytes, and only
/// ASCII letters, digits, `-`, `_` and `.` (so a marker ends at its first `]` and holds no
/// space).
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// `text` with every marker replaced by one space (borrowed when it holds none). Used on
/// the text overlaps compare (the product's `overlap`); what is stored and shown keeps its
/// markers.
pub fn without_markers(text: &str) -> Cow<'_, str> {
    if !text.contains(OPEN) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        let (before, from) = rest.split_at(at);
        let after_open = from.get(OPEN.len()..).unwrap_or_default();
        match after_open.split_once(']') {
            Some((id, tail)) if valid_id(id) => {
                out.push_str(before);
                out.push(' ');
                rest = tail;
            }
            // Not a marker: keep its first byte (`[`, ASCII) and look on after it.
            _ => {
                out.push_str(before);
                out.push('[');
                rest = from.get(1..).unwrap_or_default();
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn markers_become_spaces_and_other_brackets_stay() {
        assert_eq!(
            without_markers("key [REDACTED:aws-access-token] and [REDACTED:password]."),
            "key   and  ."
        );
        assert_eq!(
            without_markers("[REDACTED:has space] x"),
            "[REDACTED:has space] x"
        );
        assert_eq!(without_markers("[REDACTED:"), "[REDACTED:");
        assert_eq!(without_markers("Ключ [REDACTED:jwt]ы"), "Ключ  ы");
        assert!(matches!(without_markers("plain café"), Cow::Borrowed(_)));
    }

    fn id() -> impl Strategy<Value = String> {
        "[A-Za-z0-9._-]{1,20}"
    }

    proptest! {
        /// Text with markers between pieces that hold no `[`: the pieces, joined by one
        /// space per marker.
        #[test]
        fn markers_between_any_text_leave_the_text(
            parts in proptest::collection::vec(any::<String>().prop_map(|s| s.replace('[', "")), 1..5),
            ids in proptest::collection::vec(id(), 4),
        ) {
            let mut marked = String::new();
            for (i, p) in parts.iter().enumerate() {
                if i > 0 {
                    push(&mut marked, &ids[i - 1]);
                }
                marked.push_str(p);
            }
            prop_assert_eq!(without_markers(&marked).into_owned(), parts.join(" "));
        }

        /// Any text: no panic, no marker of a valid id left, text without one unchanged.
        #[test]
        fn any_text_loses_only_its_markers(t in any::<String>(), t2 in warroom_base::text::strategies::any_script()) {
            for t in [t, t2] {
                let out = without_markers(&t);
                if !t.contains(OPEN) {
                    prop_assert_eq!(out.as_ref(), t.as_str());
                }
                let mut rest = out.as_ref();
                while let Some(at) = rest.find(OPEN) {
                    let after = rest.get(at + OPEN.len()..).unwrap_or_default();
                    if let Some((id, _)) = after.split_once(']') {
                        prop_assert!(!valid_id(id), "{:?} left in {:?}", id, out);
                    }
                    rest = after;
                }
            }
        }
    }
}
