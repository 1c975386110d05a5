//! Passwords found by their shape (step 4 of the scan), where no rule names the tool or
//! the key: every tool spells its password argument its own way, often positionally
//! (`nmcli … password X`, `zip -P X`, `sqlplus user/X@db`), code passes them as plain
//! string literals, and people tell passwords in sentences. The shapes themselves are in
//! [`super::looks`]; here are the contexts, each with the shape it demands (a JSON line's
//! string values are also checked as lines of their own: `{"cmd":"hydra -p X …"}`):
//!
//! - Anywhere, a *marked* word (8–64 characters with upper case, lower case, a digit and
//!   one of `!#%&*?^~$`): `psk="Marble7577#"`, `backup:Jasper7427!`. Prose, code
//!   (brackets, dots and parentheses are not in the set), paths, URLs, versions, base64
//!   and `$VARIABLES` are not. A word with four digits that are not a year, or a mark
//!   (`Clover1853`, `Ridge124@`).
//! - Anywhere, a random string of 14–64 characters with three or more letters of each
//!   case (`RsYpr6zgECkiQVPCLO2mixX`), and the other context-free shapes of
//!   [`super::looks::random_other`]: not words (`HTTPServer2ConnectionPool`), not an id
//!   whose type is spelt before it (`recK2p9Q…`, `mem-01M8…`), not a value of a name
//!   ending in `id`/`user`/`host`, not a public key's body.
//! - Anywhere, a password beside its account ([`super::pairs`]).
//! - Anywhere, a quoted value that is random-looking (`auth=('admin', 'Wga5WXFRsb=uaNX')`)
//!   or a word with four digits or a mark (`"Lilac3920@"`); not what is known to be
//!   public (integrity hashes, JWKS members) nor an id with a prefix (`cus_…`).
//! - On a line that looks like a shell command: see [`super::command`].
//! - In a sentence that says password: see [`super::told`]; in one that does not, see
//!   [`super::bare`].

use std::ops::Range;

use super::command::{command_line, on_command_line};
use super::letters::random_letters;
use super::line::anywhere_digits;
use super::looks::{random_anywhere, random_mixed, random_other, shaped, strong, word_with_digits};

/// Quoted values anywhere (`auth=('admin', 'Wga5WXFRsb=uaNXY_')`, `"app", "Lilac3920@"`):
/// random-looking, or a word with four digits or a mark.
fn quoted_anywhere(line: &[u8], out: &mut Vec<Range<usize>>) {
    let mut i = 0;
    while i < line.len() {
        let q = line[i];
        if q != b'\'' && q != b'"' {
            i += 1;
            continue;
        }
        let s = i + 1;
        let Some(len) = line[s..].iter().position(|&b| b == q) else {
            return;
        };
        // An escape the quoted string ends with is not part of the value (`send "X\r"`).
        let mut end = s + len;
        while end >= s + 2 && line[end - 2] == b'\\' && b"rnt".contains(&line[end - 1]) {
            end -= 2;
        }
        let v = &line[s..end];
        if !v.iter().any(u8::is_ascii_whitespace)
            && (((random_mixed(v) || (v.len() >= 14 && random_letters(v)))
                && !super::value::known_public(line, s..s + len)
                && !super::looks::named_parts(v))
                || (word_with_digits(v) && strong(v)))
        {
            out.push(s..end);
        }
        i = s + len + 1;
    }
}

/// Marked words anywhere (`psk="Marble7577#"`, `backup:Jasper7427!`): the shape alone,
/// pieces split at `= : , ; "` `'` and brackets.
fn marked_anywhere(line: &[u8], top: bool, out: &mut Vec<Range<usize>>) {
    let sep = |b: u8| b.is_ascii_whitespace() || b"=:,;\"'`()[]{}<>".contains(&b);
    // The line's words, read once and only if a value needs them.
    let ids = std::cell::OnceCell::new();
    let mut i = 0;
    while i < line.len() {
        if sep(line[i]) {
            i += 1;
            continue;
        }
        let s = i;
        while i < line.len() && !sep(line[i]) {
            i += 1;
        }
        // A sentence's last word keeps its own marks but not the full stop.
        let e = if i - s > 8 && line[i - 1] == b'.' {
            i - 1
        } else {
            i
        };
        let t = &line[s..e];
        // …and random strings of 14 or more (`RsYpr6zgECkiQVPCLO2mixX`), unless public.
        if super::value::crypt_hash(line, s) {
            continue; // a piece of `$6$rounds=4096$salt$…`
        }
        let top = top
            && !names_public_value(line, s)
            && !ids.get_or_init(|| super::bare::Ids::new(line)).named(s);
        // A word with four digits or a mark (`Clover1853`, `Ridge1246@`) is what people
        // pick as a password, wherever it is written — but a word and a year is also a
        // product (`Server2022`) or the example of a weak password (`Summer2024`).
        if shaped(t)
            || (word_with_digits(t) && anywhere_digits(t))
            || (top && random_anywhere(t) && !super::value::known_public(line, s..e))
            || (top && random_other(t) && !super::value::public_marker(line, s..e))
        {
            out.push(s..e);
        }
    }
}

/// True if the value at `at` is assigned to a name that says it is public — an id, a
/// user, a host, a model (`ELEVENLABS_VOICE_ID=21m00Tcm…`, `"user": "…"`): random-looking
/// values there are ids, not secrets.
fn names_public_value(line: &[u8], at: usize) -> bool {
    let mut i = at;
    while i > 0 && matches!(line[i - 1], b'"' | b'\'' | b' ') {
        i -= 1;
    }
    if i == 0 || !matches!(line[i - 1], b'=' | b':') {
        return false;
    }
    let end = i - 1;
    let mut start = end;
    while start > 0 && matches!(line[start - 1], b'"' | b'\'') {
        start -= 1;
    }
    let name_end = start;
    while start > 0 && (line[start - 1].is_ascii_alphanumeric() || line[start - 1] == b'_') {
        start -= 1;
    }
    let original = &line[start..name_end];
    // `apiKeyId`, `tokenID`: camel case ends in an id too.
    let camel_id = original.len() > 2
        && (original.ends_with(b"Id") || original.ends_with(b"ID"))
        && original[original.len() - 3].is_ascii_lowercase();
    if camel_id {
        return true;
    }
    let name = original.to_ascii_lowercase();
    const ENDS: [&[u8]; 13] = [
        b"id",
        b"uid",
        b"sid",
        b"uuid",
        b"user",
        b"username",
        b"name",
        b"host",
        b"url",
        b"region",
        b"model",
        b"email",
        b"domain",
    ];
    !name.is_empty()
        && ENDS.iter().any(|e| {
            name.ends_with(e) && (name.len() == e.len() || name[name.len() - e.len() - 1] == b'_')
        })
}

/// The string values of a JSON line (`{"cmd":"hydra -l admin -p X …"}`), each scanned as
/// a line of its own.
fn json_strings(line: &[u8]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < line.len() {
        if line[i] != b'"' {
            i += 1;
            continue;
        }
        let s = i + 1;
        i = s;
        while i < line.len() && line[i] != b'"' {
            i += if line[i] == b'\\' { 2 } else { 1 };
        }
        out.push(s..i.min(line.len()));
        i += 1;
    }
    out
}

/// Findings in one line; `top` is false for a JSON string scanned on its own, where the
/// line around it (a JWKS member's name) is not in view: random strings are judged only
/// with their context.
fn one_line(line: &[u8], top: bool, out: &mut Vec<Range<usize>>) {
    quoted_anywhere(line, out);
    super::pairs::pairs(line, out);
    // A sentence may start in lower case and look like a command: both are checked.
    super::told::told(line, out);
    super::bare::bare(line, out);
    match command_line(line) {
        Some(from) => on_command_line(line, from, out),
        None => marked_anywhere(line, top, out),
    }
}

/// The byte ranges of passwords found by their shape in `bytes` (see the module doc).
pub(super) fn password_shaped_args(bytes: &[u8]) -> Vec<(Range<usize>, &'static str)> {
    let mut out = Vec::new();
    let mut at = 0;
    // The body of a public key or certificate is public, whatever its lines look like.
    let public = super::value::public_blocks(bytes);
    for line in bytes.split(|&b| b == b'\n') {
        if public.iter().any(|p| p.contains(&at)) {
            at += line.len() + 1;
            continue;
        }
        let mut found = Vec::new();
        one_line(line, true, &mut found);
        if line.trim_ascii_start().starts_with(b"{") || line.trim_ascii_start().starts_with(b"[") {
            for r in json_strings(line) {
                let mut inner = Vec::new();
                one_line(&line[r.clone()], false, &mut inner);
                found.extend(
                    inner
                        .into_iter()
                        .map(|x| r.start + x.start..r.start + x.end),
                );
            }
        }
        out.extend(
            found
                .into_iter()
                .filter(|r| !super::value::public_id(&line[r.clone()]))
                .map(|r| (at + r.start..at + r.end, "cli-password")),
        );
        at += line.len() + 1;
    }
    out
}

#[cfg(test)]
#[path = "shape_tests.rs"]
mod tests;
