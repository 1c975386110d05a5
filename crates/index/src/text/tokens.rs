//! Identifier-aware tokens: the `bm25` crate's tokenizer for words, plus the parts and the
//! whole of every code identifier, so that `verifyToken`, `verify token`, `verify_token`
//! and `VerifyToken` find each other, and `stripe` finds `src/payments/stripe_client.py`.
//!
//! Rules, applied to each whitespace-separated chunk (so tokenizing never joins text
//! across whitespace, which the chunk cache of [`crate::text`] relies on):
//!
//! 1. An *identifier run* is a maximal run of letters, digits and the joiners
//!    `_ - . / \ : $ #`, with joiners trimmed from both ends (so `done.` is the word
//!    `done`).
//! 2. The run is split into *parts* at every joiner and at case boundaries: lower or digit
//!    followed by upper (`verify|Token`, `v2|Api`), and the last upper of an upper-case run
//!    followed by a lower (`HTTP|Server`). Letters followed by digits stay together
//!    (`sha256`, `v2`); case uses Unicode's definition (`naïve|Café`).
//! 3. A run of one part is an ordinary word. A run of two or more parts is an identifier:
//!    its parts become ordinary words (stemmed, stop words dropped, as the crate does), and
//!    its *whole* is added as one more token — lower-cased letters and digits only
//!    (`verify_token`, `verifyToken` and `verify-token` all give `verifytoken`), not
//!    stemmed. Paths (`/`, `\`, `::`) also add the whole of each compound segment, so
//!    `stripe_client.py` matches inside `src/payments/stripe_client.py`.
//!
//! A query is tokenized the same way, so an exact identifier matches both its parts and
//! its whole and ranks above a text that only shares the parts.

use bm25::{DefaultTokenizer, Language, Tokenizer};

/// Characters that join the parts of an identifier.
fn is_joiner(c: char) -> bool {
    matches!(c, '_' | '-' | '.' | '/' | '\\' | ':' | '$' | '#')
}

/// Separators between path segments (each compound segment also yields its whole).
fn is_path_sep(c: char) -> bool {
    matches!(c, '/' | '\\' | ':')
}

/// The tokenizer the whole index uses, for documents and queries alike.
pub struct Tokens {
    words: DefaultTokenizer,
}

impl Default for Tokens {
    fn default() -> Self {
        Tokens {
            words: DefaultTokenizer::new(Language::English),
        }
    }
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tokens")
    }
}

/// Splits one identifier piece (no joiners) at its case boundaries.
pub fn split_case(piece: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = piece.char_indices().collect();
    let mut cuts = Vec::new();
    for i in 1..chars.len() {
        let (prev, cur) = (chars[i - 1].1, chars[i].1);
        let next = chars.get(i + 1).map(|c| c.1);
        let lower_to_upper = (prev.is_lowercase() || prev.is_numeric()) && cur.is_uppercase();
        let acronym_end =
            prev.is_uppercase() && cur.is_uppercase() && next.is_some_and(char::is_lowercase);
        if lower_to_upper || acronym_end {
            cuts.push(chars[i].0);
        }
    }
    let mut out = Vec::with_capacity(cuts.len() + 1);
    let mut start = 0;
    // Every cut is a position `char_indices` gave: a character boundary.
    for c in cuts {
        #[allow(clippy::string_slice)]
        out.push(&piece[start..c]);
        start = c;
    }
    #[allow(clippy::string_slice)]
    out.push(&piece[start..]);
    out
}

/// The parts of an identifier run, in order.
fn parts(run: &str) -> Vec<&str> {
    run.split(is_joiner)
        .filter(|p| !p.is_empty())
        .flat_map(split_case)
        .collect()
}

/// The whole-identifier token of a run: lower-cased letters and digits only.
fn whole(run: &str) -> String {
    run.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

impl Tokens {
    /// Tokens of `text`, chunk by chunk.
    pub fn tokenize(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for chunk in text.split_whitespace() {
            self.chunk(chunk, &mut out);
        }
        out
    }

    /// Appends the tokens of one whitespace-free chunk to `out`.
    pub fn chunk(&self, chunk: &str, out: &mut Vec<String>) {
        // Fast path: plain words (no joiner, no inner capital) are the common case.
        let plain = !chunk.chars().any(is_joiner)
            && !chunk.chars().skip(1).any(char::is_uppercase)
            && !chunk.chars().any(char::is_numeric);
        if plain {
            out.extend(self.words.tokenize(chunk));
            return;
        }
        let mut rest = String::with_capacity(chunk.len() + 8);
        let mut wholes: Vec<String> = Vec::new();
        let mut run_start: Option<usize> = None;
        let flush = |run: &str, rest: &mut String, wholes: &mut Vec<String>| {
            let run = run.trim_matches(is_joiner);
            let ps = parts(run);
            if ps.len() < 2 {
                rest.push_str(run);
                rest.push(' ');
                return;
            }
            for p in &ps {
                rest.push_str(p);
                rest.push(' ');
            }
            push_whole(wholes, whole(run));
            if run.contains(is_path_sep) {
                for seg in run.split(is_path_sep).filter(|s| parts(s).len() >= 2) {
                    push_whole(wholes, whole(seg));
                }
            }
        };
        for (i, c) in chunk.char_indices() {
            let inside = c.is_alphanumeric() || is_joiner(c);
            match (inside, run_start) {
                (true, None) => run_start = Some(i),
                (false, Some(s)) => {
                    // `s` and `i` come from `char_indices`: character boundaries.
                    #[allow(clippy::string_slice)]
                    flush(&chunk[s..i], &mut rest, &mut wholes);
                    run_start = None;
                    rest.push(' ');
                }
                (false, None) => rest.push(' '),
                (true, Some(_)) => {}
            }
        }
        if let Some(s) = run_start {
            #[allow(clippy::string_slice)] // `s` is from `char_indices`
            flush(&chunk[s..], &mut rest, &mut wholes);
        }
        out.extend(self.words.tokenize(&rest));
        out.extend(wholes);
    }
}

fn push_whole(wholes: &mut Vec<String>, w: String) {
    if !w.is_empty() && !wholes.contains(&w) {
        wholes.push(w);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<String> {
        Tokens::default().tokenize(s)
    }

    #[test]
    fn case_boundaries() {
        assert_eq!(split_case("verifyToken"), ["verify", "Token"]);
        assert_eq!(split_case("HTTPServer"), ["HTTP", "Server"]);
        assert_eq!(
            split_case("parseHTTPResponse"),
            ["parse", "HTTP", "Response"]
        );
        assert_eq!(split_case("v2Api"), ["v2", "Api"]);
        assert_eq!(split_case("sha256sum"), ["sha256sum"]);
        assert_eq!(split_case("naïveCafé"), ["naïve", "Café"]);
        assert_eq!(split_case("ABC"), ["ABC"]);
        assert_eq!(split_case("Éclair"), ["Éclair"]);
    }

    #[test]
    fn identifier_spellings_share_parts_and_whole() {
        let a = toks("verifyToken");
        for other in [
            "verify_token",
            "verify-token",
            "VerifyToken",
            "VERIFY_TOKEN",
        ] {
            assert_eq!(toks(other), a, "{other}");
        }
        assert_eq!(a, ["verifi", "token", "verifytoken"]);
        // The spaced words share the parts but not the whole.
        assert_eq!(toks("verify token"), ["verifi", "token"]);
    }

    #[test]
    fn paths_yield_parts_segment_wholes_and_the_whole_path() {
        let t = toks("src/payments/stripe_client.py");
        for want in ["src", "payment", "stripe", "client", "py", "stripeclientpy"] {
            assert!(t.iter().any(|x| x == want), "{want} missing from {t:?}");
        }
        assert!(
            t.contains(&"srcpaymentsstripeclientpy".to_string()),
            "{t:?}"
        );
        // The file name as a query shares the segment's whole.
        let q = toks("stripe_client.py");
        assert!(q.contains(&"stripeclientpy".to_string()));
    }

    #[test]
    fn prose_punctuation_is_not_an_identifier() {
        assert_eq!(toks("Done."), toks("done"));
        assert_eq!(toks("(frozen)"), ["frozen"]);
        assert_eq!(toks("passwords,"), ["password"]);
    }

    #[test]
    fn acronyms_digits_unicode_and_refs() {
        assert!(toks("HTTPServer").contains(&"httpserver".to_string()));
        assert!(toks("HTTPServer").contains(&"server".to_string()));
        assert!(toks("v2Api").contains(&"v2api".to_string()));
        let r = toks("EPIC-001");
        assert!(r.contains(&"epic".to_string()) && r.contains(&"epic001".to_string()));
        let u = toks("naïveCafé");
        assert!(u.contains(&"naïvecafé".to_string()), "{u:?}");
        assert!(toks("frozen_clock").contains(&"frozen".to_string()));
        assert!(toks("require_user").contains(&"requir".to_string()));
    }

    #[test]
    fn never_joins_across_whitespace() {
        let t = Tokens::default();
        for s in ["a_b c_d", "fooBar  baz.qux", "x\ty_z"] {
            let mut chunked = Vec::new();
            for c in s.split_whitespace() {
                t.chunk(c, &mut chunked);
            }
            assert_eq!(chunked, t.tokenize(s));
        }
    }
}
