//! The console's escaping with text in any script: what a page shows holds
//! no raw control or direction-changing character, and agent text never becomes markup.

use proptest::prelude::*;

use crate::text::strategies::any_script;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn pages_hold_no_raw_controls_or_markup(t in any_script(), u in any_script()) {
        let bad = |c: char| matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
            || (c.is_control() && c != '\n' && c != '\t');
        let html = super::shell::shown(&t).into_string();
        prop_assert!(!html.chars().any(bad));
        // Markup only from the markers themselves.
        prop_assert_eq!(html.matches('<').count(), html.matches("<span").count() + html.matches("</span").count());
        prop_assert!(!super::shell::plain(&t).chars().any(bad));
        let diff = super::entry::word_diff(&t, &u).into_string();
        prop_assert!(!diff.chars().any(bad));
    }
}
