//! Property tests with text in any script for every function that cuts, folds, tokenizes,
//! scans, renders or diffs text: arbitrary `String`s and strings drawn from many
//! scripts with combining marks, ZWJ sequences, bidi controls and invisible characters
//! ([`crate::text::strategies::any_script`]). Each property says what must hold, not only that
//! nothing panics. The same texts through the binary: tests/it/any_script.rs.

use proptest::prelude::*;

use crate::text::strategies::any_script;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// The tokenizer cuts chunk by chunk (the chunk cache relies on it) and folds case.
    #[test]
    fn tokens_are_chunkwise_and_folded(t in any_script()) {
        let tok = crate::index::tokens::Tokens::default();
        let whole = tok.tokenize(&t);
        let mut chunked = Vec::new();
        for c in t.split_whitespace() {
            tok.chunk(c, &mut chunked);
        }
        prop_assert_eq!(&whole, &chunked);
        prop_assert_eq!(tok.tokenize(&t.to_uppercase()).len() <= whole.len() * 4 + 8, true);
        for w in &whole {
            prop_assert!(!w.is_empty());
        }
        for p in crate::index::tokens::split_case(&t) {
            prop_assert!(t.contains(p));
        }
    }

    /// Identifiers are at least three bytes, lower-cased, and never cut inside a character.
    #[test]
    fn identifiers_are_lowercase_words_of_the_text(t in any_script()) {
        for id in crate::overlap::identifiers(&t) {
            prop_assert!(id.len() >= 3, "{id:?}");
            prop_assert_eq!(id.to_lowercase(), id.clone());
        }
    }

    /// Scanning keeps text without a secret as it was, and every redaction
    /// marks what it replaced.
    #[test]
    fn scanning_keeps_or_marks(t in any_script()) {
        let s = crate::secrets::scan(&t);
        if s.kinds.is_empty() {
            prop_assert_eq!(&s.text, &t);
        } else {
            prop_assert!(s.text.contains("[REDACTED:"));
        }
        // Every marker scanning writes names a valid id: compared text loses them all.
        if !t.contains('[') {
            prop_assert!(!crate::secrets::without_markers(&s.text).contains("[REDACTED:"));
        }
        let fields = crate::secrets::scan_fields(&[&t, &t]);
        prop_assert_eq!(fields.len(), 2);
    }

    /// What a terminal or an error message shows holds no raw control or direction
    /// override (the console's escaping: `console::escape_tests`).
    #[test]
    fn shown_text_holds_no_raw_controls(t in any_script()) {
        let bad = |c: char| matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
            || (c.is_control() && c != '\n' && c != '\t');
        prop_assert!(!crate::render::terminal_safe(&t).chars().any(bad));
        prop_assert!(!crate::validate::printable(&t).chars().any(bad));
    }

    /// The semantic model's text keeps at most 600 characters of detail, whole.
    #[test]
    fn embedded_text_is_whole_characters(s in any_script(), d in any_script()) {
        let e = crate::semantic::entry_text(&s, &[], &d);
        prop_assert!(e.starts_with(s.as_str()));
        prop_assert!(e.chars().count() <= s.chars().count() + d.chars().count() + 8);
    }
}

/// A memory of entries in any script: publish, search, overlaps, related, the brief and its
/// markdown bounds all answer, and the ledger holds one line per publish.
mod memory {
    use super::*;
    use std::sync::Arc;

    use crate::api::brief::BriefArgs;
    use crate::api::ledger::{PublishArgs, SearchArgs};
    use crate::clock::{FixedClock, Timestamp};
    use crate::config::{Identity, Paths, Settings};
    use crate::memory::Memory;

    fn open(dir: &std::path::Path) -> Memory {
        let clock = Arc::new(FixedClock::new(Timestamp(1_800_000_000)));
        Memory::open(Paths::under(dir), Settings::default(), clock).unwrap()
    }

    fn who(room: &str) -> Identity {
        Identity {
            room_id: Some(room.into()),
            role: Some("инженер".into()),
            credential: None,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]

        #[test]
        fn every_operation_answers(texts in prop::collection::vec(any_script(), 1..8)) {
            let dir = tempfile::tempdir().unwrap();
            std::fs::create_dir_all(dir.path().join(".agents")).unwrap();
            let m = open(dir.path());
            let mut written = 0;
            for (i, t) in texts.iter().enumerate() {
                let summary = format!("{t} x");
                let room = if i % 2 == 0 { "room-a" } else { "room-b" };
                let tag = crate::text::prefix(t, 40).trim().to_string();
                let tags: Vec<String> = Some(tag)
                    .filter(|s| !s.is_empty() && !s.chars().any(char::is_control))
                    .into_iter()
                    .collect();
                let kind = ["decision", "interface", "convention", "warning"][i % 4];
                let args: PublishArgs = serde_json::from_value(serde_json::json!({
                    "kind": kind, "summary": summary.trim(), "detail": t, "tags": tags,
                }))
                .unwrap();
                // Refused input (a secret, an invalid tag) writes nothing.
                if let Ok(out) = m.publish(args, &who(room)) {
                    prop_assert!(out.warnings.is_empty(), "{:?}", out.warnings);
                    written += 1;
                }
            }
            let lines = std::fs::read_to_string(dir.path().join(".agents/ledger.jsonl"))
                .unwrap_or_default();
            prop_assert_eq!(lines.lines().count(), written);
            for t in &texts {
                let args = SearchArgs { text: t.clone(), ..SearchArgs::default() };
                // An empty or all-punctuation query is an argument error, never a panic.
                let _ = m.search(args, &who("room-c"));
            }
            m.open_overlaps(None, 50).unwrap();
            let asked = m.brief(
                BriefArgs {
                    brief_keywords: Some(texts.clone()),
                    ..BriefArgs::default()
                },
                &who("room-c"),
            );
            // Keywords are short identifiers: a long or control-laden one is refused.
            let brief = match asked {
                Ok(b) => b,
                Err(crate::error::Error::Invalid { field, .. }) => {
                    prop_assert!(field.starts_with("brief_keywords"));
                    m.brief(BriefArgs::default(), &who("room-c")).unwrap()
                }
                Err(e) => return Err(TestCaseError::fail(e.to_string())),
            };
            prop_assert!(brief.markdown.len() <= crate::brief::render::MAX_CONTEXT_BYTES);
        }
    }
}
