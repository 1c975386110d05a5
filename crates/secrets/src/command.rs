//! Passwords on a line that looks like a shell command (part of step 4 of the scan): a
//! lower-case program name after an optional `$ ` prompt. Every tool spells its password
//! argument its own way, so the checks are the tool's shape, not its name:
//!
//! - marked, random and word-with-digits pieces of every argument split at `/ @ : = ,`
//!   (`sqlplus scott/Tiger-2231!@db`), unless the argument is public (an SSH key's body);
//! - a UUID one or two words after a word naming a token or secret (`consul acl
//!   set-agent-token agent 9d871935-…`);
//! - a whole argument of 12–64 random letters and digits (`0JSHlBQBvyGHNSl`) — a random
//!   string passed to a command is a credential far more often than anything else, and
//!   lower-case ids (pods, hashes, UUIDs) are not;
//! - held to a looser shape ([`loose`]): the value of a `-p`/`-P` flag (lower-case letters
//!   with digits too, and a passphrase where the line names the user or glued to the
//!   flag: `-pword_word_word`), of a bare or dotted argument naming a secret (`nmcli …
//!   password X`, `wifi-sec.psk X`), a literal piped by `echo`/`printf` into a command,
//!   and every line of a here-string (`<<< $'X\nX'`).
//!
//! A sentence that starts in lower case looks like a command too; the prose checks
//! ([`super::told`]) read it as well.

use super::words::lists;
use std::ops::Range;

use super::line::{anywhere_digits, words};
use super::looks::{
    diceware, given_after_flag, loose, lower_random, random_alnum, random_anywhere, random_other,
    shaped, word_with_digits,
};

/// A bare argument naming a secret, whose value follows it: `nmcli … password X`,
/// `rclone config create … pass X`, `aws configure set aws_secret_access_key X`,
/// `neo4j-admin dbms set-initial-password X`.
fn secret_word(w: &[u8]) -> bool {
    let w = String::from_utf8_lossy(w).to_ascii_lowercase();
    // `wifi-sec.psk`, `auth.password` — settings are dotted.
    w.bytes()
        .all(|b| b.is_ascii_lowercase() || b"_-.".contains(&b))
        && !w.starts_with('-')
        && lists().secret_argument.matches(&w)
}

/// A flag naming a key, token or secret whose value is one (`--setup-key`, `--auth-key`,
/// `--join-token`); not a public key nor a key's id or file.
fn key_flag(w: &[u8]) -> bool {
    let w = String::from_utf8_lossy(w).to_ascii_lowercase();
    w.starts_with('-')
        && ["-key", "-token", "-secret"].iter().any(|e| w.ends_with(e))
        && !w.contains("public")
}

/// True if `v` is a UUID (`9d871935-7ff6-05e3-4252-75dcbfa46153`).
pub(super) fn uuid(v: &[u8]) -> bool {
    let groups: Vec<&[u8]> = v.split(|&b| b == b'-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.iter().all(u8::is_ascii_hexdigit))
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
pub(super) fn command_line(line: &[u8]) -> Option<usize> {
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
    // `klarna = Klarna(…)`, `x := f(…)`: an assignment in code, not a program and its
    // arguments.
    let rest = line[i..].trim_ascii_start();
    let assignment = rest.starts_with(b"=") && !rest.starts_with(b"==")
        || rest.starts_with(b":=")
        || rest.starts_with(b"+=");
    (name_ok && !assignment && line.get(i) == Some(&b' ')).then_some(i)
}

/// True if a command line names the user it logs in as (`-u`, `-U`, `--user`,
/// `--username`, `-l`).
fn names_user(line: &[u8]) -> bool {
    words(line, 0).iter().any(|w| {
        matches!(
            &line[w.clone()],
            b"-u" | b"-U" | b"--user" | b"--username" | b"-l"
        ) || line[w.clone()].starts_with(b"--user=")
            || line[w.clone()].starts_with(b"--username=")
    })
}

/// Findings on one command line (`from`: just after the program's name).
pub(super) fn on_command_line(line: &[u8], from: usize, out: &mut Vec<Range<usize>>) {
    let ws = words(line, 0);
    for (k, w) in ws.iter().enumerate().filter(|(_, w)| w.start >= from) {
        let v = unquote(line, w.clone());
        if super::value::decodes_to_text(&line[v.clone()]) {
            continue; // base64 of plain text (`echo ZmVhdHVyZS… | base64 -d`)
        }
        if super::looks::hex_literal(&line[v.clone()]) {
            continue; // a number (`gpg --edit-key 0x3AA5C34371567BD2`)
        }
        // `-p VALUE`, and a literal piped into the next command.
        // Not a build parameter (`jenkins-cli build deploy -p BRANCH=main`).
        let parameter = {
            let t = &line[v.clone()];
            let name = t
                .iter()
                .take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || **b == b'_')
                .count();
            name >= 2 && t.get(name) == Some(&b'=')
        };
        // A value flag on a command that sets a secret (`az keyvault secret set … --value
        // X`, `vault kv put … --data X`).
        let sets_secret = || {
            ws[..k].iter().any(|p| {
                let w = line[p.clone()].to_ascii_lowercase();
                matches!(
                    w.as_slice(),
                    b"secret" | b"secrets" | b"password" | b"passwd" | b"credential"
                )
            })
        };
        let value_flag = k > 0
            && matches!(
                &line[ws[k - 1].clone()],
                b"--value" | b"--data" | b"--body" | b"--string" | b"--secret-string"
            )
            && sets_secret();
        let after_flag = k > 0
            && !parameter
            && (matches!(&line[ws[k - 1].clone()], b"-p" | b"-P")
                || value_flag
                || secret_word(&line[ws[k - 1].clone()]));
        let prev = k.checked_sub(1).map(|p| &line[ws[p].clone()]);
        let echoed = matches!(
            prev,
            Some(b"echo" | b"printf" | b"-n" | b"<(echo" | b"<(printf")
        ) && (ws.get(k + 1).is_some_and(|n| &line[n.clone()] == b"|")
            || line[w.clone()].ends_with(b")"));
        // A here-string (`smbpasswd -a jdoe <<< $'X\nX'`): its first line.
        let here = matches!(prev, Some(b"<<<"));
        // A here-string's later lines (`$'X\nX'`: a password and its confirmation).
        let mut rest = Vec::new();
        let v = if echoed && line[v.clone()].ends_with(b")") {
            unquote(line, w.start..w.end - 1)
        } else if here {
            let mut r = unquote(line, w.clone());
            if line[r.start] == b'$' && matches!(line.get(r.start + 1), Some(b'\'')) {
                r = unquote(line, r.start + 1..w.end);
            }
            let end = line[r.clone()]
                .windows(2)
                .position(|p| p == b"\\n")
                .map_or(r.end, |i| r.start + i);
            let mut at = end;
            while at + 2 <= r.end {
                let from = at + 2;
                at = line[from..r.end]
                    .windows(2)
                    .position(|p| p == b"\\n")
                    .map_or(r.end, |i| from + i);
                if at > from {
                    rest.push(from..at);
                }
            }
            r.start..end
        } else {
            v
        };
        let value = &line[v.clone()];
        // After `-p`, lower-case letters with digits (`mtf2jtb57aq0wa0u`) and, where the
        // line also names the user (`-U sa -P 'saddle_gravel_banjo'`), a passphrase.
        let digits = value.iter().filter(|b| b.is_ascii_digit()).count();
        let lower_after_p = after_flag
            && ((lower_random(value) && digits >= 2 && value.len() >= 10)
                || (diceware(value) && names_user(line)));
        // A passphrase after a word naming a secret (`wifi-sec.psk a_b_c_d`), or piped or
        // here-stringed into a command.
        let phrase =
            diceware(value) && (echoed || here || (k > 0 && secret_word(&line[ws[k - 1].clone()])));
        // A variable or a crypt hash (`password $6$rounds=…`) is not the password.
        if (after_flag || echoed || here)
            && value.first() != Some(&b'$')
            && (loose(value) || given_after_flag(value) || lower_after_p || phrase)
        {
            out.push(v);
            out.extend(rest);
            continue;
        }
        // A UUID a word naming a token or secret comes just before (`consul acl
        // set-agent-token agent 9d871935-…`): Consul's and Nomad's tokens are UUIDs.
        let named_token = (k.saturating_sub(2)..k).any(|p| secret_word(&line[ws[p].clone()]))
            || (k > 0 && key_flag(&line[ws[k - 1].clone()]));
        if named_token && uuid(&line[v.clone()]) {
            out.push(v);
            continue;
        }
        // Random letters with one digit or none (`NPtBOJ1WHpYEQW`), as in prose.
        if random_alnum(&line[v.clone()]) || super::bare::random_caps(&line[v.clone()]) {
            out.push(v);
            continue;
        }
        // Marked pieces of the argument; words with digits and random pieces too, unless
        // the argument is public (an SSH key's body is split at `/` into random pieces).
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
            if super::value::crypt_hash(line, s) {
                continue; // a piece of `$6$rounds=5000$salt$…`
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
            let t = &line[piece..i];
            // Only `-p` hides a value this way; `-NqK3xYz…` (a Firebase key) is a name.
            let bare = if piece > s && !matches!(line[s + 1], b'p' | b'P') {
                s
            } else {
                piece
            };
            let u = &line[bare..i];
            let anywhere = || {
                ((word_with_digits(u) && anywhere_digits(u))
                    || (random_anywhere(u) && !super::value::known_public(line, bare..i))
                    || (random_other(u) && !super::value::public_marker(line, bare..i)))
                    && !super::value::public_marker(line, w.clone())
            };
            // `-pdragon_magnet_garden` (mysql): a passphrase glued to `-p`.
            let glued = piece > s && matches!(line[s + 1], b'p' | b'P') && diceware(t);
            if shaped(t) || glued || anywhere() {
                out.push(bare..i);
            }
        }
    }
}
