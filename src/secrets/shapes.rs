//! Password-shaped arguments on command lines (step 5 of the scan): the rules catch the
//! flags they name, but every tool spells its password argument its own way, often
//! positionally (`nmcli … password X`, `zip -P X`, `net user NAME X /add`,
//! `sqlplus user/X@db`). So on a line that looks like a shell command — it starts with a
//! lower-case program name, after an optional `$ ` prompt — every argument is split at
//! `/ @ : = ,` and a piece is flagged when it is shaped like a password: 8–64 characters
//! of letters, digits and `!#%&*?^~$_+-`, with upper case, lower case, a digit and one of
//! `!#%&*?^~$` (not starting with `$`). Prose (sentences start with a capital), code
//! (brackets, dots and parentheses are not in the set), paths, URLs, versions, base64
//! (no such symbol) and `$VARIABLES` are not. The value of a `-p`/`-P` flag, the short
//! flag most tools give a password, is held to a looser shape (see `short_flag_value`).

use std::ops::Range;

/// Symbols that mark a password (besides letters and digits).
const MARK: &[u8] = b"!#%&*?^~$";

fn shaped(p: &[u8]) -> bool {
    (8..=64).contains(&p.len())
        && p.iter().all(|&b| {
            b.is_ascii_alphanumeric() || MARK.contains(&b) || matches!(b, b'_' | b'+' | b'-')
        })
        && p.iter().any(u8::is_ascii_uppercase)
        && p.iter().any(u8::is_ascii_lowercase)
        && p.iter().any(u8::is_ascii_digit)
        && p.iter().any(|b| MARK.contains(b))
        && p[0] != b'$'
}

/// The value of a `-p`/`-P` flag (the short flag most tools give a password) shaped like
/// one: 6–64 characters without `/ . \ : @`, not a number or a port list, with a letter
/// and a digit and an upper-case letter or a symbol (`Harbor249`, `Falcon8510!`), or
/// random letters (`WmegRnxRlfrjzNWu`). Lower-case names (`-p warroom-memory`,
/// `-p shop-staging`), numbers (`-p 2222`, `-p 8080:80`) and `-p1` are not.
fn short_flag_value(v: &[u8]) -> bool {
    let letter = v.iter().any(u8::is_ascii_alphabetic);
    let digit = v.iter().any(u8::is_ascii_digit);
    (6..=64).contains(&v.len())
        && v[0] != b'$'
        && v[0] != b'-'
        && !v
            .iter()
            .any(|b| b"/.\\:@".contains(b) || b.is_ascii_whitespace())
        && ((letter
            && digit
            && (v.iter().any(u8::is_ascii_uppercase) || v.iter().any(|b| MARK.contains(b))))
            || super::value::random_letters(v))
}

/// `-p VALUE`, `-P 'VALUE'`: the value's range when it is shaped like a password.
fn after_short_flag(line: &[u8], from: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let words: Vec<(usize, usize)> = {
        let mut w = Vec::new();
        let mut i = from;
        while i < line.len() {
            if line[i].is_ascii_whitespace() {
                i += 1;
                continue;
            }
            let s = i;
            while i < line.len() && !line[i].is_ascii_whitespace() {
                i += 1;
            }
            w.push((s, i));
        }
        w
    };
    for pair in words.windows(2) {
        let ((fs, fe), (vs, ve)) = (pair[0], pair[1]);
        if !matches!(&line[fs..fe], b"-p" | b"-P") {
            continue;
        }
        let (mut s, mut e) = (vs, ve);
        if e - s >= 2 && matches!(line[s], b'\'' | b'"') && line[e - 1] == line[s] {
            s += 1;
            e -= 1;
        }
        if short_flag_value(&line[s..e]) {
            out.push(s..e);
        }
    }
    out
}

/// True if `line` starts like a shell command: an optional `$ ` or `# ` prompt, then a
/// lower-case program name and an argument.
fn command_line(line: &[u8]) -> Option<usize> {
    let mut i = line.iter().position(|b| !b.is_ascii_whitespace())?;
    if matches!(line.get(i..i + 2), Some(b"$ " | b"# ")) {
        i += 2;
    }
    let start = i;
    while i < line.len()
        && (line[i].is_ascii_lowercase()
            || line[i].is_ascii_digit()
            || matches!(line[i], b'_' | b'-' | b'.'))
    {
        i += 1;
    }
    let name_ok = i > start && !line[start].is_ascii_punctuation() && i - start <= 32;
    (name_ok && line.get(i) == Some(&b' ')).then_some(i)
}

/// The byte ranges of password-shaped arguments on command lines of `bytes`.
pub(super) fn password_shaped_args(bytes: &[u8]) -> Vec<(Range<usize>, &'static str)> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in bytes.split(|&b| b == b'\n') {
        if let Some(from) = command_line(line) {
            for r in after_short_flag(line, from) {
                out.push((at + r.start..at + r.end, "cli-password"));
            }
            let mut i = from;
            while i < line.len() {
                let sep = |b: u8| {
                    b.is_ascii_whitespace()
                        || matches!(b, b'/' | b'@' | b':' | b'=' | b',' | b'\'' | b'"')
                };
                if sep(line[i]) {
                    i += 1;
                    continue;
                }
                let s = i;
                while i < line.len() && !sep(line[i]) {
                    i += 1;
                }
                // `-pSECRET` (7z, mysql): the piece after a one-letter flag.
                let piece_start = if line[s] == b'-'
                    && i - s > 2
                    && line[s + 1].is_ascii_alphabetic()
                    && line[s + 1] != b'-'
                {
                    s + 2
                } else {
                    s
                };
                if shaped(&line[piece_start..i]) {
                    out.push((at + piece_start..at + i, "cli-password"));
                }
            }
        }
        at += line.len() + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::password_shaped_args;

    fn found(t: &str) -> Vec<&str> {
        password_shaped_args(t.as_bytes())
            .into_iter()
            .map(|(r, _)| &t[r])
            .collect()
    }

    #[test]
    fn arguments_shaped_like_passwords_on_command_lines() {
        assert_eq!(
            found("sqlplus scott/Tiger-2231!@//db:1521/ORCL"),
            ["Tiger-2231!"]
        );
        assert_eq!(found("$ 7z a -pR4nd0m#Pass x.7z"), ["R4nd0m#Pass"]);
        assert_eq!(
            found("nmcli dev wifi connect Net password Q7w#Erty99"),
            ["Q7w#Erty99"]
        );
        // Prose, code, paths, versions, variables, base64 and ports pass.
        for t in [
            "Deploy with Node18! is fine",
            "ssh -p 2222 deploy@bastion",
            "export PGPASSWORD=$DB_Pass9!",
            "curl https://cdn.example/v2.1.0/App-Bundle9.js",
            "if (arr[0]?.Name2 && ok) {}",
            "integrity sha512-scL+nsMpOb4kM15k/CP5D8Qro3k=",
        ] {
            assert!(found(t).is_empty(), "{t}: {:?}", found(t));
        }
    }
}
