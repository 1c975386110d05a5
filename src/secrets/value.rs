//! What a candidate value looks like, once a rule has matched it: a placeholder standing
//! for a secret (`<password>`, `${DB_PASSWORD}`, `%DB_PASS%`, `changeme`), a reference to
//! where the secret is kept (`./db-pass.txt`, `/run/secrets/db`, `@token.txt`), an
//! identifier made of words, or something shaped like a secret. Rules find *where* a
//! secret would be; these judge *whether* the value there is one.

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

fn unquoted(value: &[u8]) -> &[u8] {
    let quote = |c: &u8| matches!(c, b'"' | b'\'' | b'`');
    let start = value.iter().position(|c| !quote(c)).unwrap_or(value.len());
    let end = value
        .iter()
        .rposition(|c| !quote(c))
        .map_or(start, |e| e + 1);
    &value[start..end.max(start)]
}

/// A value that stands for a secret rather than being one.
pub(super) fn placeholder(secret: &[u8]) -> bool {
    let s = String::from_utf8_lossy(unquoted(secret)).to_ascii_lowercase();
    if s.is_empty() || (s.starts_with('<') && s.ends_with('>')) {
        return true;
    }
    // ${VAR}, $VAR, {{ template }}, and Windows' %VAR% — but not a password that merely
    // starts with `%`.
    let windows_var = s.len() > 2
        && s.starts_with('%')
        && s.ends_with('%')
        && s[1..s.len() - 1]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if s.starts_with('$') || s.starts_with("{{") || windows_var {
        return true;
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

/// A value naming where the secret is kept, not the secret: a relative or home path
/// (`./db-pass.txt`, `~/.pgpass`), an absolute path of two or more parts
/// (`/run/secrets/db`), curl's `@file`, a `file:` URL.
pub(super) fn reference(value: &[u8]) -> bool {
    let v = unquoted(value);
    v.starts_with(b"./")
        || v.starts_with(b"../")
        || v.starts_with(b"~/")
        || v.starts_with(b"file:")
        || (v.starts_with(b"@") && v.len() > 1 && v[1..].iter().all(|b| b.is_ascii_graphic()))
        || (v.starts_with(b"/")
            && v[1..].contains(&b'/')
            && v.iter()
                .all(|b| b.is_ascii_alphanumeric() || b"/._-".contains(b)))
}

/// An unquoted value of a `password=`/`key=` rule must look like a secret, not prose: a
/// digit or a symbol in it, or random letters (mixed case that is not words —
/// `WBPqCqgyawb`, not `MyPassword`).
pub(super) fn looks_secret(value: &[u8]) -> bool {
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
        || random_letters(value)
}

/// Eight or more letters, at least two upper and two lower case, not made of words.
pub(super) fn random_letters(v: &[u8]) -> bool {
    v.len() >= 8
        && v.iter().all(u8::is_ascii_alphabetic)
        && v.iter().filter(|c| c.is_ascii_uppercase()).count() >= 2
        && v.iter().filter(|c| c.is_ascii_lowercase()).count() >= 2
        && !wordy(v)
}

/// An identifier made of words (`HTTPServer2ConnectionPoolManager`, `use_optimistic_…`):
/// most of its letters are in runs that look like words, where random text breaks into
/// short, vowel-less pieces.
pub(super) fn wordy(t: &[u8]) -> bool {
    let mut parts: Vec<&[u8]> = Vec::new();
    let mut start = 0;
    for i in 1..=t.len() {
        let boundary = i == t.len()
            || !t[i].is_ascii_alphabetic()
            || !t[i - 1].is_ascii_alphabetic()
            || (t[i].is_ascii_uppercase() && t[i - 1].is_ascii_lowercase());
        if boundary {
            parts.push(&t[start..i]);
            start = i;
        }
    }
    let vowel = |c: &u8| b"aeiouyAEIOUY".contains(c);
    // A word: Capitalised or lower case, or an upper-case acronym of up to 8 letters; with
    // a vowel and no run of more than 3 consonants.
    let word = |p: &&[u8]| {
        let cased = p.iter().skip(1).all(u8::is_ascii_lowercase)
            || (p.len() <= 8 && p.iter().all(u8::is_ascii_uppercase));
        p.len() >= 3
            && p.iter().all(u8::is_ascii_alphabetic)
            && cased
            && p.iter().any(vowel)
            && p.split(vowel).all(|run| run.len() <= 3)
    };
    let in_words: usize = parts.iter().filter(|p| word(p)).map(|p| p.len()).sum();
    let letters = t.iter().filter(|c| c.is_ascii_alphabetic()).count();
    letters > 0 && in_words * 100 >= letters * 75
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_references_and_random_letters() {
        for p in [
            "<password>",
            "${DB_PASS}",
            "%DB_PASS%",
            "'changeme'",
            "{{ pw }}",
        ] {
            assert!(placeholder(p.as_bytes()), "{p}");
        }
        assert!(!placeholder(b"%4mBDrftqski67vQ"));
        for r in [
            "./db-pass.txt",
            "/run/secrets/db",
            "~/.pgpass",
            "@token.txt",
        ] {
            assert!(reference(r.as_bytes()), "{r}");
        }
        assert!(!reference(b"/p4ss!Word") && !reference(b"Hunter2/x!"));
        assert!(random_letters(b"WBPqCqgyawb") && random_letters(b"RtTWzJUkzHzcbvUr"));
        for w in ["MyPassword", "handshake", "GitHubActions", "ABCDEFGH"] {
            assert!(!random_letters(w.as_bytes()), "{w}");
        }
    }
}
