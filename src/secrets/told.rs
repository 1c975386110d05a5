//! Passwords told in a sentence (part of step 4 of the scan): `The admin password for
//! staging is Harvest4096`, `pw for the report account = Kx9#mTq2`, `Zoom passcode:
//! 804215`, `the keystore only opens with Kite3075`. A sentence must say so — a word
//! naming a password (`password`, `passphrase`, `passcode`, `pwd`, words ending in `pass`
//! or `pw`: `requirepass`, `rootpw`, and a setting's last part: `auth_pass`, `bind-pw`), a
//! secret (`psk`, `pin`, `key`, `token`, `secret`, `creds`, `recovery`, `community`,
//! `encrypted`), a lock that opens with a code (`cipher lock`, `padlock`) or a login (`log
//! in`, `unlock`, `opens`, `sudo`) — and the value is judged by how the sentence hands it
//! over:
//!
//! - within eight words of that word, a marked or random value counts anywhere;
//! - a word with digits, a passphrase, lower-case letters with digits and random letters
//!   with one digit or none count only where the sentence hands them over: right after
//!   the word, after `is`/`was`/`now`/`stays`/`then`/`holds`/`:`/`=`/`->`, after
//!   `with`/`use`, after an account (`admin Ferry7731`), in a bracketed pair (`(ops,
//!   X)`), after a flag that follows the word (`rootpw --plaintext X`, `/v
//!   DefaultPassword … /d X`), or before `as`/`is`;
//! - after `pin`, `puk`, `passcode`, `unlock`, a lock, or a door's, alarm's, admin's or
//!   pairing `code`, digits (`804215`); handed over, a hex key of 32 or more, random
//!   lower-case letters (`efguyaujgwoqyzfx`, an app password), a licence key in groups,
//!   capitals and digits after a word naming a code (`QT18TJUJ`), random printable keys
//!   (`6Mheeei6OW<o<p[b`) and a UUID after a token word or `Secret ID`; after
//!   `…password…:`, a value with symbols and no digit (`qTR_&mWzKv_pdLx`) or both cases
//!   with one digit and no word (`e2WEJAwc`);
//! - after `phrase`, `seed` or `mnemonic` and a colon, a run of twelve or more lower-case
//!   words (a wallet's recovery phrase);
//! - digits a sentence gives as a code whatever it opens, ending their clause (`the POS
//!   manager override is 8581`, `the installer menu asks for 5924`, `the old iPad opens
//!   with 121869`; not `the zip code is 94107`, `2048 MB`) — asking for them needs no
//!   word that says so — and a passphrase given with a Wi-Fi network (`the Wi-Fi is
//!   Dock-5G, ladder-engine-jacket`, not its name);
//! - 32 hex digits or more, a UUID or a typed token a few words after a word naming a
//!   token or an API key, where the sentence names no hash or id.
//!
//! Lower-case words, versions (`Office365`), algorithm names (`Argon2id`), constants and
//! flags are not.

use std::ops::Range;

use super::codes::{self, bare};
use super::letters::{random_letters, random_lower};
use super::line::words;
use super::looks::{
    diceware, given, given_after_flag, lower_random, random_mixed, random_printable, shaped,
    strong, word_with_digits,
};

/// Findings in a sentence that names a password.
pub(super) fn told(line: &[u8], out: &mut Vec<Range<usize>>) {
    const SAYS: [&str; 4] = ["password", "passphrase", "passcode", "pwd"];
    const ALSO: [&str; 40] = [
        "psk",
        "pw",
        "pass",
        "creds",
        "credentials",
        "token",
        "secret",
        "key",
        "phrase",
        "pin",
        "puk",
        "keypad",
        "combination",
        "mnemonic",
        "seed",
        // A login: `logs in with X`, `opens with X`, `if sudo asks, it is X`.
        "login",
        "logs",
        "logged",
        "unlock",
        "unlocks",
        "unlocked",
        "opens",
        "sudo",
        // An account or an answer a value is given for: `realm admin: …, X`, `invite
        // code X`, `security answer: X`.
        "admin",
        "root",
        "superuser",
        "account",
        "code",
        "answer",
        // What a value opens or licenses: `basic auth (ops, X)`, `X for the trial licence`.
        "auth",
        "safe",
        "disarm",
        "disarms",
        "licence",
        "license",
        "serial",
        "recovery",
        // What a value encrypts, or an SNMP community (`encrypted with X`).
        "encrypted",
        "community",
        // A personal access token (`gandi: PAT cc3a…`).
        "pat",
    ];
    // Words that end in `pass` but do not say password.
    const NOT_PASS: [&str; 7] = [
        "bypass",
        "compass",
        "encompass",
        "surpass",
        "trespass",
        "overpass",
        "underpass",
    ];
    let says_word = |w: &str| {
        let bare = w.trim_matches(|c: char| !c.is_alphanumeric());
        // A setting's last part (`auth_pass`, `bind-pw`, `sasl.passwd`).
        let last = bare.rsplit(['_', '-', '.']).next().unwrap_or(bare);
        if last != bare
            && matches!(
                last,
                "pass" | "pw" | "passwd" | "pwd" | "psk" | "secret" | "apikey" | "token" | "pin"
            )
        {
            return true;
        }
        let alpha = !bare.is_empty() && bare.bytes().all(|b| b.is_ascii_alphabetic());
        // A camel-case setting whose last word is a key or token (`genieKey`, `apiToken`),
        // not an English word ending in `key` (`monkey`, `hotkey`)…
        const NOT_KEY: [&str; 9] = [
            "monkey", "donkey", "turkey", "hockey", "jockey", "whiskey", "turnkey", "hotkey",
            "lackey",
        ];
        // …nor a key that is public or no secret (`PublicKey`, `siteKey`, `primaryKey`).
        const NOT_SECRET: [&str; 12] = [
            "public",
            "publishable",
            "site",
            "host",
            "primary",
            "foreign",
            "sort",
            "partition",
            "cache",
            "routing",
            "shard",
            "idempotency",
        ];
        let setting = alpha
            && bare.len() >= 6
            && bare.len() <= 24
            && !NOT_SECRET.iter().any(|p| bare.starts_with(p))
            && ((bare.ends_with("key") && !NOT_KEY.contains(&bare)) || bare.ends_with("token"));
        SAYS.iter().any(|s| w.contains(s))
            || ALSO.contains(&bare)
            // A label: `# master: X`, `vault: X`.
            || matches!(w, "master:" | "vault:" | "unlock:")
            // `requirepass`, `rootpw`, `adminpw`
            || (alpha && bare.ends_with("pass") && !NOT_PASS.contains(&bare))
            || (alpha && bare.len() <= 12 && bare.ends_with("pw"))
            || setting
    };
    let ws = words(line, 0);
    let lower: Vec<String> = ws
        .iter()
        .map(|w| String::from_utf8_lossy(&line[w.clone()]).to_ascii_lowercase())
        .collect();
    // `log in`, `logs in`, `sign in`: a login (`log` alone is `git log`).
    let is_says: Vec<bool> = lower
        .iter()
        .enumerate()
        .map(|(k, w)| {
            (says_word(w) && !super::bare::id_key(&lower, k))
                || codes::door_lock(&lower, k)
                || codes::code_word(&lower, k)
                || (matches!(w.as_str(), "log" | "sign" | "signs" | "signed")
                    && lower.get(k + 1).is_some_and(|n| n.starts_with("in")))
        })
        .collect();
    // Digits a device asks for (`the installer menu asks for 5924`), and a passphrase
    // of random words given with a Wi-Fi network (`the Wi-Fi is Dock-5G,
    // ladder-engine-jacket`), need no word that says what they are.
    let asked = (0..lower.len()).any(|k| codes::asked_for(&lower, k));
    let wifi = lower.iter().any(|w| {
        matches!(
            w.trim_matches(|c: char| !c.is_alphanumeric()),
            "wi-fi" | "wifi" | "wlan"
        )
    });
    if !is_says.contains(&true) && !asked && !wifi {
        return;
    }
    // A code in the wide sense (`the installer code is 5924`): its digits must end
    // their clause.
    let loose_code = (0..lower.len()).any(|k| codes::code_word(&lower, k));
    // A PIN, a door's code, a lock that opens: digits alone may be the secret.
    let pin = codes::pin_sentence(&lower);
    // A word that says "password" itself (not only `key`, `token`, `pin`, `login`).
    let says_password = |w: &str| {
        let bare = w.trim_matches(|c: char| !c.is_alphanumeric());
        SAYS.iter().any(|s| w.contains(s))
            || (bare.bytes().all(|b| b.is_ascii_alphabetic())
                && (bare.ends_with("pw") || (bare.ends_with("pass") && !NOT_PASS.contains(&bare))))
    };
    let strong_says = lower.iter().any(|w| says_password(w));
    // A sentence about a code or a key, not a serial number (`serial CNB8K12345`).
    let code_said = strong_says
        || lower.iter().any(|w| {
            matches!(
                w.trim_matches(|c: char| !c.is_alphanumeric()),
                "code" | "codes" | "key" | "pin" | "voucher"
            )
        });
    // Words within eight of one that says "password" (linear: a line of 2,000 such
    // words must not cost 2,000²).
    let mut near = vec![false; ws.len()];
    for (k, _) in is_says.iter().enumerate().filter(|(_, s)| **s) {
        for n in near.iter_mut().take(k + 9).skip(k.saturating_sub(8)) {
            *n = true;
        }
    }
    codes::recovery_phrase(line, &ws, &lower, out);
    let ids = super::bare::id_words(&lower);
    // For each word, the index just after the last word before it that says password.
    let mut last_says = vec![0; ws.len()];
    for k in 1..ws.len() {
        last_says[k] = if is_says[k - 1] { k } else { last_says[k - 1] };
    }
    for (k, w) in ws.iter().enumerate() {
        if is_says[k] {
            continue; // the word that says "password" is the subject, not the value
        }
        let asked_here = codes::asked_for(&lower, k);
        if !near[k] && !asked_here && !wifi {
            continue;
        }
        // `dashboard uid: aXk29Lm3Qz`: an id — unless a word saying password comes after
        // the id's noun (`the demo tenant … with passcode X`).
        let from = last_says[k];
        // …but not where the id's noun only says what the password is for (`the
        // encryption password for the backup job is X`).
        let qualified = matches!(
            lower.get(from).map(String::as_str),
            Some("for" | "of" | "on")
        ) && k
            .checked_sub(1)
            .is_some_and(|p| matches!(lower[p].as_str(), "is" | "was" | "stays" | "remains"));
        if !qualified && super::bare::names_an_id(&ids, from, k) {
            continue;
        }
        let Range {
            start: mut s,
            end: e,
        } = super::bare::unpunctuated(line, w, b"");
        // `reporter/X`, `admin:X`: the part after a user name.
        if let Some(cut) = line[s..e].iter().position(|&b| b == b'/' || b == b':') {
            let user = &line[s..s + cut];
            if !user.is_empty()
                && user
                    .iter()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_-.".contains(b))
                && !line[s + cut + 1..e].contains(&b'/')
            {
                s += cut + 1;
            }
        }
        let v = &line[s..e];
        if v.first() == Some(&b'$') {
            continue; // a variable or a crypt hash (`$9$nhEm…`)
        }
        if super::looks::hex_literal(v) {
            continue; // a number, a key id, an address
        }
        if super::value::read_from(v) {
            continue; // where code reads it from (`process.env.TYPESENSE_KEY`)
        }
        let name = v
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || b"_.".contains(b))
            .count();
        if name >= 2 && v[0].is_ascii_alphabetic() && v.get(name) == Some(&b'(') {
            continue; // a call (`Klarna(username='K123456_abcdef',`)
        }
        let code_digits = (4..=8).contains(&v.len())
            && v.iter().all(u8::is_ascii_digit)
            && codes::clause_end(line, e);
        if !near[k] {
            // …not the network's name (`the Wi-Fi SSID is blue-harbor-lamp`).
            let named = lower[k.saturating_sub(3)..k].iter().any(|w| {
                matches!(
                    w.trim_matches(|c: char| !c.is_alphanumeric()),
                    "ssid" | "name" | "named" | "called" | "network"
                )
            });
            if (asked_here && code_digits)
                || (wifi && !named && super::looks::random_words(v, true, false))
            {
                out.push(s..e);
            }
            continue;
        }
        // A word with digits is also a product and its version (`Office365`): it counts
        // only where a sentence hands a password over — right after the word that says
        // so, after `is`/`was`/`:`/`=`, or before `as`.
        let handed = || {
            let prev = k.checked_sub(1).map(|p| lower[p].as_str());
            let next = lower.get(k + 1).map(String::as_str);
            // A flag after the word (`rootpw --plaintext X`, `DefaultPassword /t REG_SZ
            // /d X`).
            let flag = prev
                .is_some_and(|p| (p.starts_with('-') || p.starts_with('/')) && p.len() <= 12)
                && (k.saturating_sub(5)..k - 1).any(|j| says_password(&lower[j]));
            // A pair in brackets (`the shared account (ops, X)`).
            let tuple = prev.is_some_and(|p| p.starts_with('(') && p.ends_with(','))
                && line.get(e) == Some(&b')');
            k.checked_sub(1).is_some_and(|p| is_says[p])
                || flag
                || tuple
                || matches!(
                    prev,
                    Some(
                        "is" | "was"
                            | "are"
                            | "were"
                            | "be"
                            | "now"
                            | "stays"
                            | "remains"
                            | "becomes"
                            | "became"
                            | "="
                            | "as"
                            | "/"
                            | "->"
                            | "=>"
                            | "→"
                            | "with"
                            | "use"
                            | "using"
                            | "uses"
                            | "used"
                            | "wants"
                            | "takes"
                            | "accepts"
                            | "keeps"
                            | "holds"
                            | "then"
                    )
                )
                || k.checked_sub(1)
                    .is_some_and(|p| super::pairs::after_account(&line[ws[p].clone()]))
                || (prev == Some("to") && strong(v))
                || prev.is_some_and(|p| p.ends_with(':') || p.ends_with('='))
                || matches!(next, Some("as" | "is" | "<-" | "←" | "unlocks" | "opens"))
        };
        let handed_over = || {
            let prev = k.checked_sub(1).map(|p| lower[p].as_str());
            // Lower-case letters with one digit are also names (`argon2id`): only right
            // after the word that says so, or after `is`/`was`/`=`/`to`.
            let lower_ok = lower_random(v)
                && (k.checked_sub(1).is_some_and(|p| {
                    is_says[p] || super::pairs::after_account(&line[ws[p].clone()])
                }) || matches!(prev, Some("is" | "was" | "=" | "/" | "to"))
                    || v.iter().filter(|b| b.is_ascii_digit()).count() >= 2
                    || super::letters::foreign(v));
            (word_with_digits(v)
                || given(v)
                || diceware(v)
                || lower_ok
                || super::bare::random_caps(v)
                || super::bare::lower_letters(v))
                && (handed()
                    || (prev == Some("to")
                        && (strong(v)
                            || diceware(v)
                            || (lower_random(v)
                                && v.iter().filter(|b| b.is_ascii_digit()).count() >= 2))))
        };
        // Symbols and both cases, handed over (`Password for the archive: qTR_&mWzKv`,
        // `fw&fGDFOmL ← the new VPN key`).
        // …or both cases with one digit and no word in them (`TeamViewer password for the
        // kiosk: e2WEJAwc`; not `Argon2id`).
        let colon = || {
            let after_label = strong_says
                && k.checked_sub(1)
                    .is_some_and(|p| lower[p].ends_with(':') || is_says[p]);
            (super::pairs::after_colon(v) && (after_label || handed()))
                || (after_label
                    && given_after_flag(v)
                    && !super::letters::wordy(v)
                    && !super::bare::long_word(v))
        };
        // …in groups too (`9217-7462`, a 2FA backup code).
        let digits_only = || {
            let digits = v.iter().filter(|b| b.is_ascii_digit()).count();
            // …or what opens or unlocks with them (`the old iPad opens with 121869`).
            let opens_with = k >= 2
                && lower[k - 1] == "with"
                && matches!(
                    bare(&lower[k - 2]).as_str(),
                    "opens" | "unlocks" | "opened" | "unlocked"
                );
            if ((loose_code && handed()) || asked_here || opens_with) && code_digits {
                return true;
            }
            pin && handed()
                && v.len() >= 4
                && v[0].is_ascii_alphanumeric()
                && v.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-')
                && digits >= 4
                && (!v.contains(&b'-') || digits >= 8)
        };
        // Right after a word naming a token, a key or a secret: sixteen digits or more
        // (TeamCity's super user token), or a typed token (`tk_1zbx…`, ntfy's) whose
        // body is random or a UUID (`wbhsec_…`, Persona's; `papi-…`, Personio's).
        let token_word = k.checked_sub(1).is_some_and(|p| {
            is_says[p]
                && matches!(
                    bare(&lower[p]).rsplit(['_', '-', '.']).next(),
                    Some("token" | "key" | "apikey" | "secret")
                )
        });
        let token_value = || {
            let typed = v.iter().take_while(|b| b.is_ascii_lowercase()).count();
            let sep = v.get(typed).copied();
            let body = if (2..=10).contains(&typed)
                && (sep == Some(b'_')
                    || (sep == Some(b'-') && super::command::uuid(&v[typed + 1..])))
            {
                &v[typed + 1..]
            } else {
                &[][..]
            };
            token_word
                && ((v.len() >= 16 && v.iter().all(u8::is_ascii_digit))
                    || super::command::uuid(body)
                    || (body.len() >= 20
                        && body.iter().all(u8::is_ascii_alphanumeric)
                        && body.iter().filter(|b| b.is_ascii_digit()).count() >= 2
                        && !super::letters::wordy(body)))
        };
        // A hex key, random lower-case letters (an app password) or a licence key in
        // groups (`3G940-3SNRV-QJ5KG`), handed over.
        let keyish = || {
            // …in groups too (a Bunny storage password: a UUID and two more groups).
            let hex = v.iter().filter(|b| b.is_ascii_hexdigit()).count() >= 32
                && v.iter().all(|b| b.is_ascii_hexdigit() || *b == b'-')
                && v[0] != b'-'
                && v[v.len() - 1] != b'-'
                && v.iter().any(u8::is_ascii_digit)
                && v.iter().any(u8::is_ascii_alphabetic);
            // A hex string after a flag is an id as often (`--forget KEYGRIP`).
            let prev = k.checked_sub(1).map(|p| lower[p].as_str());
            let said = k.checked_sub(1).is_some_and(|p| is_says[p])
                || matches!(prev, Some("is" | "was" | "=" | "to"))
                || prev.is_some_and(|p| p.ends_with(':'));
            // A TOTP seed: base32 of 16 or more (`3J6AKNYS6BKH2U4J…`).
            let base32 = v.len() >= 16
                && v.iter()
                    .all(|b| b.is_ascii_uppercase() || (b'2'..=b'7').contains(b))
                && v.iter().filter(|b| b.is_ascii_digit()).count() >= 2;
            ((hex && said)
                || base32
                || random_lower(v)
                || codes::licence_key(v)
                || codes::app_password(v)
                || (code_said && codes::upper_code(v)))
                && handed()
        };
        // A short password right after the word (`password 38ilf3`): six or seven
        // letters and digits with no word in them (`argon2` has one).
        let short = || {
            (6..=7).contains(&v.len())
                && k.checked_sub(1).is_some_and(|p| says_password(&lower[p]))
                && v.iter().all(u8::is_ascii_alphanumeric)
                && v.iter().any(u8::is_ascii_digit)
                && v.iter().filter(|b| b.is_ascii_alphabetic()).count() >= 2
                && !super::bare::long_word(v)
        };
        // Right after the word that says password, both cases with a digit or a symbol
        // (`server password 4toTReSRtaSpzpea`), not a name made of words.
        let right_after = || {
            k.checked_sub(1).is_some_and(|p| says_password(&lower[p]))
                && given_after_flag(v)
                && !super::letters::wordy(v)
        };
        // A UUID right after a word naming a token or secret, or its `Secret ID`
        // (Consul's and Nomad's tokens are UUIDs), or handed over in a sentence that says
        // password (`admin.password holds 0c1d…`, Nexus's first admin password).
        let token_uuid = || {
            super::command::uuid(v)
                && (k.checked_sub(1).is_some_and(|p| is_says[p])
                    || (strong_says && handed())
                    || (k >= 2 && bare(&lower[k - 1]) == "id" && bare(&lower[k - 2]) == "secret")
                    || (handed() && (k.saturating_sub(3)..k).any(|j| codes::key_word(&lower, j))))
        };
        // 32 hex digits or more up to eight words after a word naming a token or an API
        // key (`API token (full access) 40cf…`), also after its type and owner (`agent
        // token agent:acme:30a8…`, Dagster's), where the sentence names no hash or id.
        let key_hex = || {
            let hex = v.rsplit(|&b| b == b':').next().unwrap_or(v);
            let typed = &v[..v.len() - hex.len()];
            hex.len() >= 32
                && hex.iter().all(u8::is_ascii_hexdigit)
                && hex.iter().any(u8::is_ascii_digit)
                && hex.iter().any(u8::is_ascii_alphabetic)
                && typed
                    .iter()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b':')
                && (k.saturating_sub(8)..k).any(|j| codes::key_word(&lower, j))
                && !codes::names_a_hash(&lower)
        };
        if shaped(v)
            || right_after()
            || token_uuid()
            || key_hex()
            || (random_printable(v) && handed())
            || keyish()
            || short()
            || random_mixed(v)
            || (v.len() >= 12 && random_letters(v))
            || handed_over()
            || colon()
            || digits_only()
            || token_value()
            || super::looks::random_words(v, true, strong_says)
        {
            out.push(s..e);
        }
    }
}

#[cfg(test)]
#[path = "told_tests.rs"]
mod tests;
