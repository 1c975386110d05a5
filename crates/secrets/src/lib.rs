//! Secrets never reach the disk: every text field of every write (entries, channel
//! messages, plans) is scanned before anything is written. Depending on the policy
//! (the product's `config::SecretPolicy`) a finding is replaced by `[REDACTED:<rule>]` and
//! reported, or the call is refused. Identifiers (rooms, roles, refs) are never redacted:
//! a secret there refuses the call.
//!
//! How a text is scanned:
//! 1. It is normalised first — NFKC (fullwidth `ｐａｓｓｗｏｒｄ` is `password`), every
//!    invisible character removed (the whole Unicode `Cf` class — zero-width characters,
//!    bidi marks, the tag block, the Arabic letter mark, musical formatting — plus the
//!    combining grapheme joiner, variation selectors and Hangul fillers), and JSON's
//!    escapes of `/`, `:` and `@` undone (`https:\/\/hooks…`) — so a secret cannot hide
//!    behind Unicode or an escape. When nothing is found the original text is stored
//!    unchanged; when something is, the normalised text is stored with the findings
//!    redacted.
//! 2. The rules ([`rules`]): gitleaks' maintained set (~220 rules, each with keywords,
//!    entropy thresholds and allowlists) plus ours; a keyword automaton picks the rules
//!    worth running, so most text runs few.
//! 3. An entropy check for unlabelled tokens: 32+ characters of base64/base64url with
//!    upper case, lower case and digits and ≥ 4.3 bits of entropy per character (an AWS
//!    secret without its label, a PEM body without its header) — except what is known to
//!    be public and random-looking, as gitleaks' and detect-secrets' allowlists do:
//!    integrity and checksum values (`sha512-…`, go.sum's `h1:…`), public keys (`ssh-…
//!    AAAA…`, JWKS `"n"`/`"x"` members, `PUBLIC KEY` and `CERTIFICATE` blocks), data URIs,
//!    base64 whose decoded value is plain text, and identifiers made of words.
//! 4. Passwords found by their shape ([`shapes`], with the shapes in [`looks`]): marked
//!    words, random strings and random quoted values anywhere, arguments of command
//!    lines ([`command`]), passwords told in a sentence ([`told`]), and a password beside
//!    its account or in a named markup attribute ([`pairs`]: `root / Sage5513`,
//!    `ops:{PLAIN}…`, `<param name="password" value=…>`) — the tools, keys and phrasings
//!    no rule names.
//! 5. What a rule matched is judged ([`value`]): placeholders are allowed (`<password>`,
//!    `${DB_PASSWORD}`, `%DB_PASS%`, `xxxx`, `changeme`, `****`, `your-api-key`), and so
//!    are references to where a secret is kept (`./db-pass.txt`, `/run/secrets/db`) and
//!    flags that only mention one (`--ask-vault-pass`), where code reads one from
//!    (`process.env.PW`, an ARN, `!vault`), settings that turn authentication off
//!    (`none`), and ids public by design (`pk_live_…`, `phc_…`); an unquoted value must
//!    look like a secret (a digit, a symbol, or random mixed-case letters), so prose is
//!    not mangled.

mod bare;
mod codes;
mod command;
mod data;
mod letters;
mod line;
mod looks;
mod marker;
#[cfg(test)]
mod own_tests;
mod pairs;
mod rules;
mod sentence;
mod shapes;
mod team_rules;
mod told;
mod value;
mod words;

use std::ops::Range;

use unicode_normalization::UnicodeNormalization;

pub use marker::without_markers;
pub use rules::rules;
use rules::{Allow, Target};
pub use team_rules::{ProjectRules, RulesError};
pub use value::entropy;
use value::{known_public, looks_secret, placeholder, public_blocks, reference};

/// What a scan found and the text with every finding replaced.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scan {
    /// The text, secrets replaced by `[REDACTED:<kind>]` (the input unchanged when
    /// nothing was found).
    pub text: String,
    /// Kinds found, in order of first appearance, without repeats.
    pub kinds: Vec<String>,
}

/// Characters that render as nothing and can split a secret: every format character
/// (`Cf`), and the invisible marks and letters outside it.
pub fn invisible(c: char) -> bool {
    use unicode_general_category::{GeneralCategory, get_general_category};
    if c.is_ascii() {
        return false;
    }
    matches!(
        c,
        '\u{034F}' // combining grapheme joiner
            | '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' // Hangul fillers
            | '\u{17B4}' | '\u{17B5}' // Khmer inherent vowels
            | '\u{180B}'..='\u{180F}' // Mongolian variation selectors and separator
            | '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}' // variation selectors
            | '\u{1D159}' | '\u{2800}' // musical null notehead, braille blank
    ) || get_general_category(c) == GeneralCategory::Format
}

/// NFKC with invisible characters removed and JSON's escapes of `/`, `:`, `@` undone.
pub fn normalize(text: &str) -> String {
    let text: String = text.nfkc().filter(|&c| !invisible(c)).collect();
    if !text.contains('\\') {
        return text;
    }
    let mut out = text;
    for (escaped, plain) in [
        ("\\/", "/"),
        ("\\u002f", "/"),
        ("\\u002F", "/"),
        ("\\u003a", ":"),
        ("\\u003A", ":"),
        ("\\u0040", "@"),
        ("\\\"", "\""),
    ] {
        if out.contains(escaped) {
            out = out.replace(escaped, plain);
        }
    }
    out
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
    let mut out = find_by_shape(text);
    let bytes = text.as_bytes();
    let mut told = shapes::password_shaped_args(bytes);
    told.retain(|(r, _)| !data::is_data(bytes, r));
    out.extend(told);
    out
}

/// The findings of the rules that know a secret by its own shape and the words around it
/// (gitleaks' and ours, high-entropy tokens), without the ones that judge a note's prose
/// (a password pasted with a verb, a note that is one random token: [`shapes`]).
fn find_by_shape(text: &str) -> Vec<(Range<usize>, &'static str)> {
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
        for (whole, secret) in rule.matches(bytes) {
            let value = secret.as_bytes();
            if rule
                .entropy
                .is_some_and(|e| entropy(value) <= entropy_floor(value, e))
                || placeholder(value)
                || value::public_id(value)
                || value::in_arn(bytes, whole.start())
                || fingerprint(bytes, secret.start())
                || letters::typed_id(value)
                || (rule.id == "env-password" && (reference(value) || word_token(whole.as_bytes())))
                || names_an_id(&bytes[whole.start()..secret.start()])
                || key_id_after_flag(value, whole.as_bytes())
                || (matches!(
                    rule.id.as_str(),
                    "password"
                        | "api-key"
                        | "cli-password"
                        | "env-secret-value"
                        | "bootstrap-token"
                ) && (!(looks_secret(value)
                    || passphrase(value, whole.as_bytes())
                    // A command's password flag says what its value is.
                    || (rule.id == "cli-password" && looks::diceware(value)))
                    || reference(value)
                    || asks(whole.as_bytes())))
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
    out.retain(|(r, _)| !data::is_data(bytes, r));
    out
}

/// True if the name a match assigns to is an id (`MUX_TOKEN_ID=…`, `apiKeyId: …`,
/// `TWITCH_CLIENT_ID=…` under gitleaks' twitch rule): the secret-word in it names what the
/// id belongs to. A secret's id is the secret (`VAULT_SECRET_ID`, Vault's AppRole).
/// `matched` is what a rule matched before the value: empty for a token found by its
/// own shape.
fn names_an_id(matched: &[u8]) -> bool {
    let end = matched
        .iter()
        .position(|b| b"=:>,".contains(b))
        .unwrap_or(matched.len());
    let name = matched[..end].trim_ascii_end();
    let name = name.strip_suffix(b"\"").unwrap_or(name);
    let name = name.strip_suffix(b"'").unwrap_or(name);
    let lower = name.to_ascii_lowercase();
    // …and so is a service account key's id, as our corpora count it (`private_key_id`).
    if lower.ends_with(b"secret_id")
        || lower.ends_with(b"secretid")
        || lower.ends_with(b"private_key_id")
    {
        return false;
    }
    ["_id", "-id", ".id", "_uid", "_uuid", "_ids"]
        .iter()
        .any(|e| lower.ends_with(e.as_bytes()))
        || ((name.ends_with(b"Id") || name.ends_with(b"ID"))
            && name.len() > 2
            && name[name.len() - 3].is_ascii_lowercase())
}

/// A token's or secret's value that is one short English word (`GREENHOUSE_BOARD_TOKEN=acme`,
/// a public board's name): tokens are long or random. A password may be a word, so a
/// name saying `PASS` keeps its value.
fn word_token(matched: &[u8]) -> bool {
    let Some(eq) = matched.iter().position(|&b| b == b'=') else {
        return false;
    };
    let name = &matched[..eq];
    let value = matched[eq + 1..].trim_ascii().trim_ascii_start();
    let value: Vec<u8> = value
        .iter()
        .copied()
        .filter(|b| !b"'\"".contains(b))
        .collect();
    !name.windows(4).any(|w| w == b"PASS")
        && (3..=12).contains(&value.len())
        && value.iter().all(u8::is_ascii_lowercase)
        && letters::englishness(&value) >= 0.5
}

/// A key's id after a flag naming a key (`altool --apiKey 2X9R4HXF34`, App Store
/// Connect's): up to twelve capitals and digits; keys themselves are longer or mixed.
fn key_id_after_flag(value: &[u8], matched: &[u8]) -> bool {
    let m = String::from_utf8_lossy(matched).to_ascii_lowercase();
    let flag = m.trim_start().starts_with('-') && m.contains("key") && !m.contains("pass");
    flag && value.len() <= 12
        && value
            .iter()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
}

/// A diceware passphrase where the key or flag says password (`--password
/// correct-violet-sugar`, `rabbitmqctl add_user shop X`, whose second argument is the
/// password): lower-case words are a name elsewhere, a passphrase here.
fn passphrase(value: &[u8], matched: &[u8]) -> bool {
    let m = String::from_utf8_lossy(matched).to_ascii_lowercase();
    (m.contains("pass") || m.contains("pwd") || m.contains("add_user")) && looks::diceware(value)
}

/// A match that names no secret: a boolean flag that only mentions a password
/// (`--ask-vault-pass`, `--no-password`: the word after it is the next argument), or an
/// address of the `scheme:user@host` kind (`mailto:ops2@acme.io`).
fn asks(matched: &[u8]) -> bool {
    let m = String::from_utf8_lossy(matched).to_ascii_lowercase();
    let m = m.trim_start_matches(|c: char| c.is_whitespace() || "/'\"=".contains(c));
    let flag = m.trim_start_matches(['-', '/']);
    ["ask-", "ask_", "no-", "prompt-", "read-"]
        .iter()
        .any(|p| flag.starts_with(p))
        || ["mailto:", "sip:", "sips:", "tel:", "xmpp:"]
            .iter()
            .any(|s| m.starts_with(s))
}

/// Unlabelled high-entropy tokens (see the module doc, step 3).
fn high_entropy_tokens(bytes: &[u8]) -> Vec<(Range<usize>, &'static str)> {
    let token = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'_' | b'-');
    let public = public_blocks(bytes);
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
            && !public.iter().any(|r| r.contains(&start))
        {
            if !known_public(bytes, start..i) {
                out.push((start..i, "high-entropy-token"));
            } else if encodes_a_secret(t) {
                out.push((start..i, "encoded-secret"));
            }
        }
    }
    out
}

/// Base64 whose decoded text holds a secret (`eyJjbGllbnRfbmFtZSI6…`: `{"client_name":
/// "ci","secret":"…"}`, a join token): base64 of text is otherwise public (step 3). The
/// decoded text is shorter than the token, so the scan of it ends.
fn encodes_a_secret(t: &[u8]) -> bool {
    value::base64_decode(t)
        .filter(|d| d.len() >= 16 && d.iter().all(|&b| b.is_ascii_graphic() || b == b' '))
        .and_then(|d| String::from_utf8(d).ok())
        .is_some_and(|text| !find(&text).is_empty())
}

/// Scans `text` for secrets.
pub fn scan(text: &str) -> Scan {
    scan_fields(&[text]).pop().expect("one field, one scan")
}

/// [`scan_fields`] with a project's own rules and allowlists as well (see
/// [`ProjectRules`]).
pub fn scan_fields_with(fields: &[&str], project: Option<&ProjectRules>) -> Vec<Scan> {
    scan_fields_in(fields, &|text| {
        let mut found = find(text);
        if let Some(p) = project {
            p.apply(text.as_bytes(), &mut found);
        }
        found
    })
}

/// Scans a list of words (brief keywords): the words are read as one line, each after the
/// other, and a finding redacts only what it covers of each word it overlaps — never a
/// neighbour (`checkout` beside an AWS key stays `checkout`). Words name topics, they are
/// not a note: the prose rules that judge a note by a token no language spells (a note
/// that is one random word, a password pasted with a verb) do not apply, so `kw12x345`
/// stays a keyword; every rule that knows a secret by its own shape does.
pub fn scan_words_with(words: &[&str], project: Option<&ProjectRules>) -> Vec<Scan> {
    let norms: Vec<String> = words.iter().map(|w| normalize(w)).collect();
    let line = norms.join(" ");
    let mut found = find_by_shape(&line);
    if let Some(p) = project {
        p.apply(line.as_bytes(), &mut found);
    }
    let mut at = 0;
    words
        .iter()
        .zip(&norms)
        .map(|(word, norm)| {
            let span = at..at + norm.len();
            at = span.end + 1;
            let own: Vec<(Range<usize>, &'static str)> = found
                .iter()
                .filter(|(r, _)| r.start < span.end && r.end > span.start)
                .map(|(r, id)| {
                    (
                        r.start.max(span.start) - span.start..r.end.min(span.end) - span.start,
                        *id,
                    )
                })
                .collect();
            redact(word, norm, own)
        })
        .collect()
}

/// How much of each side of a junction between two fields is scanned together.
const JUNCTION: usize = 256;

/// Scans the text fields of one write (in their order, e.g. summary then detail): each
/// alone, and every junction of two neighbours as if they were one text, so a token split
/// between summary and detail is still found — and both of its parts redacted.
pub fn scan_fields(fields: &[&str]) -> Vec<Scan> {
    scan_fields_in(fields, &find)
}

type Finder<'a> = dyn Fn(&str) -> Vec<(Range<usize>, &'static str)> + 'a;

fn scan_fields_in(fields: &[&str], find: &Finder<'_>) -> Vec<Scan> {
    let norms: Vec<String> = fields.iter().map(|f| normalize(f)).collect();
    let mut found: Vec<Vec<(Range<usize>, &'static str)>> = norms.iter().map(|n| find(n)).collect();
    for i in 1..norms.len() {
        let (a, b) = (&norms[i - 1], &norms[i]);
        let from = warroom_base::text::ceil_boundary(a, a.len().saturating_sub(JUNCTION));
        let to = warroom_base::text::ceil_boundary(b, b.len().min(JUNCTION));
        let joined = format!("{}{}", a.split_at(from).1, b.split_at(to).0);
        let cut = a.len() - from;
        for (r, id) in find(&joined) {
            if r.start < cut && r.end > cut {
                found[i - 1].push((from + r.start..a.len(), id));
                found[i].push((0..r.end - cut, id));
            }
        }
    }
    fields
        .iter()
        .zip(norms)
        .zip(found)
        .map(|((text, norm), found)| redact(text, &norm, found))
        .collect()
}

/// True if the value at `at` is a key's fingerprint (`SHA256:nThbg6kX…`, `MD5:…`), as
/// `ssh-keygen -l` and a host-key prompt print it: a digest of a public key.
fn fingerprint(bytes: &[u8], at: usize) -> bool {
    let before = &bytes[..at];
    before.ends_with(b"SHA256:") || before.ends_with(b"SHA1:") || before.ends_with(b"MD5:")
}

/// The entropy a rule's value must exceed. A rule's threshold (gitleaks' 3.5) is set for
/// values of many symbols; a random hex string of 20 or more has only sixteen, and 19 % of
/// random 32-digit hex keys fall below 3.5 (`9df1ed9e67…`). Such a value must exceed 3.0,
/// which a random one of 24 or more misses less than once in 200 times; a run of one
/// pattern (`deadbeefdeadbeef…`, 2.3) stays below.
fn entropy_floor(value: &[u8], threshold: f64) -> f64 {
    let hex = value.len() >= 20
        && value.iter().all(u8::is_ascii_hexdigit)
        && value.iter().any(u8::is_ascii_digit)
        && value.iter().any(u8::is_ascii_alphabetic);
    if hex { threshold.min(3.0) } else { threshold }
}

/// `text` unchanged when nothing was found; else its normalised form with every finding
/// redacted.
fn redact(text: &str, norm: &str, mut found: Vec<(Range<usize>, &'static str)>) -> Scan {
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
        // Widened to whole characters, and never back over what is already out.
        let s = warroom_base::text::floor_boundary(norm, r.start).max(at);
        let e = warroom_base::text::ceil_boundary(norm, r.end).max(s);
        out.push_str(norm.get(at..s).unwrap_or_default());
        marker::push(&mut out, id);
        at = e;
        if !kinds.iter().any(|k| k == id) {
            kinds.push(id.to_string());
        }
    }
    out.push_str(norm.get(at..).unwrap_or_default());
    Scan { text: out, kinds }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod words_tests;
