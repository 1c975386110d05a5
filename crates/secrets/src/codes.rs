//! What a code, a key in groups and a recovery phrase look like in a sentence (used by
//! [`super::told`]): a lock that opens with a code (`cipher lock`, `padlock`), capitals
//! and digits naming a code (`QT18TJUJ`), a licence key in groups (`3G940-3SNRV-QJ5KG`),
//! a wallet's recovery phrase after `phrase:`/`seed:`/`mnemonic:`, and digits a sentence
//! gives as a code whatever it opens (`the installer menu asks for 5924`).

use super::words::lists;
use std::ops::Range;

/// A word without its punctuation and possessive (`thermostat's` → `thermostat`).
pub(super) fn bare(w: &str) -> String {
    let w = w.trim_matches(|c: char| !c.is_alphanumeric());
    w.strip_suffix("'s").unwrap_or(w).to_string()
}

/// True if word `k` is a lock that opens with a code (`the server room's cipher lock is
/// 28894`, `padlock 4417`): a lockbox or padlock, or a lock after a word naming a door,
/// a keypad or a combination (not a file lock or a mutex).
pub(super) fn door_lock(lower: &[String], k: usize) -> bool {
    let w = bare(&lower[k]);
    matches!(w.as_str(), "padlock" | "lockbox")
        || (matches!(w.as_str(), "lock" | "locks")
            && lower[k.saturating_sub(3)..k]
                .iter()
                .any(|a| lists().lock_kind.matches(&bare(a))))
}

/// True if a sentence is about a PIN or a code that may be digits only: a PIN or
/// passcode (`alarm pin is 762213`, `passcode: 543086`), a door's or an alarm's code
/// (`door code … changed to 64005`; not an exit or status code), also after a
/// possessive (`the fire panel's engineer code`), a lock, a locker or a drawer that
/// opens, or a meeting's host key.
pub(super) fn pin_sentence(lower: &[String]) -> bool {
    let door_code = lower.iter().enumerate().any(|(k, w)| {
        matches!(bare(w).as_str(), "code" | "codes")
            && lower[k.saturating_sub(3)..k]
                .iter()
                .any(|a| lists().code_owner.matches(&bare(a)))
    });
    // A locker, a safe or a door that opens with digits (`the locker … opens with 4910`).
    let opens = lower
        .iter()
        .any(|w| matches!(bare(w).as_str(), "opens" | "unlocks"))
        && lower
            .iter()
            .any(|w| lists().opens_with_digits.matches(&bare(w)));
    door_code
        || opens
        || (0..lower.len()).any(|k| door_lock(lower, k))
        // A meeting's host key (Zoom's six digits).
        || (1..lower.len()).any(|k| bare(&lower[k]) == "key" && bare(&lower[k - 1]) == "host")
        || lower.iter().any(|w| {
            let bare = w.trim_matches(|c: char| !c.is_alphanumeric());
            // …or a setting's last part (`lock_screen_pin`).
            let bare = bare.rsplit('_').next().unwrap_or(bare);
            lists().says_pin.matches(bare)
        })
}

/// True if word `k` is a code in the wide sense, whatever it opens (`the thermostat's
/// installer code is 5924`, `the POS manager override is 8581`): `code` not after a word
/// that makes it public (an exit, a zip, an order code), followed by the word that hands
/// it over (`is`, `was`, `:`, `=`, `now`, `changed`), or an override after the role that
/// keys it in (`manager`, `supervisor`). Its digits must end their clause
/// ([`clause_end`]).
pub(super) fn code_word(lower: &[String], k: usize) -> bool {
    let w = bare(&lower[k]);
    let before = &lower[k.saturating_sub(3)..k];
    let next = lower.get(k + 1).map(|n| bare(n));
    let handing = lower[k].ends_with(':')
        || matches!(
            next.as_deref(),
            Some("is" | "was" | "now" | "stays" | "changed" | "became" | "becomes" | "")
        );
    match w.as_str() {
        "code" | "codes" => handing && !before.iter().any(|a| lists().not_code.matches(&bare(a))),
        "override" | "overrides" => {
            handing
                && before
                    .iter()
                    .any(|a| lists().override_role.matches(&bare(a)))
        }
        _ => false,
    }
}

/// True if the value before `k` is asked for (`the installer menu asks for 5924`,
/// `the kiosk prompts for …`): word `k - 1` is `for` after `asks`, `prompts`, `asking`.
pub(super) fn asked_for(lower: &[String], k: usize) -> bool {
    k >= 2
        && lower[k - 1] == "for"
        && matches!(
            lower[k - 2].as_str(),
            "asks" | "asked" | "asking" | "prompts" | "prompted" | "prompting"
        )
}

/// True if the value ending at byte `e` ends its clause: the line ends, or a `.`, `,`, `;`,
/// `!` or `)` follows it, or one of the words that starts what comes next (`until`,
/// `through`, `for`, `and`, `but`, `since`) — not a unit or a noun (`5924 ms`, `2048 MB`).
pub(super) fn clause_end(line: &[u8], e: usize) -> bool {
    let rest = &line[e..];
    let trimmed = rest.trim_ascii_start();
    if trimmed.is_empty() || b".,;!)".contains(&rest[0]) {
        return true;
    }
    let word: Vec<u8> = trimmed
        .iter()
        .take_while(|b| b.is_ascii_alphabetic())
        .map(u8::to_ascii_lowercase)
        .collect();
    matches!(
        &word[..],
        b"until" | b"through" | b"till" | b"for" | b"and" | b"but" | b"since" | b"from" | b"on"
    ) || trimmed[0] == b'-'
        || trimmed.starts_with("—".as_bytes())
}

/// True if word `j` names a token or a secret key (`token`, `tokens`, `secret`,
/// `apikey`, `API key`, `access key`, a licence or signing key) — not a key in general
/// (`the partition key`, `the primary key`).
pub(super) fn key_word(lower: &[String], j: usize) -> bool {
    let w = bare(&lower[j]);
    let last = w.rsplit(['_', '-', '.']).next().unwrap_or(&w).to_string();
    matches!(last.as_str(), "token" | "tokens" | "secret" | "apikey")
        || (last == "key"
            && j > 0
            && matches!(
                bare(&lower[j - 1]).as_str(),
                "api"
                    | "access"
                    | "auth"
                    | "secret"
                    | "licence"
                    | "license"
                    | "private"
                    | "master"
                    | "admin"
                    | "account"
                    | "service"
                    | "server"
                    | "integration"
                    | "signing"
            ))
}

/// True if a sentence names a hash, a digest or an id, so a hex string in it is one
/// (`the token's SHA-256 is …`, `commit 4f1a…`, `key id …`).
pub(super) fn names_a_hash(lower: &[String]) -> bool {
    lower.iter().any(|w| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric());
        matches!(
            w,
            "hash"
                | "hashed"
                | "hashes"
                | "sha"
                | "sha1"
                | "sha256"
                | "sha-256"
                | "sha512"
                | "md5"
                | "digest"
                | "checksum"
                | "commit"
                | "fingerprint"
                | "id"
                | "ids"
                | "uid"
                | "integrity"
                | "etag"
                | "revision"
                | "rev"
        )
    })
}

/// A code of capitals and digits (`QT18TJUJ`, a Wi-Fi or voucher code, a PlayFab title
/// secret): 8–64, two or more digits among three or more letters, not a word and a
/// number (`PROJ1234`).
pub(super) fn upper_code(v: &[u8]) -> bool {
    let digits = v.iter().filter(|b| b.is_ascii_digit()).count();
    let letters = v.iter().take_while(|b| b.is_ascii_uppercase()).count();
    let named = letters >= 2 && v[letters..].iter().all(u8::is_ascii_digit);
    (8..=64).contains(&v.len())
        && v.iter()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
        && digits >= 2
        && v.len() - digits >= 3
        && !named
        && !v.iter().all(u8::is_ascii_hexdigit)
}

/// A licence key in groups (`3G940-3SNRV-QJ5KG`): three or more groups of 4–6 upper-case
/// letters and digits joined by `-`, with both letters and digits.
pub(super) fn licence_key(v: &[u8]) -> bool {
    let groups: Vec<&[u8]> = v.split(|&b| b == b'-').collect();
    groups.len() >= 3
        && groups.iter().all(|g| {
            (4..=6).contains(&g.len())
                && g.iter()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
        })
        && v.iter().any(u8::is_ascii_digit)
        && v.iter().any(u8::is_ascii_uppercase)
}

/// An app password in four groups of four lower-case letters or digits
/// (`2oru-30kl-cqsw-h3pc`, Bluesky's and Apple's app-specific passwords).
pub(super) fn app_password(v: &[u8]) -> bool {
    v.len() == 19
        && v.split(|&b| b == b'-').count() == 4
        && v.split(|&b| b == b'-').all(|g| {
            g.len() == 4
                && g.iter()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// A wallet's recovery phrase: after a colon that ends `phrase`, `seed` or `mnemonic` or a
/// word up to five after it (`Recovery phrase for the test wallet: …`), a run of twelve
/// or more lower-case words of 3–8 letters.
pub(super) fn recovery_phrase(
    line: &[u8],
    ws: &[Range<usize>],
    lower: &[String],
    out: &mut Vec<Range<usize>>,
) {
    let mut trigger = None;
    for (k, w) in lower.iter().enumerate() {
        if matches!(w.trim_end_matches(':'), "phrase" | "seed" | "mnemonic") {
            trigger = Some(k);
        }
        if !w.ends_with(':') || trigger.is_none_or(|t| k - t > 5) {
            continue;
        }
        let run = ws[k + 1..]
            .iter()
            .take_while(|r| {
                let t = &line[(*r).clone()];
                let t = t.strip_suffix(b".").unwrap_or(t);
                (3..=8).contains(&t.len()) && t.iter().all(u8::is_ascii_lowercase)
            })
            .count();
        if run >= 12 {
            out.push(ws[k + 1].start..ws[k + run].end);
        }
    }
}
