//! What a code, a key in groups and a recovery phrase look like in a sentence (used by
//! [`super::told`]): a lock that opens with a code (`cipher lock`, `padlock`), capitals
//! and digits naming a code (`QT18TJUJ`), a licence key in groups (`3G940-3SNRV-QJ5KG`)
//! and a wallet's recovery phrase after `phrase:`/`seed:`/`mnemonic:`.

use std::ops::Range;

/// True if word `k` is a lock that opens with a code (`the server room's cipher lock is
/// 28894`, `padlock 4417`): a lockbox or padlock, or a lock after a word naming a door,
/// a keypad or a combination (not a file lock or a mutex).
pub(super) fn door_lock(lower: &[String], k: usize) -> bool {
    let bare = |w: &str| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string();
    let w = bare(&lower[k]);
    matches!(w.as_str(), "padlock" | "lockbox")
        || (matches!(w.as_str(), "lock" | "locks")
            && lower[k.saturating_sub(3)..k].iter().any(|a| {
                matches!(
                    bare(a).as_str(),
                    "door"
                        | "cipher"
                        | "combination"
                        | "keypad"
                        | "gate"
                        | "bike"
                        | "locker"
                        | "cabinet"
                        | "mailbox"
                        | "shed"
                        | "smart"
                        | "digital"
                )
            }))
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
