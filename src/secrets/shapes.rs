//! Passwords found by their shape (step 4 of the scan), where no rule names the tool or
//! the key: every tool spells its password argument its own way, often positionally
//! (`nmcli … password X`, `zip -P X`, `sqlplus user/X@db`), and people tell passwords in
//! sentences. Five checks, each on its own context (a JSON line's string values are
//! also checked as lines of their own: `{"cmd":"hydra -p X …"}`):
//!
//! - Anywhere, a *marked* word (below): `psk="Marble7577#"`, `backup:Jasper7427!`.
//! - On a line that looks like a shell command (a lower-case program name after an
//!   optional `$ ` prompt), every argument is split at `/ @ : = ,` and a piece is flagged
//!   when it is *marked*: 8–64 characters of letters, digits and `!#%&*?^~$_+-`, with upper
//!   case, lower case, a digit and one of `!#%&*?^~$` (not starting with `$`). Prose
//!   (sentences start with a capital), code (brackets, dots and parentheses are not in the
//!   set), paths, URLs, versions, base64 and `$VARIABLES` are not.
//! - On such a line, a whole argument of 12–64 letters and digits with both cases and a
//!   digit, not made of words, with ≥ 3.3 bits of entropy per character (`0JSHlBQBvyGHNSl`):
//!   a random string passed to a command is a credential far more often than anything
//!   else. Lower-case ids (pods, hashes, UUIDs) are not.
//! - The value of a `-p`/`-P` flag (the short flag most tools give a password), of a bare
//!   argument naming a secret (`nmcli … password X`, `aws configure set
//!   aws_secret_access_key X`) and a literal piped by `echo`/`printf` into a command,
//!   held to a looser shape
//!   ([`loose`]): `Harbor249`, `QnKx!fy*pwh`, `WmegRnxRlfrjzNWu`.
//! - In a sentence that says `password`, `passphrase`, `passcode` or `pwd`, a word within
//!   eight words of it that is marked or random, or a word with digits and a capital
//!   (`Harvest4096`, `Maple414!`) where the sentence hands it over (`… is X`, `password
//!   X`, `X as …`). Lower-case words, versions and paths are not.

use std::ops::Range;

use super::value::{entropy, random_letters, wordy};

/// Symbols that mark a password (besides letters and digits).
const MARK: &[u8] = b"!#%&*?^~$";

fn upper(p: &[u8]) -> bool {
    p.iter().any(u8::is_ascii_uppercase)
}
fn lower(p: &[u8]) -> bool {
    p.iter().any(u8::is_ascii_lowercase)
}
fn digit(p: &[u8]) -> bool {
    p.iter().any(u8::is_ascii_digit)
}
fn marked(p: &[u8]) -> bool {
    p.iter().any(|b| MARK.contains(b))
}

fn shaped(p: &[u8]) -> bool {
    (8..=64).contains(&p.len())
        && p.iter().all(|&b| {
            b.is_ascii_alphanumeric() || MARK.contains(&b) || matches!(b, b'_' | b'+' | b'-')
        })
        && upper(p)
        && lower(p)
        && digit(p)
        && marked(p)
        && p[0] != b'$'
}

/// 12–64 letters and digits, both cases and a digit, not words, with at most 0.6 bits per
/// character less entropy than a string of that length can have (capped at 4).
fn random_alnum(p: &[u8]) -> bool {
    (12..=64).contains(&p.len())
        && p.iter().all(u8::is_ascii_alphanumeric)
        && upper(p)
        && lower(p)
        && digit(p)
        && !wordy(p)
        && entropy(p) >= (p.len() as f64).log2().min(4.0) - 0.6
}

/// A capitalised word of three or more letters, two or more digits, then marks:
/// `Harvest4096`, `Maple414!` — the passwords people choose.
fn word_with_digits(p: &[u8]) -> bool {
    let letters = p.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    let digits = p[letters..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    p.len() >= 7
        && letters >= 3
        && p[0].is_ascii_uppercase()
        && p[1..letters].iter().all(u8::is_ascii_lowercase)
        && digits >= 2
        && p[letters + digits..].iter().all(|b| MARK.contains(b))
}

/// A word with digits people pick as a password rather than a version: four or more
/// digits, or a mark (`Lagoon3648`, `Otter12!`; not `Office365`).
fn strong(p: &[u8]) -> bool {
    marked(p) || p.iter().filter(|b| b.is_ascii_digit()).count() >= 4
}

/// The looser shape a value is held to where the context says "password" (after `-p`,
/// piped into a command): 6–64 characters without `/ . \ : @` or spaces, not starting
/// with `$` or `-`, with a letter, a digit or symbol, and an upper-case letter or symbol
/// (`Harbor249`, `QnKx!fy*pwh`); or random letters (`WmegRnxRlfrjzNWu`). Lower-case names
/// (`-p warroom-memory`), numbers and ports (`-p 2222`, `-p 8080:80`) are not.
fn loose(v: &[u8]) -> bool {
    let letter = v.iter().any(u8::is_ascii_alphabetic);
    (6..=64).contains(&v.len())
        && v[0] != b'$'
        && v[0] != b'-'
        && !v
            .iter()
            .any(|b| b"/.\\:@|<>".contains(b) || b.is_ascii_whitespace())
        && ((letter && (digit(v) || marked(v)) && (upper(v) || marked(v))) || random_letters(v))
}

/// A bare argument naming a secret, whose value follows it: `nmcli … password X`,
/// `rclone config create … pass X`, `aws configure set aws_secret_access_key X`,
/// `neo4j-admin dbms set-initial-password X`.
fn secret_word(w: &[u8]) -> bool {
    const ENDS: [&str; 10] = [
        "password",
        "passwd",
        "pass",
        "passphrase",
        "pwd",
        "secret",
        "token",
        "secret_key",
        "secret_access_key",
        "api_key",
    ];
    let w = String::from_utf8_lossy(w).to_ascii_lowercase();
    w.bytes()
        .all(|b| b.is_ascii_lowercase() || b == b'_' || b == b'-')
        && !w.starts_with('-')
        && ENDS.iter().any(|s| w.ends_with(s))
}

/// The words of `line` from `from`: byte ranges split at whitespace.
fn words(line: &[u8], from: usize) -> Vec<Range<usize>> {
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
        w.push(s..i);
    }
    w
}

/// `r` without one pair of surrounding quotes.
fn unquote(line: &[u8], r: Range<usize>) -> Range<usize> {
    let (s, e) = (r.start, r.end);
    if e - s >= 2 && matches!(line[s], b'\'' | b'"') && line[e - 1] == line[s] {
        s + 1..e - 1
    } else {
        r
    }
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

/// Findings on one command line (`from`: just after the program's name).
fn on_command_line(line: &[u8], from: usize, out: &mut Vec<Range<usize>>) {
    let ws = words(line, 0);
    for (k, w) in ws.iter().enumerate().filter(|(_, w)| w.start >= from) {
        let v = unquote(line, w.clone());
        if super::value::decodes_to_text(&line[v.clone()]) {
            continue; // base64 of plain text (`echo ZmVhdHVyZS… | base64 -d`)
        }
        // `-p VALUE`, and a literal piped into the next command.
        let after_flag = k > 0
            && (matches!(&line[ws[k - 1].clone()], b"-p" | b"-P")
                || secret_word(&line[ws[k - 1].clone()]));
        let echoed = k > 0
            && matches!(&line[ws[k - 1].clone()], b"echo" | b"printf" | b"-n")
            && ws.get(k + 1).is_some_and(|n| &line[n.clone()] == b"|");
        if (after_flag || echoed) && loose(&line[v.clone()]) {
            out.push(v);
            continue;
        }
        if random_alnum(&line[v.clone()]) {
            out.push(v);
            continue;
        }
        // Marked pieces of the argument.
        let sep = |b: u8| matches!(b, b'/' | b'@' | b':' | b'=' | b',' | b'\'' | b'"');
        let mut i = w.start;
        while i < w.end {
            if sep(line[i]) {
                i += 1;
                continue;
            }
            let s = i;
            while i < w.end && !sep(line[i]) {
                i += 1;
            }
            // `-pSECRET` (7z, mysql): the piece after a one-letter flag.
            let piece = if line[s] == b'-'
                && i - s > 2
                && line[s + 1].is_ascii_alphabetic()
                && line[s + 1] != b'-'
            {
                s + 2
            } else {
                s
            };
            if shaped(&line[piece..i]) {
                out.push(piece..i);
            }
        }
    }
}

/// Findings in a sentence that names a password.
fn told(line: &[u8], out: &mut Vec<Range<usize>>) {
    const SAYS: [&str; 4] = ["password", "passphrase", "passcode", "pwd"];
    let says_word = |w: &str| {
        SAYS.iter().any(|s| w.contains(s)) || w.trim_matches(|c: char| !c.is_alphanumeric()) == "pw"
    };
    let ws = words(line, 0);
    let lower: Vec<String> = ws
        .iter()
        .map(|w| String::from_utf8_lossy(&line[w.clone()]).to_ascii_lowercase())
        .collect();
    let says: Vec<usize> = (0..ws.len()).filter(|&k| says_word(&lower[k])).collect();
    if says.is_empty() {
        return;
    }
    for (k, w) in ws.iter().enumerate() {
        if !says.iter().any(|&s| s != k && s.abs_diff(k) <= 8) {
            continue;
        }
        // Trim the sentence's punctuation: `LabNet,` `Maple414!.` `(Pw9#x)`.
        let (mut s, mut e) = (w.start, w.end);
        while s < e && b"\"'(`".contains(&line[s]) {
            s += 1;
        }
        while e > s && b"\"'),.;:`".contains(&line[e - 1]) {
            e -= 1;
        }
        let v = &line[s..e];
        // A word with digits is also a product and its version (`Office365`): it counts
        // only where a sentence hands a password over — right after the word that says
        // so, after `is`/`was`/`:`/`=`, or before `as`.
        let handed = || {
            let prev = k.checked_sub(1).map(|p| lower[p].as_str());
            let next = lower.get(k + 1).map(String::as_str);
            says.contains(&(k.wrapping_sub(1)))
                || matches!(prev, Some("is" | "was" | "=" | "as"))
                || (prev == Some("to") && strong(v))
                || prev.is_some_and(|p| p.ends_with(':') || p.ends_with('='))
                || matches!(next, Some("as" | "is"))
        };
        if shaped(v) || random_alnum(v) || (word_with_digits(v) && handed()) {
            out.push(s..e);
        }
    }
}

/// Marked words anywhere (`psk="Marble7577#"`, `backup:Jasper7427!`): the shape alone,
/// pieces split at `= : , ; "` `'` and brackets.
fn marked_anywhere(line: &[u8], out: &mut Vec<Range<usize>>) {
    let sep = |b: u8| b.is_ascii_whitespace() || b"=:,;\"'`()[]{}<>".contains(&b);
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
        if shaped(&line[s..e]) {
            out.push(s..e);
        }
    }
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

fn one_line(line: &[u8], out: &mut Vec<Range<usize>>) {
    match command_line(line) {
        Some(from) => on_command_line(line, from, out),
        None => {
            told(line, out);
            marked_anywhere(line, out);
        }
    }
}

/// The byte ranges of passwords found by their shape in `bytes` (see the module doc).
pub(super) fn password_shaped_args(bytes: &[u8]) -> Vec<(Range<usize>, &'static str)> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in bytes.split(|&b| b == b'\n') {
        let mut found = Vec::new();
        one_line(line, &mut found);
        if line.trim_ascii_start().starts_with(b"{") || line.trim_ascii_start().starts_with(b"[") {
            for r in json_strings(line) {
                let mut inner = Vec::new();
                one_line(&line[r.clone()], &mut inner);
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
                .map(|r| (at + r.start..at + r.end, "cli-password")),
        );
        at += line.len() + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::password_shaped_args;

    fn found(t: &str) -> Vec<&str> {
        let mut f: Vec<&str> = password_shaped_args(t.as_bytes())
            .into_iter()
            .map(|(r, _)| &t[r])
            .collect();
        f.dedup();
        f
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
        assert_eq!(found("hdbsql -n h -p 'Lantern77' x"), ["Lantern77"]);
        assert_eq!(found("zip -P Qx!kT*mz a.zip"), ["Qx!kT*mz"]);
        assert_eq!(found("connect Lab 7HqTzW2xKp9mV"), ["7HqTzW2xKp9mV"]);
        assert_eq!(found("echo Birch8823 | login-tool"), ["Birch8823"]);
        assert_eq!(
            found("aws configure set aws_secret_access_key Otter7614"),
            ["Otter7614"]
        );
        assert_eq!(
            found("rclone config create n sftp pass Hq7Tz2Wm"),
            ["Hq7Tz2Wm"]
        );
        // A command line inside a JSON string.
        assert_eq!(
            found(r#"{"cmd":"hydra -l admin -p Falcon9544 ssh://h"}"#),
            ["Falcon9544"]
        );
        // Prose, code, paths, versions, variables, base64, ids and ports pass.
        for t in [
            "Deploy with Node18! is fine",
            "ssh -p 2222 deploy@bastion",
            "export PGPASSWORD=$DB_Pass9!",
            "curl https://cdn.example/v2.1.0/App-Bundle9.js",
            "if (arr[0]?.Name2 && ok) {}",
            "integrity sha512-scL+nsMpOb4kM15k/CP5D8Qro3k=",
            "cargo test -p warroom-memory",
            "docker run -p 8080:80 shop/web",
            "kubectl logs payment-7f9c8d6b5-xk2qz",
            "git show 9b1d7e4a3f9c2e0b",
            "echo Done | tee log",
            "make CheckoutServiceV2Handler",
            "vault token create -policy=ci",
            r#"{"run":"cargo test -p warroom-memory"}"#,
        ] {
            assert!(found(t).is_empty(), "{t}: {:?}", found(t));
        }
    }

    #[test]
    fn passwords_told_in_a_sentence() {
        assert_eq!(
            found("The admin password for staging is Harvest4096 until Friday."),
            ["Harvest4096"]
        );
        assert_eq!(found("Wifi LabNet, password Maple414!."), ["Maple414!"]);
        assert_eq!(
            found("I set the DB password to Lagoon3648. for now"),
            ["Lagoon3648"]
        );
        assert_eq!(found("pw for the report account = Kx9#mTq2"), ["Kx9#mTq2"]);
        // Marked words need no sentence around them.
        assert_eq!(found("psk=\"Marble7577#\""), ["Marble7577#"]);
        assert_eq!(found("backup:Jasper7427!"), ["Jasper7427!"]);
        assert_eq!(
            found("Use hxl8#&TiM7 as the root password."),
            ["hxl8#&TiM7"]
        );
        for t in [
            "Password hashing moved to Argon2id in release 2.4.",
            "The password policy requires 14 characters.",
            "Reset the password in Keycloak26 and tell QA.",
            "Upgrade the password vault to Office365 next week.",
            "Token rotation for Node18 services is next week.",
        ] {
            assert!(found(t).is_empty(), "{t}: {:?}", found(t));
        }
    }
}
