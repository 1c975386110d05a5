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

use super::codes;
use std::ops::Range;

use super::letters::random_letters;
use super::looks::{random_mixed, random_printable, shaped};
use super::sentence::{Sentence, Value};

/// Findings in a sentence that names a password.
pub(super) fn told(line: &[u8], out: &mut Vec<Range<usize>>) {
    let Some(st) = Sentence::read(line) else {
        return;
    };
    let (ws, lower, is_says) = (&st.ws, &st.lower, &st.is_says);
    codes::recovery_phrase(line, ws, lower, out);
    let ids = super::bare::id_words(lower);
    for (k, w) in ws.iter().enumerate() {
        if is_says[k] {
            continue; // the word that says "password" is the subject, not the value
        }
        let asked_here = codes::asked_for(lower, k);
        if !st.near[k] && !asked_here && !st.wifi {
            continue;
        }
        // `dashboard uid: aXk29Lm3Qz`: an id — unless a word saying password comes after
        // the id's noun (`the demo tenant … with passcode X`).
        let from = st.last_says[k];
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
        let x = Value {
            k,
            e,
            v,
            asked_here,
            code_digits: (4..=8).contains(&v.len())
                && v.iter().all(u8::is_ascii_digit)
                && codes::clause_end(line, e),
        };
        if !st.near[k] {
            // …not the network's name (`the Wi-Fi SSID is blue-harbor-lamp`).
            let named = lower[k.saturating_sub(3)..k].iter().any(|w| {
                matches!(
                    w.trim_matches(|c: char| !c.is_alphanumeric()),
                    "ssid" | "name" | "named" | "called" | "network"
                )
            });
            if (asked_here && x.code_digits)
                || (st.wifi && !named && super::looks::random_words(v, true, false))
            {
                out.push(s..e);
            }
            continue;
        }
        if shaped(v)
            || st.right_after(&x)
            || st.token_uuid(&x)
            || st.key_hex(&x)
            || (random_printable(v) && st.handed(&x))
            || st.keyish(&x)
            || st.short(&x)
            || random_mixed(v)
            || (v.len() >= 12 && random_letters(v))
            || st.handed_over(&x)
            || st.colon(&x)
            || st.digits_only(&x)
            || st.token_value(&x)
            || super::looks::random_words(v, true, st.strong_says)
        {
            out.push(s..e);
        }
    }
}

#[cfg(test)]
#[path = "told_tests.rs"]
mod tests;
