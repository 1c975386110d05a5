//! One line read once for [`super::told`]: its words, lower-cased, which of them say a
//! password, what the sentence is about (a PIN, a code, a Wi-Fi network), and the named
//! predicates that judge a word of it as a value — how the sentence hands it over
//! ([`Sentence::handed`]) and what it must look like where it is handed over.

use std::ops::Range;

use super::codes::{self, bare};
use super::line::words;
use super::looks::{diceware, given, given_after_flag, lower_random, strong, word_with_digits};
use super::words::lists;

/// A word that says a password, a secret, a login or what a value opens (the lists'
/// `says_password`, `names_a_secret`), a setting's last part (`auth_pass`, `bind-pw`), a
/// camel-case setting ending in a key or token (`genieKey`, not `monkey` nor `PublicKey`),
/// a label (`vault:`), or a word ending in `pass` or `pw` (`requirepass`, `rootpw`).
pub(super) fn says_word(w: &str) -> bool {
    let bare = w.trim_matches(|c: char| !c.is_alphanumeric());
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
    let setting = alpha
        && bare.len() >= 6
        && bare.len() <= 24
        && !lists().not_secret_key_prefix.matches(bare)
        && ((bare.ends_with("key") && !lists().not_key.matches(bare)) || bare.ends_with("token"));
    lists().says_password.matches(w)
        || lists().names_a_secret.matches(bare)
        || matches!(w, "master:" | "vault:" | "unlock:")
        || (alpha && bare.ends_with("pass") && !lists().not_pass.matches(bare))
        || (alpha && bare.len() <= 12 && bare.ends_with("pw"))
        || setting
}

/// A word that says "password" itself (not only `key`, `token`, `pin`, `login`).
pub(super) fn says_password(w: &str) -> bool {
    let bare = w.trim_matches(|c: char| !c.is_alphanumeric());
    lists().says_password.matches(w)
        || (bare.bytes().all(|b| b.is_ascii_alphabetic())
            && (bare.ends_with("pw")
                || (bare.ends_with("pass") && !lists().not_pass.matches(bare))))
}

/// A line's words and what the sentence says, computed once.
pub(super) struct Sentence<'l> {
    pub(super) line: &'l [u8],
    pub(super) ws: Vec<Range<usize>>,
    pub(super) lower: Vec<String>,
    /// Word k says a password, a secret, a login, a lock or a code.
    pub(super) is_says: Vec<bool>,
    /// Word k is within eight words of one that says so.
    pub(super) near: Vec<bool>,
    /// For word k, the index just after the last word before it that says so.
    pub(super) last_says: Vec<usize>,
    /// A Wi-Fi network is named: a passphrase of random words needs no other word.
    pub(super) wifi: bool,
    /// A code in the wide sense (`the installer code is 5924`).
    pub(super) loose_code: bool,
    /// A PIN, a door's code, a lock that opens: digits alone may be the secret.
    pub(super) pin: bool,
    /// A word says "password" itself.
    pub(super) strong_says: bool,
    /// The sentence is about a code or a key, not a serial number.
    pub(super) code_said: bool,
}

/// A word of the sentence judged as a value: its index, its span, its bytes.
pub(super) struct Value<'l> {
    pub(super) k: usize,
    pub(super) e: usize,
    pub(super) v: &'l [u8],
    /// A device asks for it (`the installer menu asks for 5924`).
    pub(super) asked_here: bool,
    /// Four to eight digits ending their clause.
    pub(super) code_digits: bool,
}

impl<'l> Sentence<'l> {
    /// The sentence of `line`, or None if nothing in it says a value may be a secret:
    /// no word says so, no device asks for digits, no Wi-Fi network is named.
    pub(super) fn read(line: &'l [u8]) -> Option<Self> {
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
        let asked = (0..lower.len()).any(|k| codes::asked_for(&lower, k));
        let wifi = lower.iter().any(|w| {
            matches!(
                w.trim_matches(|c: char| !c.is_alphanumeric()),
                "wi-fi" | "wifi" | "wlan"
            )
        });
        if !is_says.contains(&true) && !asked && !wifi {
            return None;
        }
        let loose_code = (0..lower.len()).any(|k| codes::code_word(&lower, k));
        let pin = codes::pin_sentence(&lower);
        let strong_says = lower.iter().any(|w| says_password(w));
        let code_said = strong_says
            || lower.iter().any(|w| {
                matches!(
                    w.trim_matches(|c: char| !c.is_alphanumeric()),
                    "code" | "codes" | "key" | "pin" | "voucher"
                )
            });
        // Linear: a line of 2,000 such words must not cost 2,000².
        let mut near = vec![false; ws.len()];
        for (k, _) in is_says.iter().enumerate().filter(|(_, s)| **s) {
            for n in near.iter_mut().take(k + 9).skip(k.saturating_sub(8)) {
                *n = true;
            }
        }
        let mut last_says = vec![0; ws.len()];
        for k in 1..ws.len() {
            last_says[k] = if is_says[k - 1] { k } else { last_says[k - 1] };
        }
        Some(Sentence {
            line,
            ws,
            lower,
            is_says,
            near,
            last_says,
            wifi,
            loose_code,
            pin,
            strong_says,
            code_said,
        })
    }

    fn prev(&self, k: usize) -> Option<&str> {
        k.checked_sub(1).map(|p| self.lower[p].as_str())
    }

    /// The word just before k says so.
    fn after_says(&self, k: usize) -> bool {
        k.checked_sub(1).is_some_and(|p| self.is_says[p])
    }

    /// The word just before k says "password" itself.
    fn after_password(&self, k: usize) -> bool {
        k.checked_sub(1)
            .is_some_and(|p| says_password(&self.lower[p]))
    }

    /// The word just before k is an account (`admin Ferry7731`).
    fn after_account(&self, k: usize) -> bool {
        k.checked_sub(1)
            .is_some_and(|p| super::pairs::after_account(&self.line[self.ws[p].clone()]))
    }

    /// The sentence hands word k over: right after the word that says so, after
    /// `is`/`was`/`:`/`=`/`with`/`use`…, after an account, in a bracketed pair, after a
    /// flag that follows the word (`rootpw --plaintext X`), or before `as`/`is`.
    pub(super) fn handed(&self, x: &Value) -> bool {
        let k = x.k;
        let prev = self.prev(k);
        let next = self.lower.get(k + 1).map(String::as_str);
        let flag = prev
            .is_some_and(|p| (p.starts_with('-') || p.starts_with('/')) && p.len() <= 12)
            && (k.saturating_sub(5)..k - 1).any(|j| says_password(&self.lower[j]));
        let tuple = prev.is_some_and(|p| p.starts_with('(') && p.ends_with(','))
            && self.line.get(x.e) == Some(&b')');
        self.after_says(k)
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
            || self.after_account(k)
            || (prev == Some("to") && strong(x.v))
            || prev.is_some_and(|p| p.ends_with(':') || p.ends_with('='))
            || matches!(next, Some("as" | "is" | "<-" | "←" | "unlocks" | "opens"))
    }

    /// A word with digits, a passphrase, lower-case letters with digits, random capitals
    /// or lower-case letters, handed over. Lower-case letters with one digit are also
    /// names (`argon2id`): only right after the word that says so, or after
    /// `is`/`was`/`=`/`to`.
    pub(super) fn handed_over(&self, x: &Value) -> bool {
        let (k, v) = (x.k, x.v);
        let prev = self.prev(k);
        let digits = v.iter().filter(|b| b.is_ascii_digit()).count();
        let lower_ok = lower_random(v)
            && (self.after_says(k)
                || self.after_account(k)
                || matches!(prev, Some("is" | "was" | "=" | "/" | "to"))
                || digits >= 2
                || super::letters::foreign(v));
        (word_with_digits(v)
            || given(v)
            || diceware(v)
            || lower_ok
            || super::bare::random_caps(v)
            || super::bare::lower_letters(v))
            && (self.handed(x)
                || (prev == Some("to")
                    && (strong(v) || diceware(v) || (lower_random(v) && digits >= 2))))
    }

    /// Symbols and both cases, handed over (`Password for the archive: qTR_&mWzKv`), or
    /// both cases with one digit and no word in them after a label that says password
    /// (`TeamViewer password for the kiosk: e2WEJAwc`; not `Argon2id`).
    pub(super) fn colon(&self, x: &Value) -> bool {
        let after_label = self.strong_says
            && x.k
                .checked_sub(1)
                .is_some_and(|p| self.lower[p].ends_with(':') || self.is_says[p]);
        (super::pairs::after_colon(x.v) && (after_label || self.handed(x)))
            || (after_label
                && given_after_flag(x.v)
                && !super::letters::wordy(x.v)
                && !super::bare::long_word(x.v))
    }

    /// Digits as a code: handed over in a sentence about a code, asked for, or what
    /// opens with them (`the old iPad opens with 121869`); in a PIN sentence also in
    /// groups (`9217-7462`, a 2FA backup code).
    pub(super) fn digits_only(&self, x: &Value) -> bool {
        let (k, v) = (x.k, x.v);
        let digits = v.iter().filter(|b| b.is_ascii_digit()).count();
        let opens_with = k >= 2
            && self.lower[k - 1] == "with"
            && matches!(
                bare(&self.lower[k - 2]).as_str(),
                "opens" | "unlocks" | "opened" | "unlocked"
            );
        if ((self.loose_code && self.handed(x)) || x.asked_here || opens_with) && x.code_digits {
            return true;
        }
        self.pin
            && self.handed(x)
            && v.len() >= 4
            && v[0].is_ascii_alphanumeric()
            && v.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-')
            && digits >= 4
            && (!v.contains(&b'-') || digits >= 8)
    }

    /// The word before k names a token, a key or a secret.
    fn token_word(&self, k: usize) -> bool {
        k.checked_sub(1).is_some_and(|p| {
            self.is_says[p]
                && matches!(
                    bare(&self.lower[p]).rsplit(['_', '-', '.']).next(),
                    Some("token" | "key" | "apikey" | "secret")
                )
        })
    }

    /// Right after a word naming a token, a key or a secret: sixteen digits or more
    /// (TeamCity's super user token), or a typed token (`tk_1zbx…`, ntfy's) whose body is
    /// random or a UUID (`wbhsec_…`, Persona's; `papi-…`, Personio's).
    pub(super) fn token_value(&self, x: &Value) -> bool {
        let v = x.v;
        let typed = v.iter().take_while(|b| b.is_ascii_lowercase()).count();
        let sep = v.get(typed).copied();
        let body = if (2..=10).contains(&typed)
            && (sep == Some(b'_') || (sep == Some(b'-') && super::command::uuid(&v[typed + 1..])))
        {
            &v[typed + 1..]
        } else {
            &[][..]
        };
        self.token_word(x.k)
            && ((v.len() >= 16 && v.iter().all(u8::is_ascii_digit))
                || super::command::uuid(body)
                || (body.len() >= 20
                    && body.iter().all(u8::is_ascii_alphanumeric)
                    && body.iter().filter(|b| b.is_ascii_digit()).count() >= 2
                    && !super::letters::wordy(body)))
    }

    /// A hex key (also in groups: a Bunny storage password), a TOTP seed, random
    /// lower-case letters (an app password), a licence key in groups
    /// (`3G940-3SNRV-QJ5KG`) or capitals and digits naming a code, handed over.
    pub(super) fn keyish(&self, x: &Value) -> bool {
        let (k, v) = (x.k, x.v);
        let hex = v.iter().filter(|b| b.is_ascii_hexdigit()).count() >= 32
            && v.iter().all(|b| b.is_ascii_hexdigit() || *b == b'-')
            && v[0] != b'-'
            && v[v.len() - 1] != b'-'
            && v.iter().any(u8::is_ascii_digit)
            && v.iter().any(u8::is_ascii_alphabetic);
        // A hex string after a flag is an id as often (`--forget KEYGRIP`).
        let prev = self.prev(k);
        let said = self.after_says(k)
            || matches!(prev, Some("is" | "was" | "=" | "to"))
            || prev.is_some_and(|p| p.ends_with(':'));
        let base32 = v.len() >= 16
            && v.iter()
                .all(|b| b.is_ascii_uppercase() || (b'2'..=b'7').contains(b))
            && v.iter().filter(|b| b.is_ascii_digit()).count() >= 2;
        ((hex && said)
            || base32
            || super::letters::random_lower(v)
            || codes::licence_key(v)
            || codes::app_password(v)
            || (self.code_said && codes::upper_code(v)))
            && self.handed(x)
    }

    /// A short password right after the word (`password 38ilf3`): six or seven letters
    /// and digits with no word in them (`argon2` has one).
    pub(super) fn short(&self, x: &Value) -> bool {
        let v = x.v;
        (6..=7).contains(&v.len())
            && self.after_password(x.k)
            && v.iter().all(u8::is_ascii_alphanumeric)
            && v.iter().any(u8::is_ascii_digit)
            && v.iter().filter(|b| b.is_ascii_alphabetic()).count() >= 2
            && !super::bare::long_word(v)
    }

    /// Right after the word that says password, both cases with a digit or a symbol
    /// (`server password 4toTReSRtaSpzpea`), not a name made of words.
    pub(super) fn right_after(&self, x: &Value) -> bool {
        self.after_password(x.k) && given_after_flag(x.v) && !super::letters::wordy(x.v)
    }

    /// A UUID right after a word naming a token or secret, or its `Secret ID` (Consul's
    /// and Nomad's tokens are UUIDs), or handed over in a sentence that says password
    /// (`admin.password holds 0c1d…`, Nexus's first admin password).
    pub(super) fn token_uuid(&self, x: &Value) -> bool {
        let k = x.k;
        super::command::uuid(x.v)
            && (self.after_says(k)
                || (self.strong_says && self.handed(x))
                || (k >= 2
                    && bare(&self.lower[k - 1]) == "id"
                    && bare(&self.lower[k - 2]) == "secret")
                || (self.handed(x)
                    && (k.saturating_sub(3)..k).any(|j| codes::key_word(&self.lower, j))))
    }

    /// 32 hex digits or more up to eight words after a word naming a token or an API key
    /// (`API token (full access) 40cf…`), also after its type and owner (`agent token
    /// agent:acme:30a8…`, Dagster's), where the sentence names no hash or id.
    pub(super) fn key_hex(&self, x: &Value) -> bool {
        let v = x.v;
        let hex = v.rsplit(|&b| b == b':').next().unwrap_or(v);
        let typed = &v[..v.len() - hex.len()];
        hex.len() >= 32
            && hex.iter().all(u8::is_ascii_hexdigit)
            && hex.iter().any(u8::is_ascii_digit)
            && hex.iter().any(u8::is_ascii_alphabetic)
            && typed
                .iter()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b':')
            && (x.k.saturating_sub(8)..x.k).any(|j| codes::key_word(&self.lower, j))
            && !codes::names_a_hash(&self.lower)
    }
}
