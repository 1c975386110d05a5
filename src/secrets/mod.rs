//! Secrets never reach the disk: every text field of every write (entries, channel
//! messages, plans) is scanned before anything is written. Depending on the policy
//! ([`crate::config::SecretPolicy`]) a finding is replaced by `[REDACTED:<rule>]` and
//! reported, or the call is refused. Identifiers (rooms, roles, refs) are never redacted:
//! a secret there refuses the call.
//!
//! How a text is scanned:
//! 1. It is normalised first — NFKC (fullwidth `ｐａｓｓｗｏｒｄ` is `password`) with
//!    zero-width and other invisible characters removed — so a secret cannot hide behind
//!    Unicode. When nothing is found the original text is stored unchanged; when something
//!    is, the normalised text is stored with the findings redacted.
//! 2. The rules ([`rules`]): gitleaks' maintained set (~220 rules, each with keywords,
//!    entropy thresholds and allowlists) plus ours; a keyword automaton picks the rules
//!    worth running, so most text runs few.
//! 3. An entropy check for unlabelled tokens: 32+ characters of base64/base64url with
//!    upper case, lower case and digits and ≥ 4.3 bits of entropy per character (an AWS
//!    secret without its label, a PEM body without its header).
//! 4. Placeholders are allowed: `<password>`, `${DB_PASSWORD}`, `xxxx`, `changeme`, `****`,
//!    `your-api-key` and the like, so prose and examples are not mangled.

mod rules;

use std::ops::Range;

use unicode_normalization::UnicodeNormalization;

pub use rules::rules;
use rules::{Allow, Target};

/// What a scan found and the text with every finding replaced.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scan {
    /// The text, secrets replaced by `[REDACTED:<kind>]` (the input unchanged when
    /// nothing was found).
    pub text: String,
    /// Kinds found, in order of first appearance, without repeats.
    pub kinds: Vec<String>,
}

/// Characters that render as nothing and can split a secret.
fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}'
    )
}

/// NFKC with invisible characters removed.
pub fn normalize(text: &str) -> String {
    text.nfkc().filter(|&c| !invisible(c)).collect()
}

/// Shannon entropy in bits per byte.
pub fn entropy(s: &[u8]) -> f64 {
    if s.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in s {
        counts[b as usize] += 1;
    }
    let n = s.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// A value that stands for a secret rather than being one.
fn placeholder(secret: &[u8]) -> bool {
    let s = String::from_utf8_lossy(secret).to_ascii_lowercase();
    let s = s.trim_matches(|c| matches!(c, '"' | '\'' | '`'));
    if s.is_empty() || (s.starts_with('<') && s.ends_with('>')) {
        return true;
    }
    if s.starts_with('$') || s.starts_with("%") || s.starts_with("{{") {
        return true; // ${VAR}, $VAR, %VAR%, {{ template }}
    }
    const WORDS: &[&str] = &[
        "xxxx",
        "****",
        "....",
        "changeme",
        "change_me",
        "change-me",
        "placeholder",
        "your_",
        "your-",
        "yourpass",
        "redacted",
        "dummy",
        "replace_me",
        "replace-me",
        "<",
        "example.com",
    ];
    WORDS.iter().any(|w| s.contains(w))
}

/// An unquoted value of a `password=`/`key=` rule must look like a secret, not prose.
fn looks_secret(value: &[u8]) -> bool {
    if value.first().is_some_and(|c| matches!(c, b'"' | b'\'')) {
        return true;
    }
    // Code, not a value: `tokens.next()`, `args[0]`, `{config.key}`.
    if value.iter().any(|c| b"()[]{}<>".contains(c)) {
        return false;
    }
    value
        .iter()
        .any(|c| c.is_ascii_digit() || !(c.is_ascii_alphanumeric() || *c >= 0x80))
}

/// How far around a match a `line` allowlist looks.
const LINE_WINDOW: usize = 256;

fn allowed(a: &Allow, secret: &[u8], whole: Range<usize>, text: &[u8]) -> bool {
    if a.stopwords.as_ref().is_some_and(|w| w.is_match(secret)) {
        return true;
    }
    let target: &[u8] = match a.target {
        Target::Secret => secret,
        Target::Match => &text[whole.clone()],
        Target::Line => {
            // The line around the match, at most LINE_WINDOW bytes either side: a 16 KB
            // line of 400 matches must not cost 400 scans of 16 KB.
            let lo = whole.start.saturating_sub(LINE_WINDOW);
            let hi = (whole.end + LINE_WINDOW).min(text.len());
            let s = text[lo..whole.start]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(lo, |i| lo + i + 1);
            let e = text[whole.end..hi]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(hi, |i| whole.end + i);
            &text[s..e]
        }
    };
    a.regexes.iter().any(|r| r.is_match(target))
}

/// Findings in `text`: (byte range of the secret, rule id).
fn find(text: &str) -> Vec<(Range<usize>, &'static str)> {
    let set = rules();
    let bytes = text.as_bytes();
    let mut run = vec![false; set.rules.len()];
    for i in &set.always {
        run[*i] = true;
    }
    for m in set.keywords.find_overlapping_iter(bytes) {
        for &i in &set.owners[m.pattern().as_usize()] {
            run[i] = true;
        }
    }
    let mut out: Vec<(Range<usize>, &'static str)> = Vec::new();
    for (i, rule) in set.rules.iter().enumerate() {
        if !run[i] {
            continue;
        }
        for caps in rule.re.captures_iter(bytes) {
            let whole = caps.get(0).expect("a match");
            let secret = match rule.group {
                Some(g) => caps.get(g),
                None => (1..caps.len()).find_map(|g| caps.get(g)).or(Some(whole)),
            };
            let Some(secret) = secret else { continue };
            let value = secret.as_bytes();
            if rule.entropy.is_some_and(|e| entropy(value) <= e)
                || placeholder(value)
                || (matches!(rule.id.as_str(), "password" | "api-key") && !looks_secret(value))
                || allowed(&set.global, value, whole.range(), bytes)
                || rule
                    .allow
                    .iter()
                    .any(|a| allowed(a, value, whole.range(), bytes))
            {
                continue;
            }
            out.push((secret.range(), rules::id_of(rule)));
        }
    }
    out.extend(high_entropy_tokens(bytes));
    out
}

/// Unlabelled high-entropy tokens (see the module doc, step 3).
fn high_entropy_tokens(bytes: &[u8]) -> Vec<(Range<usize>, &'static str)> {
    let token = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'_' | b'-');
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !token(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && token(bytes[i]) {
            i += 1;
        }
        let t = &bytes[start..i];
        if t.len() >= 32
            && t.iter().any(u8::is_ascii_uppercase)
            && t.iter().any(u8::is_ascii_lowercase)
            && t.iter().any(u8::is_ascii_digit)
            && entropy(t) >= 4.3
            && !placeholder(t)
        {
            out.push((start..i, "high-entropy-token"));
        }
    }
    out
}

/// Scans `text` for secrets.
pub fn scan(text: &str) -> Scan {
    let norm = normalize(text);
    let mut found = find(&norm);
    if found.is_empty() {
        return Scan {
            text: text.to_string(),
            kinds: Vec::new(),
        };
    }
    // Earliest first; of two overlapping findings the one starting first (then the
    // longer) names the redaction and the union of both is redacted.
    found.sort_by_key(|(r, _)| (r.start, std::cmp::Reverse(r.end)));
    let mut merged: Vec<(Range<usize>, &'static str)> = Vec::new();
    for (r, id) in found {
        match merged.last_mut() {
            Some((last, _)) if r.start < last.end => last.end = last.end.max(r.end),
            _ => merged.push((r, id)),
        }
    }
    let mut out = String::with_capacity(norm.len());
    let mut kinds: Vec<String> = Vec::new();
    let mut at = 0;
    for (r, id) in merged {
        let (mut s, mut e) = (r.start, r.end);
        while !norm.is_char_boundary(s) {
            s -= 1;
        }
        while !norm.is_char_boundary(e) {
            e += 1;
        }
        if s < at {
            s = at;
        }
        out.push_str(&norm[at..s]);
        out.push_str("[REDACTED:");
        out.push_str(id);
        out.push(']');
        at = e;
        if !kinds.iter().any(|k| k == id) {
            kinds.push(id.to_string());
        }
    }
    out.push_str(&norm[at..]);
    Scan { text: out, kinds }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_in_place_and_names_the_rule() {
        let s = scan("password=hunter2! and AKIAUVW75EFR6EDT4SYW here");
        assert_eq!(
            s.text,
            "password=[REDACTED:password] and [REDACTED:aws-access-token] here"
        );
        assert_eq!(s.kinds, vec!["password", "aws-access-token"]);
    }

    #[test]
    fn unicode_cannot_hide_a_secret() {
        let s = scan("ｐａｓｓｗｏｒｄ＝Hunter2!x");
        assert_eq!(s.text, "password=[REDACTED:password]");
        let s = scan("AKIAUVW75E\u{200B}FR6EDT4SYW");
        assert_eq!(s.text, "[REDACTED:aws-access-token]");
        // Nothing found: the original text is kept exactly, ligatures and all.
        let s = scan("ﬁle ｗｉｄｅ notes");
        assert_eq!(s.text, "ﬁle ｗｉｄｅ notes");
        assert!(s.kinds.is_empty());
    }

    #[test]
    fn placeholders_and_prose_are_left_alone() {
        for text in [
            "Chose bcrypt over argon2 for password hashing",
            "password: must be at least twelve characters",
            "secret: handshake",
            "DB_PASSWORD=<password>",
            "export API_KEY=${API_KEY}",
            "password=changeme",
            "let token = tokens.next();",
        ] {
            let s = scan(text);
            assert!(s.kinds.is_empty(), "{text} → {:?}", s.kinds);
            assert_eq!(s.text, text);
        }
    }

    #[test]
    fn entropy_separates_random_from_words() {
        assert!(entropy(b"c7Tvo+hBKqFYY+kv5ZJr3J1TWDtkwtDDb/xHKas1") > 4.3);
        assert!(entropy(b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") < 0.1);
        assert_eq!(
            scan("c7Tvo+hBKqFYY+kv5ZJr3J1TWDtkwtDDb/xHKas1").kinds,
            vec!["high-entropy-token"]
        );
        assert!(
            scan("HTTPServer2ConnectionPoolManagerFactoryImpl")
                .kinds
                .is_empty()
        );
    }
}
