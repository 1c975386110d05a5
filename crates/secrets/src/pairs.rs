//! A user name and its password side by side, where no word says "password" (part of
//! step 4 of the scan): `root / Sage5513`, `guest/bucket.turtle.kettle`,
//! `alice@test.acme.io / Mint1384`, `backup:WfcpTs4x6w`, `ops:{PLAIN}Ledge7981`,
//! `-login:ci,xX454JsueL6g`, `user=turn:l9krxnyalx2qht`, `logged in as tester1 with
//! yy6xj4zb0ydgdmpl`, `user ops and island_ladder_wizard`. And a named attribute's value
//! in markup: `<param name="password" value="X"/>`, `<add key="SmtpPass" value="X"/>`.
//!
//! The name must be an *account*: one of the accounts every system has (`root`, `admin`,
//! `sa`, `postgres`, …), an address, or the word after `user`, `as`, `login`
//! (`user=turn:…`, `as tester1 with …`). Accounts that are also everyday words (`ops`,
//! `ci`, `backup`, `deploy`) count only written tight against the value (`ops:X`, `ci,X`)
//! or with ` / `, and a path is never a pair (`/home/ubuntu/deploy_scripts`). The value
//! must have a password's shape ([`pair_value`]); `admin:8080`, `root/bin` and
//! `admin:repo_hook` do not.

use super::words::lists;
use std::ops::Range;

use super::letters::random_letters;
use super::looks::{
    diceware, given, given_after_flag, lower_random, not_email, strong, word_with_digits,
};
use super::value::{looks_secret, placeholder, reference};

/// How strongly `name` is an account: 2 for a well-known account or an address, 1 for one
/// that is also a word, 0 for none. Trailing digits are allowed (`admin2`, `tester1`).
fn account(name: &[u8]) -> u8 {
    let n = String::from_utf8_lossy(name).to_ascii_lowercase();
    let bare = n.trim_end_matches(|c: char| c.is_ascii_digit());
    let email = n.split_once('@').is_some_and(|(user, host)| {
        !user.is_empty()
            && host.contains('.')
            && n.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"@._+-".contains(&b))
    });
    if email || lists().accounts.matches(bare) {
        2
    } else if lists().word_accounts.matches(bare) {
        1
    } else {
        0
    }
}

/// A plain account name (`tester1`, `svc_reports`, `jdoe`), the kind `user X` introduces.
fn name_like(w: &[u8]) -> bool {
    (2..=32).contains(&w.len())
        && w[0].is_ascii_alphabetic()
        && w.iter()
            .all(|b| b.is_ascii_alphanumeric() || b"_-.@".contains(b))
}

/// The shape a value beside an account must have: what a sentence hands over as a
/// password ([`given`]), a word with four digits or a mark (`Sage5513`), a passphrase
/// (`sugar.orbit.tiger86`), lower-case letters with two or more digits (`l9krxnyalx2qht`)
/// or random letters (`WfcpTsxwQk`); not a variable, reference or placeholder.
/// [`pair_value`], or — beside an address or a well-known account, or passed to a login
/// call — both cases with a digit or a symbol (`1ccAlYPoVs`, `YSFYNtBwgg@QNqbiRV`).
fn strong_pair_value(v: &[u8]) -> bool {
    pair_value(v) || (given_after_flag(v) && v[0] != b'$' && !placeholder(v) && !reference(v))
}

pub(super) fn pair_value(v: &[u8]) -> bool {
    let digits = v.iter().filter(|b| b.is_ascii_digit()).count();
    !v.is_empty()
        && v[0] != b'$'
        && !placeholder(v)
        && !reference(v)
        && not_email(v)
        // A password does not name itself (`elasticsearch-reset-password`).
        && !["pass", "secret", "token", "key"]
            .iter()
            .any(|w| String::from_utf8_lossy(v).to_ascii_lowercase().contains(w))
        // `Chrome120` is a product and its version: a word with digits needs four of them
        // or a mark.
        && (!word_with_digits(v) || strong(v))
        && (given(v)
            || (word_with_digits(v) && strong(v))
            || diceware(v)
            || (lower_random(v) && digits >= 2 && v.len() >= 10)
            || (random_letters(v) && v.len() >= 10))
}

/// `v` without a Dovecot-style scheme in braces (`{PLAIN}Ledge7981`) and without the
/// sentence's punctuation after it.
fn value_range(line: &[u8], mut s: usize, mut e: usize) -> Range<usize> {
    let scheme = line[s..e].iter().position(|&b| b == b'}');
    if let Some(close) =
        scheme.filter(|&c| line[s] == b'{' && line[s + 1..s + c].iter().all(u8::is_ascii_uppercase))
    {
        s += close + 1;
    }
    while e > s && b"\"'),.;:`".contains(&line[e - 1]) {
        e -= 1;
    }
    s..e
}

/// The words of a line, with quotes, brackets and a trailing comma trimmed.
fn trimmed_words(line: &[u8]) -> Vec<Range<usize>> {
    super::line::words(line, 0)
        .into_iter()
        .map(|w| {
            let (mut a, mut b) = (w.start, w.end);
            while a < b && b"\"'(`[".contains(&line[a]) {
                a += 1;
            }
            while b > a && b"\"'),;`]".contains(&line[b - 1]) {
                b -= 1;
            }
            a..b
        })
        .collect()
}

/// Pairs written in one word: `ops:{PLAIN}X`, `ci,X`, `guest/X`, `user=turn:X`.
fn tight(line: &[u8], w: Range<usize>, out: &mut Vec<Range<usize>>) {
    let word = &line[w.clone()];
    if word.starts_with(b"/") || word.contains(&b'\\') || word.windows(3).any(|x| x == b"://") {
        return; // a path or a URL (credentials in URLs have their own rule)
    }
    let slashes = word.iter().filter(|&&b| b == b'/').count();
    // Pieces split at `/ : , =`, each with the separator before it.
    let mut pieces: Vec<(u8, Range<usize>)> = Vec::new();
    let mut start = w.start;
    let mut sep = 0u8;
    for (i, &b) in word.iter().enumerate().map(|(i, b)| (w.start + i, b)) {
        if b"/:,=".contains(&b) {
            pieces.push((sep, start..i));
            sep = b;
            start = i + 1;
        }
    }
    pieces.push((sep, start..w.end));
    for k in 1..pieces.len() {
        let (sep, ref v) = pieces[k];
        let (_, ref n) = pieces[k - 1];
        if sep == b'=' || n.is_empty() || v.is_empty() {
            continue;
        }
        let keyed = k >= 2
            && pieces[k - 1].0 == b'='
            && lists().introduce_account.matches(
                String::from_utf8_lossy(&line[pieces[k - 2].1.clone()])
                    .to_ascii_lowercase()
                    .trim_start_matches('-'),
            );
        let strength = if keyed && name_like(&line[n.clone()]) {
            2
        } else {
            account(&line[n.clone()])
        };
        // A path-like `a/b/c` is never a pair; `ops/…` (a branch) needs a strong account.
        let ok = match sep {
            b'/' => slashes == 1 && strength == 2,
            _ => strength >= 1,
        };
        // The value runs to the end of the word for `:` (a password may hold `:`/`,`).
        let end = if sep == b':' { w.end } else { v.end };
        let r = value_range(line, v.start, end);
        let value = &line[r.clone()];
        if ok && (pair_value(value) || (strength == 2 && strong_pair_value(value))) {
            out.push(r);
            return;
        }
    }
}

/// Pairs across words: `root / X`, `admin : X`, `as tester1 with X`, `user ops and X`.
fn spaced(line: &[u8], ws: &[Range<usize>], out: &mut Vec<Range<usize>>) {
    let lower = |r: &Range<usize>| String::from_utf8_lossy(&line[r.clone()]).to_ascii_lowercase();
    for k in 0..ws.len() {
        let name = &line[ws[k].clone()];
        let introduced =
            k > 0 && lists().introduce_account.matches(&lower(&ws[k - 1])) && name_like(name);
        let strength = if introduced { 2 } else { account(name) };
        if strength == 0 {
            continue;
        }
        let Some(conn) = ws.get(k + 1).map(lower) else {
            continue;
        };
        let v = match conn.as_str() {
            "/" | ":" if strength >= 1 => ws.get(k + 2),
            "with" | "and" | "using" | "pass" | "pw" if strength == 2 => ws.get(k + 2),
            _ => None,
        };
        if let Some(v) = v {
            let r = value_range(line, v.start, v.end);
            let slash = matches!(conn.as_str(), "/" | ":") && strength == 2;
            if pair_value(&line[r.clone()]) || (slash && strong_pair_value(&line[r.clone()])) {
                out.push(r);
            }
        }
    }
}

/// `<param name="password" value="X"/>`, `<add key="SmtpPass" value="X"/>`: the value of
/// an element whose name or key says it holds a secret. The element's start is looked
/// for at most 256 bytes back, so a line of 2,000 attributes costs 2,000 short looks.
fn named_attribute(line: &[u8], out: &mut Vec<Range<usize>>) {
    let text = line.to_ascii_lowercase();
    let find = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).position(|w| w == needle);
    let mut from = 0;
    while let Some(at) = find(&text[from..], b"value=\"").map(|i| from + i) {
        from = at + 7;
        let back = at.saturating_sub(256);
        let tag = text[back..at]
            .iter()
            .rposition(|&b| b == b'<')
            .map(|i| back + i);
        let says = tag.is_some_and(|tag| {
            let before = &text[tag..at];
            [&b"name=\""[..], b"key=\"", b"id=\""].iter().any(|n| {
                find(before, n).is_some_and(|i| {
                    let v = &before[i + n.len()..];
                    let v = &v[..v.iter().position(|&b| b == b'"').unwrap_or(v.len())];
                    [
                        &b"pass"[..],
                        b"pwd",
                        b"secret",
                        b"token",
                        b"apikey",
                        b"api_key",
                        b"credential",
                    ]
                    .iter()
                    .any(|s| find(v, s).is_some())
                })
            })
        });
        let Some(len) = line[from..].iter().position(|&b| b == b'"') else {
            return;
        };
        let v = &line[from..from + len];
        if says && !placeholder(v) && !reference(v) && (looks_secret(v) || diceware(v)) {
            out.push(from..from + len);
        }
    }
}

/// Credentials passed by position to a call that logs in (`new PDO($dsn, 'app', 'X')`,
/// `mysqli_connect('db', 'app', 'X', 'shop')`, `new Sequelize('shop', 'app', 'X', …)`):
/// a quoted value of a password's shape right after a quoted account name.
fn positional(line: &[u8], out: &mut Vec<Range<usize>>) {
    const CALLS: [&[u8]; 7] = [
        b"connect",
        b"login",
        b"auth",
        b"pdo",
        b"sequelize",
        b"bind",
        b"credential",
    ];
    let lower = line.to_ascii_lowercase();
    let mut i = 0;
    while let Some(open) = lower[i..].iter().position(|&b| b == b'(').map(|p| i + p) {
        i = open + 1;
        let name_start = lower[..open]
            .iter()
            .rposition(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
            .map_or(0, |p| p + 1);
        // A tuple assigned to a name (`basic_auth=('elastic', 'X')`): the name is before `=`.
        let assigned = lower[..open].trim_ascii_end();
        let name = if name_start == open && assigned.ends_with(b"=") {
            let n = assigned[..assigned.len() - 1].trim_ascii_end();
            let s = n
                .iter()
                .rposition(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
                .map_or(0, |p| p + 1);
            &n[s..]
        } else {
            &lower[name_start..open]
        };
        if !CALLS.iter().any(|c| name.windows(c.len()).any(|w| w == *c)) {
            continue;
        }
        let close = lower[open..]
            .iter()
            .position(|&b| b == b')')
            .map_or(line.len(), |p| open + p);
        // The quoted arguments, in order (a `{…}` or `$x` between them is skipped).
        let mut args: Vec<Range<usize>> = Vec::new();
        let mut j = open + 1;
        while j < close {
            let q = line[j];
            if q == b'\'' || q == b'"' {
                let Some(len) = line[j + 1..close].iter().position(|&b| b == q) else {
                    break;
                };
                // A named value (`type: 'azure-…'`, `host='db'`) is not a position.
                let named = line[open + 1..j]
                    .trim_ascii_end()
                    .last()
                    .is_some_and(|b| matches!(b, b':' | b'='));
                if !named {
                    args.push(j + 1..j + 1 + len);
                }
                j += len + 2;
            } else {
                j += 1;
            }
        }
        for pair in args.windows(2) {
            if name_like(&line[pair[0].clone()]) && strong_pair_value(&line[pair[1].clone()]) {
                out.push(pair[1].clone());
            }
        }
    }
}

/// The byte ranges of passwords beside their account, and of named attributes' values, in
/// one line.
pub(super) fn pairs(line: &[u8], out: &mut Vec<Range<usize>>) {
    let ws = trimmed_words(line);
    for w in &ws {
        tight(line, w.clone(), out);
    }
    spaced(line, &ws, out);
    if line.contains(&b'(') {
        positional(line, out);
    }
    if line.contains(&b'<') {
        named_attribute(line, out);
    }
}

/// True if `prev` (a word before a value in a sentence that says "password") is an
/// account, so the value after it is handed over (`creds: admin Harbor6549`,
/// `changepassword admin Hatch7433@`), or an account and a comma (`client@partner.io,
/// tjxqztad7g`).
pub(super) fn after_account(prev: &[u8]) -> bool {
    account(prev.strip_suffix(b",").unwrap_or(prev)) >= 1
}

/// The shape a value must have right after a sentence's `…password…:` (`Password for the
/// export: vVH_&nZxVw_zlWz`): [`given_after_flag`], with two digits or a symbol other
/// than `-` and `.`, not words (`Min-Length`, `Dev_Only`, `Argon2id` are not).
pub(super) fn after_colon(v: &[u8]) -> bool {
    given_after_flag(v)
        && (v.iter().filter(|b| b.is_ascii_digit()).count() >= 2
            || v.iter().any(|b| b"!#%&*?^~@+=$_".contains(b)))
        && !super::letters::wordy(v)
}

#[cfg(test)]
mod tests {
    fn found(t: &str) -> Vec<&str> {
        let mut out = Vec::new();
        super::pairs(t.as_bytes(), &mut out);
        out.into_iter()
            .map(|r| t.get(r).expect("a found range is a char boundary"))
            .collect()
    }

    #[test]
    fn a_password_beside_its_account() {
        for (t, want) in [
            ("still accepts root / Sage5513, rotate it", "Sage5513"),
            (
                "the broker accepts guest/bucket.turtle.kettle21 on 5672",
                "bucket.turtle.kettle21",
            ),
            (
                "created test user alice@test.acme.io / Mint1384",
                "Mint1384",
            ),
            ("dovecot users: ops:{PLAIN}Ledge7981::::::", "Ledge7981"),
            ("tf workspace -login:ci,xX454JsueL6g", "xX454JsueL6g"),
            ("coturn: user=turn:l9krxnyalx2qht", "l9krxnyalx2qht"),
            (
                "logged in as tester1 with yy6xj4zb0ydgdmpl, works",
                "yy6xj4zb0ydgdmpl",
            ),
            (
                "log in with user ops and island_ladder_wizard_garden",
                "island_ladder_wizard_garden",
            ),
            ("config: backup:WfcpTs4x6w", "WfcpTs4x6w"),
            (
                r#"<param name="password" value="parrot-kettle-wizard34"/>"#,
                "parrot-kettle-wizard34",
            ),
            (r#"<add key="SmtpPass" value="Otter!x77" />"#, "Otter!x77"),
            (
                "$pdo = new PDO($dsn, 'app', 'forest_orange_hammer_engine');",
                "forest_orange_hammer_engine",
            ),
            (
                "new Sequelize('shop', 'app', 'aoe1w69yugq7o', { host: 'db' })",
                "aoe1w69yugq7o",
            ),
            (
                "db2 connect to SAMPLE user db2inst1 using qvo0pdbwmumc1k",
                "qvo0pdbwmumc1k",
            ),
        ] {
            assert_eq!(found(t), [want], "{t}");
        }
        for t in [
            "curl http://admin:8080/health",
            "/home/ubuntu/deploy_scripts_prod/run.sh",
            "gh auth refresh -s admin:repo_hook",
            "ci/release_train_notes_draft",
            "deploy with blue_green_canary_rollout",
            "git push origin ops/rotate-db-creds",
            "kubectl auth can-i --as system:serviceaccount:prod:default",
            "login as admin with Chrome120 works",
            "password: ${DB_PASSWORD} for user admin / $ADMIN_PW",
            r#"<param name="timeout" value="Slow9000!"/>"#,
            r#"<add key="DbPassword" value="${DB_PASSWORD}" />"#,
            "root:x:0:0:root:/root:/bin/bash",
            "client.get('users', 'list_active_users_now')",
            "mysqli_connect('db', 'app', getenv('DB_PASS'), 'shop')",
        ] {
            assert!(found(t).is_empty(), "{t}: {:?}", found(t));
        }
    }
}
