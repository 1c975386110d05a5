//! Passwords in a sentence that no word names (part of step 4 of the scan): `Sorry, wrong
//! channel — ignore kcklrmvskrwav13`, `my bad, I pasted Zr8kQ2vLm4Tx here`, `We're
//! standardising on d9wvcu8so9`. People paste a credential into a note with a verb, not a
//! label; what gives it away is that it is the one token of the sentence no language
//! spells. Held to shapes stricter than [`super::told`]'s, and only in prose:
//!
//! - random letters and digits of 8–64 password characters, both cases, two digits or a
//!   mark, not made of words (`iPhone15Pro`) unless their pairs are not English or their
//!   digits are scattered in three runs or more, not a version (`Python3.12`); with `=`
//!   inside only when what precedes it is no name (`leZvtEga4wO5=dor89`);
//! - random letters of both cases with one digit or none (`MZsWDzTmUYiV`), switching case
//!   often or with pairs that are not English — not `PostgreSQL`, not a Pascal-case name;
//! - lower-case letters and two or more digits, not hexadecimal (a commit, a container),
//!   whose letters are not words (`release2024`, `utf8mb4`, `pgdata2024q4`): digits
//!   inside the letters, a run of five consonants (`kcklrmvskrwav13`), pairs that are not
//!   English (`llq15jj0fz4diqo`); twelve or more lower-case letters with one digit or none
//!   whose pairs are not English (`nuuzcvlnldxu0ah`);
//! - 48 or more hexadecimal digits (a signing secret; a commit has 40).
//!
//! A note that is a single such token (or random letters, or a marked word) is one too.
//!
//! A sentence names its ids: a value within five words after `id`, `uid`, `commit`,
//! `video`, `file key`, `ticket`, `sha256`… is an id, one after `like` or `e.g.` an
//! example, and so is one inside a path, an address or a URL. A line is prose when three
//! or more of its words are lower-case words and they are at least a third of its words.

use super::words::lists;
use std::ops::Range;

use super::letters::{foreign, random_letters, random_lower, typed_id, wordy};
use super::line::words;
use super::looks::{given, shaped, upper};

/// True if the word before `key` at `k` makes it an id (`file key`, `primary key`).
pub(super) fn id_key(lower: &[String], k: usize) -> bool {
    bare_word(&lower[k]) == "key"
        && k.checked_sub(1)
            .is_some_and(|p| lists().not_secret_key.matches(bare_word(&lower[p])))
}

fn bare_word(w: &str) -> &str {
    w.trim_matches(|c: char| !c.is_alphanumeric())
}

/// True if `line` reads as prose: three or more lower-case words, a third of its words.
fn prose(lower: &[String], ws: &[Range<usize>], line: &[u8]) -> bool {
    let plain = ws
        .iter()
        .filter(|w| {
            let t = &line[(*w).clone()];
            let t = t
                .strip_suffix(b",")
                .or(t.strip_suffix(b"."))
                .or(t.strip_suffix(b":"))
                .unwrap_or(t);
            t.len() >= 2 && t.iter().all(u8::is_ascii_lowercase)
        })
        .count();
    plain >= 3 && plain * 3 >= lower.len()
}

/// Lower-case letters and two or more digits that are not words nor hexadecimal.
fn lower_noise(v: &[u8]) -> bool {
    let digits = v.iter().filter(|b| b.is_ascii_digit()).count();
    let trailing = v.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    let leading = v.iter().take_while(|b| b.is_ascii_digit()).count();
    if leading == v.len() {
        return false; // a number
    }
    let letters = &v[leading..v.len() - trailing];
    let consonants = letters
        .split(|b| b"aeiouy".contains(b) || b.is_ascii_digit())
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0);
    (8..=64).contains(&v.len())
        && v.iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && digits >= 2
        && v.len() - digits >= 3
        && !v.iter().all(u8::is_ascii_hexdigit)
        && ((digits > leading + trailing
            && ((!wordy(letters) && !long_word(letters)) || foreign(v)))
            || consonants >= 5
            || foreign(v)
            || (v.len() >= 12 && digit_groups(v) >= 3))
}

/// True if `v` holds a word of four or more letters (`Phone` in `iPhone15Pro`): a
/// capital or lower-case letter, then lower case, a third of them vowels, starting with
/// at most two consonants and with no run of four (`wvcu` in `d9wvcu8so9` is none). Short random strings look like words to [`wordy`] by chance
/// (`41JzOYYEfx` is `Jz`, `OYY`, `Efx`); they seldom hold a long one.
pub(super) fn long_word(v: &[u8]) -> bool {
    let vowel = |c: &u8| b"aeiouy".contains(&c.to_ascii_lowercase());
    let mut i = 0;
    while i < v.len() {
        let s = i;
        i += 1;
        if !v[s].is_ascii_alphabetic() {
            continue;
        }
        while i < v.len() && v[i].is_ascii_lowercase() {
            i += 1;
        }
        let run = &v[s..i];
        let vowels = run.iter().filter(|c| vowel(c)).count();
        let onset = run.iter().take_while(|c| !vowel(c)).count();
        if run.len() >= 4
            && vowels * 3 >= run.len()
            && onset <= 2
            && run.split(vowel).all(|c| c.len() <= 3)
        {
            return true;
        }
    }
    false
}

/// Two or more symbols inside the letters, never the same one twice in a row (`mw#@QvUw`;
/// not `**Bold**`, `React&&Vue`).
fn symbols(v: &[u8]) -> bool {
    let mark = |b: &u8| super::looks::MARK.contains(b) || *b == b'@';
    v[0].is_ascii_alphanumeric()
        && v.iter().filter(|b| mark(b)).count() >= 2
        && !v.windows(2).any(|w| mark(&w[0]) && w[0] == w[1])
}

/// Random letters of both cases with at most one digit and two symbols (`MZsWDzTmUYiV`,
/// `OxR2zYuLKRov`, `EdFrRgS*-F`): ten or more characters, three or more letters of each
/// case that switch case often or whose pairs are not English; not made of words
/// (`PostgreSQL`, `GitHubActions`), not a word and a number, not a typed id.
pub(super) fn random_caps(v: &[u8]) -> bool {
    let count = |f: fn(&u8) -> bool| v.iter().filter(|b| f(b)).count();
    let letters = count(u8::is_ascii_alphabetic);
    let others = v.len() - letters - count(u8::is_ascii_digit);
    let switches = v
        .windows(2)
        .filter(|w| {
            w[0].is_ascii_alphabetic()
                && w[1].is_ascii_alphabetic()
                && w[0].is_ascii_uppercase() != w[1].is_ascii_uppercase()
        })
        .count();
    // A word and a number (`Sprint42`), not random letters a symbol ends (`CfpHzXlLA^`).
    let first = v.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    let named = first >= 3
        && v[first..].iter().all(|b| !b.is_ascii_alphabetic())
        && v[first..].iter().any(u8::is_ascii_digit);
    (10..=64).contains(&v.len())
        && v[0].is_ascii_alphanumeric()
        && v.iter()
            .all(|&b| super::looks::password_char(b) && b != b'.')
        && count(u8::is_ascii_digit) <= 1
        && others <= 2
        && count(u8::is_ascii_uppercase) >= 2
        && count(u8::is_ascii_lowercase) >= 2
        && (count(u8::is_ascii_uppercase) >= 3 && count(u8::is_ascii_lowercase) >= 3 || foreign(v))
        && !wordy(v)
        && !named
        && !typed_id(v)
        && (foreign(v) || switches * 3 >= letters - 1)
}

/// Lower-case letters with at most one digit whose pairs are not English: twelve or more
/// (`nuuzcvlnldxu0ah`, `rrptqsfeobhzq`, an app password or a generated one), or eight to
/// eleven with fewer than one pair in four common, six different characters and no word
/// in them (`phdtnzuxrk`, `pqw8oxgw`; a tool's name such as `journalctl` or `pgbouncer`
/// reads as English; in prose, eight or nine letters without a digit are no candidate). Checked against 8,866 such tokens of crates' sources and docs and
/// LoCoMo's dialogue: none is taken.
pub(super) fn lower_letters(v: &[u8]) -> bool {
    // …and not hexadecimal (a short commit), nor a pattern of few letters (`zazabczabcz`).
    let mut seen = [false; 128];
    v.iter().for_each(|&b| seen[usize::from(b & 0x7f)] = true);
    let short = (8..12).contains(&v.len())
        && super::letters::englishness(v) < 0.25
        && !long_word(v)
        && !wordy(v)
        && !v.iter().all(u8::is_ascii_hexdigit)
        && seen.iter().filter(|s| **s).count() >= 6;
    (v.len() >= 12 && foreign(v) || short)
        && v.iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && v.iter().filter(|b| b.is_ascii_digit()).count() <= 1
        && v.iter().filter(|b| b.is_ascii_lowercase()).count() >= 7
}

/// True if the part of `v` before its first `=` is no name (`leZvtEga4wO5=dor89`,
/// `dcm@=MbXDuC`, `sTxHfisXlEF=GN4y`): a mark in it, or both cases and a digit, or four or
/// more letters of both cases that switch case twice and are no words.
/// `maxConnections=100`, `userId=7`, `FOO_BAR=baz` and `sslmode=disable` are assignments.
fn random_before_equals(v: &[u8]) -> bool {
    let i = v.iter().position(|&b| b == b'=').unwrap_or(0);
    let left = &v[..i];
    let switches = left
        .windows(2)
        .filter(|w| w[0].is_ascii_uppercase() != w[1].is_ascii_uppercase())
        .count();
    let caps = left.len() >= 4
        && left.iter().all(u8::is_ascii_alphabetic)
        && upper(left)
        && left.iter().any(u8::is_ascii_lowercase)
        && switches >= 2
        && !wordy(left);
    i > 0
        && i + 1 < v.len()
        && (left
            .iter()
            .any(|b| super::looks::MARK.contains(b) || *b == b'@')
            || caps
            || (upper(left)
                && left.iter().any(u8::is_ascii_lowercase)
                && left.iter().any(u8::is_ascii_digit)))
}

/// Four to eight digits and the `#` that enters them on a keypad (`2576#`, a gate's
/// code): a number in prose is written without it (an issue is `#2576`).
fn keypad_entry(v: &[u8]) -> bool {
    (5..=9).contains(&v.len())
        && v.ends_with(b"#")
        && v[..v.len() - 1].iter().all(u8::is_ascii_digit)
}

/// How many runs of digits `v` holds: a name has one or two (`iPhone15Pro`,
/// `Qwen2VL7B`), random characters scatter theirs (`31nUvxpeghu4b5YboxeNe`).
fn digit_groups(v: &[u8]) -> usize {
    v.chunk_by(|a, b| a.is_ascii_digit() == b.is_ascii_digit())
        .filter(|c| c[0].is_ascii_digit())
        .count()
}

/// Random letters and digits: [`given`], not words, not a version.
fn mixed_noise(v: &[u8]) -> bool {
    let version = v
        .windows(3)
        .any(|w| w[0].is_ascii_digit() && w[1] == b'.' && w[2].is_ascii_digit());
    // An id whose type is spelt before it (`recK2p9QmZx7TtW4a`, `cus_NffrFeUfNV2Hib`).
    let prefix = v.iter().take_while(|b| b.is_ascii_lowercase()).count();
    // …or an upper-case type before a hex body (`ACddeeab5d80…`, a Twilio SID).
    let caps = v.iter().take_while(|b| b.is_ascii_uppercase()).count();
    let typed = typed_id(v)
        || (prefix >= 1 && matches!(v.get(prefix), Some(b'-' | b'_')))
        || ((1..=4).contains(&caps)
            && v[caps..]
                .iter()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b)));
    // A word and a number (`Sprint42`, `Password123`) is a name as often as a password:
    // the other checks judge it by its digits and its context.
    let letters = v.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    let named = letters >= 3 && v[letters..].iter().all(|b| !b.is_ascii_alphabetic());
    given(v)
        && !typed
        && !named
        && !super::looks::named_parts(v)
        && upper(v)
        && (!wordy(v) || !long_word(v) || foreign(v) || digit_groups(v) >= 3)
        && !version
        // A dot ends a file's or a host's name (`notes.txt`, `acme.io`); inside random
        // characters it is one more symbol (`JSLfYC3I7JOa.J`).
        && v
            .rsplit(|&b| b == b'.')
            .next()
            .is_none_or(|last| v.len() == last.len() || !last.iter().all(u8::is_ascii_lowercase))
        && (v.iter().any(u8::is_ascii_digit) || symbols(v))
}

/// A line's words, read once, to ask for each value whether a word before it names an id
/// — one of five in prose (`Figma file key Bq7XwR3k…`, `dashboard uid is aeb7x2…`), the
/// one just before elsewhere (`asset aHk7…`): the context-free shapes ([`super::shapes`])
/// take such a value for an id too.
pub(super) struct Ids {
    ws: Vec<Range<usize>>,
    ids: Vec<bool>,
    prose: bool,
}

impl Ids {
    pub(super) fn new(line: &[u8]) -> Ids {
        let ws = words(line, 0);
        let lower: Vec<String> = ws
            .iter()
            .map(|w| String::from_utf8_lossy(&line[w.clone()]).to_ascii_lowercase())
            .collect();
        let prose = prose(&lower, &ws, line);
        let ids = id_words(&lower);
        Ids { ws, ids, prose }
    }

    /// True if the value at byte `at` is named an id: by one of the five words before it
    /// in prose, by the word just before it elsewhere (`kobotoolbox: asset aHk7…`).
    pub(super) fn named(&self, at: usize) -> bool {
        let k = self.ws.partition_point(|w| w.end <= at);
        let from = if self.prose { 0 } else { k.saturating_sub(1) };
        names_an_id(&self.ids, from, k)
    }
}

/// For each word, whether it names an id (computed once per line: the list is long).
pub(super) fn id_words(lower: &[String]) -> Vec<bool> {
    // A secret's id is the secret (`Secret ID c38d0bba-…`, Nomad's and Vault's).
    let secret_id =
        |p: usize| bare_word(&lower[p]) == "id" && p > 0 && bare_word(&lower[p - 1]) == "secret";
    (0..lower.len())
        .map(|p| {
            (lists().names_an_id.matches(bare_word(&lower[p])) && !secret_id(p)) || id_key(lower, p)
        })
        .collect()
}

/// True if one of the five words before word `k`, from word `from` on, names an id
/// (`ids`: [`id_words`]).
pub(super) fn names_an_id(ids: &[bool], from: usize, k: usize) -> bool {
    ids[k.saturating_sub(5).max(from)..k].contains(&true)
}

/// Word `w` of `line` without the sentence's punctuation around it (`LabNet,`
/// `(Pw9#x)`, `Maple414!.` keeps its `!`), nor the `also` bytes at its end.
pub(super) fn unpunctuated(line: &[u8], w: &Range<usize>, also: &[u8]) -> Range<usize> {
    let (mut s, mut e) = (w.start, w.end);
    while s < e && b"\"'(`".contains(&line[s]) {
        s += 1;
    }
    while e > s && (b"\"'),.;:`".contains(&line[e - 1]) || also.contains(&line[e - 1])) {
        e -= 1;
    }
    s..e
}

/// Findings in a prose line that no word names.
pub(super) fn bare(line: &[u8], out: &mut Vec<Range<usize>>) {
    let ws = words(line, 0);
    // Most lines hold no candidate at all: a word of six or more with a digit or a
    // symbol, or of twelve or more. Only then are the words lowered.
    let candidate = ws.iter().any(|w| {
        let t = &line[w.clone()];
        t.len() >= 10
            || keypad_entry(t)
            || (t.len() >= 6
                && t.iter()
                    .any(|b| b.is_ascii_digit() || super::looks::MARK.contains(b)))
    });
    if !candidate {
        return;
    }
    let lower: Vec<String> = ws
        .iter()
        .map(|w| String::from_utf8_lossy(&line[w.clone()]).to_ascii_lowercase())
        .collect();
    // A note that is one password and nothing else — or a short word and one
    // (`note: au045f109cgnsf4`, `btw X`).
    let lead = |l: &std::ops::Range<usize>| {
        let l = &line[l.clone()];
        let l = l.strip_suffix(b":").or(l.strip_suffix(b",")).unwrap_or(l);
        (2..=6).contains(&l.len()) && l.iter().all(u8::is_ascii_alphabetic)
    };
    let one = match ws.as_slice() {
        [w] => Some(w),
        [l, w] if lead(l) => Some(w),
        _ => None,
    };
    if let Some(w) = one {
        let v = &line[w.clone()];
        // Not markup or a key (`{"kty":…}`, `age1…`): short, and no brackets or quotes.
        if v.len() <= 40
            && !v.iter().any(|b| b"/\\:{}[]\"',;".contains(b))
            && (!v.contains(&b'=') || random_before_equals(v))
            && super::looks::not_email(v)
            && (lower_noise(v)
                || mixed_noise(v)
                || shaped(v)
                || (v.len() >= 10 && random_letters(v))
                || random_caps(v)
                || random_lower(v)
                || super::looks::random_words(v, false, false))
        {
            out.push(w.clone());
        }
        return;
    }
    if !prose(&lower, &ws, line) {
        return;
    }
    let ids = id_words(&lower);
    for (k, w) in ws.iter().enumerate() {
        if names_an_id(&ids, 0, k) {
            continue;
        }
        // A sentence's `!` or `?` is not part of a value here (`ignore X!`).
        let Range { start: s, end: e } = unpunctuated(line, w, b"!?");
        let v = &line[s..e];
        if v.is_empty()
            || v.iter().any(|b| b"/\\:".contains(b))
            || (v.contains(&b'=') && !random_before_equals(v))
            || !super::looks::not_email(v)
            || v[0] == b'$'
        {
            continue; // a path, an address, an assignment or a variable
        }
        // A long hexadecimal string no word calls a hash (`verified with 4484…`): a
        // signing secret's length, not a commit's (40).
        let hex = v.len() >= 48
            && v.iter().all(u8::is_ascii_hexdigit)
            && v.iter().any(u8::is_ascii_digit)
            && v.iter().any(u8::is_ascii_alphabetic);
        if lower_noise(v)
            || mixed_noise(v)
            || keypad_entry(v)
            || hex
            || (v.len() >= 14 && random_lower(v))
            || random_caps(v)
            || lower_letters(v)
            || super::looks::random_words(v, false, false)
        {
            out.push(s..e);
        }
    }
}

#[cfg(test)]
#[path = "bare_tests.rs"]
mod tests;
