//! What a password looks like, by its characters alone: the predicates the shape checks
//! ([`super::shapes`]) apply in their contexts — marked (`Q7w#Erty99`), random
//! (`0JSHlBQBvyGHNSl`, `Wga5WXFRsb=uaNXY_`), a word with digits (`Harvest4096`), and the
//! looser shapes a value is held to where its context already says "password".

use super::letters::{foreign, random_letters, typed_id, wordy};
use super::value::entropy;

/// Symbols that mark a password (besides letters and digits).
pub(super) const MARK: &[u8] = b"!#%&*?^~$";

pub(super) fn upper(p: &[u8]) -> bool {
    p.iter().any(u8::is_ascii_uppercase)
}
pub(super) fn lower(p: &[u8]) -> bool {
    p.iter().any(u8::is_ascii_lowercase)
}
pub(super) fn digit(p: &[u8]) -> bool {
    p.iter().any(u8::is_ascii_digit)
}
pub(super) fn marked(p: &[u8]) -> bool {
    p.iter().any(|b| MARK.contains(b))
}

pub(super) fn shaped(p: &[u8]) -> bool {
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
pub(super) fn random_alnum(p: &[u8]) -> bool {
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
pub(super) fn word_with_digits(p: &[u8]) -> bool {
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
        && p[letters + digits..]
            .iter()
            .all(|b| MARK.contains(b) || *b == b'@')
}

/// A word with digits people pick as a password rather than a version: four or more
/// digits, or a mark (`Lagoon3648`, `Otter12!`; not `Office365`).
pub(super) fn strong(p: &[u8]) -> bool {
    marked(p) || p.iter().filter(|b| b.is_ascii_digit()).count() >= 4
}

/// The looser shape a value is held to where the context says "password" (after `-p`,
/// piped into a command): 6–64 characters without `/ . \ : @` or spaces, not starting
/// with `$` or `-`, with a letter, a digit or symbol, and an upper-case letter or symbol
/// (`Harbor249`, `QnKx!fy*pwh`); or random letters (`WmegRnxRlfrjzNWu`). Lower-case names
/// (`-p warroom-memory`), numbers and ports (`-p 2222`, `-p 8080:80`) are not.
pub(super) fn loose(v: &[u8]) -> bool {
    let letter = v.iter().any(u8::is_ascii_alphabetic);
    (6..=64).contains(&v.len())
        && v[0] != b'$'
        && v[0] != b'-'
        && !v
            .iter()
            .any(|b| b"/.\\:@|<>".contains(b) || b.is_ascii_whitespace())
        && ((letter && (digit(v) || marked(v)) && (upper(v) || marked(v))) || random_letters(v))
}

/// Characters a generated password may hold besides letters and digits.
pub(super) fn password_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#%&*?^~@+=-_.$".contains(&b)
}

/// A hex literal (`0x3AA5C34371567BD2`): a number, a GPG key id, an address.
pub(super) fn hex_literal(v: &[u8]) -> bool {
    v.len() > 2 && v.starts_with(b"0x") && v[2..].iter().all(u8::is_ascii_hexdigit)
}

/// Not an address: no `@` followed by a dotted host whose last label is two or more
/// letters in one case (`ops2@acme.io`), nor by dotted numbers (`ubuntu@10.0.4.7`,
/// `typescript@5.4`); `kgG@a.5fZ1` and `rlh@l.BRfq` are a password's symbols.
pub(super) fn not_email(v: &[u8]) -> bool {
    v.iter().position(|&b| b == b'@').is_none_or(|at| {
        let host = &v[at + 1..];
        let end = host
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || b"-.".contains(b)))
            .unwrap_or(host.len());
        let labels: Vec<&[u8]> = host[..end].split(|&b| b == b'.').collect();
        let tld = labels.last().copied().unwrap_or_default();
        let numbers = labels
            .iter()
            .all(|l| !l.is_empty() && l.iter().all(u8::is_ascii_digit));
        // A top-level domain is in one case (`io`, `COM`; not `BRfq`).
        let one_case =
            tld.iter().all(u8::is_ascii_lowercase) || tld.iter().all(u8::is_ascii_uppercase);
        !(labels.len() >= 2
            && ((tld.len() >= 2 && tld.iter().all(u8::is_ascii_alphabetic) && one_case) || numbers))
    })
}

/// A value a sentence hands over as a password (`… password is X`, `pw X`, `X as the
/// password`): 8–64 password characters, not a flag, with both cases, a digit and a
/// second digit or a mark, or two digits and a symbol, or random letters. `Argon2id`, `required`,
/// `ER_ACCESS_DENIED`, `--dry-run` are not.
pub(super) fn given(v: &[u8]) -> bool {
    let marks = v.iter().filter(|b| b"!#%&*?^~@+=$".contains(b)).count();
    let mark = marks > 0;
    let digits = v.iter().filter(|b| b.is_ascii_digit()).count();
    (8..=64).contains(&v.len())
        && v.iter().all(|&b| password_char(b))
        && not_email(v)
        && v[0] != b'-'
        && !hex_literal(v)
        && v.iter().any(u8::is_ascii_alphabetic)
        && ((upper(v) && lower(v) && digits > 0 && (digits >= 2 || mark))
            || (upper(v) && lower(v) && v.len() >= 10 && marks >= 2)
            // Not an algorithm's name (`scram-sha-256`, `aes-256-gcm`): a mark, not a dash.
            || (digits >= 2 && mark)
            || random_letters(v))
}

/// Random printable characters, brackets and quotes among them (`6Mheeei6OW<o<p[b`, a
/// device's local key): 12–64 with both cases, a digit and two or more symbols, near the
/// most entropy its length allows, no spaces, not a URL, an address or a call (`f(x)`).
pub(super) fn random_printable(v: &[u8]) -> bool {
    let symbols = v.iter().filter(|b| !b.is_ascii_alphanumeric()).count();
    let call = v
        .windows(2)
        .any(|w| matches!(w, b"()" | b"[]" | b"{}" | b"<>"))
        || v.ends_with(b")")
        || v.ends_with(b">");
    (12..=64).contains(&v.len())
        && v.iter().all(u8::is_ascii_graphic)
        && upper(v)
        && lower(v)
        && digit(v)
        && symbols >= 2
        && !call
        && !v.windows(3).any(|w| w == b"://")
        && not_email(v)
        && entropy(v) >= (v.len() as f64).log2().min(4.0) - 0.7
}

/// A random-looking string of 10–64 password characters: both cases and a digit, not
/// words, near the most entropy its length allows, not an address, not an id with a
/// lower-case prefix (`cus_NffrFeUfNV2Hib`).
pub(super) fn random_mixed(v: &[u8]) -> bool {
    let prefixed = v
        .iter()
        .position(|&b| b == b'_')
        .is_some_and(|u| (2..=10).contains(&u) && v[..u].iter().all(u8::is_ascii_lowercase));
    (10..=64).contains(&v.len())
        && v.iter().all(|&b| password_char(b))
        && !matches!(v[0], b'-' | b'.')
        && upper(v)
        && lower(v)
        && digit(v)
        && not_email(v)
        && !prefixed
        && !hex_literal(v)
        && !wordy(v)
        && entropy(v) >= (v.len() as f64).log2().min(4.0) - 0.7
}

/// A random string with no context at all (`RsYpr6zgECkiQVPCLO2mixX`, `Fsx_dLX+USJCJartx1`
/// in a sentence): [`random_mixed`], 14–64 characters with three or more letters of each
/// case and a digit, and not an id whose type is spelt before it — in lower case and joined by
/// `-` or `_` (`mem-01M8…`, `us-east-1_Ab12…`), or an Airtable type
/// (`recK2p9QmZx7TtW4a`, [`typed_id`]) — nor a hex id with an upper-case prefix
/// (`ACddeeab5d80…`).
pub(super) fn random_anywhere(v: &[u8]) -> bool {
    let count = |f: fn(&u8) -> bool| v.iter().filter(|b| f(b)).count();
    let prefix = v.iter().take_while(|b| b.is_ascii_lowercase()).count();
    // …or in capitals before `_` (`SV_3xK9mQ2p…`, a Qualtrics survey).
    let caps = v.iter().take_while(|b| b.is_ascii_uppercase()).count();
    let joined = (prefix >= 1 && matches!(v.get(prefix), Some(b'-' | b'_')))
        || ((1..=4).contains(&caps) && v.get(caps) == Some(&b'_'));
    // Shorter random strings are ids as often as passwords (`dQw4w9WgXcQ`, a video;
    // `aZ3kP9qLmX2`, a dashboard): they count only where a sentence says password.
    (14..=64).contains(&v.len())
        && count(u8::is_ascii_uppercase) >= 3
        && count(u8::is_ascii_lowercase) >= 3
        && !joined
        && !typed_id(v)
        && !named_parts(v)
        && random_mixed(v)
}

/// A name of words and a code joined by `-` (`Acme-Shop-PRD-4f1a2b3c`, an eBay app id):
/// three or more parts, each a word (`Acme`, `shop`), an acronym of 2–5 capitals (`PRD`)
/// or, once, hex digits or a number.
pub(super) fn named_parts(v: &[u8]) -> bool {
    let parts: Vec<&[u8]> = v.split(|&b| b == b'-').collect();
    let word = |p: &[u8]| {
        p.len() >= 2 && p[0].is_ascii_alphabetic() && p[1..].iter().all(u8::is_ascii_lowercase)
    };
    let acronym = |p: &[u8]| (2..=5).contains(&p.len()) && p.iter().all(u8::is_ascii_uppercase);
    let code = |p: &[u8]| !p.is_empty() && p.iter().all(u8::is_ascii_hexdigit);
    parts.len() >= 3
        && parts.iter().all(|p| word(p) || acronym(p) || code(p))
        && parts.iter().filter(|p| !word(p) && !acronym(p)).count() <= 1
}

/// Shapes a password has even with no word around it, besides [`random_anywhere`]:
/// random letters of 14 or more with three of each case, switching case often
/// (`yiCXXYShWjlXlGTYI`; not `PasswordStrengthMeter`); both
/// cases with two or more symbols, never two side by side, starting with a letter or
/// digit (`bt_VrNAaJ%WS&`; not `**Bold**`, `React&&Vue`, nor percent-encoding); a
/// passphrase ending in two or more digits (`magnet_carpet_ladder30`). Lower-case letters
/// with digits are not among them: random ids are written that way (`fe2k9xq1ls3ggb`).
pub(super) fn random_other(v: &[u8]) -> bool {
    let count = |f: fn(&u8) -> bool| v.iter().filter(|b| f(b)).count();
    // Random letters switch case about every other letter; names made of words
    // (`PasswordStrengthMeter`) once or twice a word.
    let switches = v
        .windows(2)
        .filter(|w| w[0].is_ascii_uppercase() != w[1].is_ascii_uppercase())
        .count();
    let letters = v.len() >= 14
        && random_letters(v)
        && !pascal(v)
        && count(u8::is_ascii_uppercase) >= 3
        && count(u8::is_ascii_lowercase) >= 3
        && switches * 3 >= v.len() - 1;
    let mark = |b: &u8| b"!#%&*?^~@+=$".contains(b);
    // Percent-encoding (`%2F`, `%e2`) keeps one case; `%Ee` is a password's symbol.
    let percent = v.windows(3).any(|w| {
        w[0] == b'%'
            && w[1].is_ascii_hexdigit()
            && w[2].is_ascii_hexdigit()
            && !(w[1].is_ascii_uppercase() && w[2].is_ascii_lowercase())
            && !(w[1].is_ascii_lowercase() && w[2].is_ascii_uppercase())
    });
    let symbols = (10..=64).contains(&v.len())
        && v[0].is_ascii_alphanumeric()
        && v.iter().all(|&b| password_char(b))
        && upper(v)
        && lower(v)
        && v.iter().filter(|b| mark(b)).count() >= 2
        && !v.windows(2).any(|w| mark(&w[0]) && mark(&w[1]))
        && count(u8::is_ascii_alphabetic) >= 6
        && !percent
        // Base64 (`PGh0bWw+PGJvZHk+…`): its only symbols are `+ / =`.
        && v.iter().any(|b| mark(b) && !matches!(b, b'+' | b'='))
        && not_email(v);
    let trailing = v.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    letters || symbols || (diceware(v) && trailing >= 2)
}

/// A name in Pascal case (`MaxNumOfVmCpus`, `GetUserById`): a capital, then every capital
/// followed by one or more lower-case letters, in three or more parts, all but one with a
/// vowel. Random letters seldom keep that rhythm.
fn pascal(v: &[u8]) -> bool {
    if !v.first().is_some_and(u8::is_ascii_uppercase) || !v.iter().all(u8::is_ascii_alphabetic) {
        return false;
    }
    let chunks: Vec<&[u8]> = v.chunk_by(|_, b| !b.is_ascii_uppercase()).collect();
    let vowel = |c: &u8| b"aeiouy".contains(&c.to_ascii_lowercase());
    chunks.len() >= 3
        && chunks.iter().all(|c| c.len() >= 2)
        && chunks.iter().filter(|c| !c.iter().any(vowel)).count() <= 1
}

/// A passphrase of three or more lower-case words joined by one of `- . _`, with optional
/// digits (`orbit-candle-river-maple`, `sugar.orbit.tiger86`), 14 characters or more.
pub(super) fn diceware(v: &[u8]) -> bool {
    let body = &v[..v.len() - v.iter().rev().take_while(|b| b.is_ascii_digit()).count()];
    let Some(&sep) = body.iter().find(|b| b"-._".contains(b)) else {
        return false;
    };
    let parts: Vec<&[u8]> = body.split(|&b| b == sep).collect();
    // A host name is dotted words too (`registry.gitlab.com`).
    const HOST_ENDS: [&[u8]; 16] = [
        b"com",
        b"net",
        b"org",
        b"io",
        b"dev",
        b"app",
        b"cloud",
        b"internal",
        b"local",
        b"lan",
        b"svc",
        b"cluster",
        b"edu",
        b"gov",
        b"info",
        b"biz",
    ];
    // …and so is a file's name (`secrets.sops.yaml`).
    const FILE_ENDS: [&[u8]; 14] = [
        b"yaml", b"yml", b"json", b"toml", b"txt", b"conf", b"env", b"ini", b"xml", b"log", b"sql",
        b"csv", b"pem", b"enc",
    ];
    let host = sep == b'.'
        && parts
            .last()
            .is_some_and(|l| HOST_ENDS.contains(l) || FILE_ENDS.contains(l));
    // …and a command's verb and object are dashed words (`get-access-token`,
    // `set-initial-password`): a passphrase neither commands nor names itself.
    const COMMAND_WORDS: [&[u8]; 16] = [
        b"get",
        b"set",
        b"list",
        b"add",
        b"create",
        b"delete",
        b"update",
        b"show",
        b"reset",
        b"token",
        b"password",
        b"passwd",
        b"secret",
        b"key",
        b"access",
        b"auth",
    ];
    let command = parts.iter().any(|p| COMMAND_WORDS.contains(p));
    v.len() >= 14
        && parts.len() >= 3
        && !host
        && !command
        && parts
            .iter()
            .all(|p| p.len() >= 3 && p.iter().all(u8::is_ascii_lowercase))
}

/// Words a team names its services, branches, settings and jobs with: a dashed or dotted
/// run of lower-case words holding one is a name (`acme-prod-backups`,
/// `sync-asset-locations`, `mistral-large-latest`), not a passphrase.
const NAMING_WORDS: &str = "\
    api app apps web www svc service services server client worker workers job \
    jobs cron queue cache data store storage bucket backup backups logs prod \
    production staging stage dev test tests demo sandbox preview canary main \
    master release feature fix hotfix bug chore docs readme config settings conf \
    env vault login user users admin account role policy group team project shop \
    order orders payment payments billing invoice checkout cart product products \
    catalog search index ingest pipeline stream events event topic broker gateway \
    proxy ingress cluster node nodes deploy build runner image registry repo chart \
    state network zone region east west north south central internal external \
    public private legacy latest stable next beta alpha frontend backend mobile \
    core common shared utils tools plugin agent monitor metrics alerts dashboard \
    panel report reports export import sync migrate migration schema seed mock \
    handler model template static assets media upload files file temp cleanup \
    remove rename refactor enable disable check fetch send large small default \
    type mode level active directory";

/// A passphrase of random words where nothing names it: a [`diceware`] passphrase whose
/// words are no team's naming words, none repeated, at most one of three letters (a
/// compound's `of`/`the`/`and` are shorter). Joined by dashes, four words or more where
/// nothing names a secret (three dashed words are a slug as often: `work-life-balance`),
/// three near a word naming one (`secret`); by dots (a setting's joiner:
/// `spring.datasource.hikari.maximum`), only near a word saying password; by underscores
/// (an identifier's: `ldap_default_authtok_type`), never — [`super::told`] takes those
/// only where a sentence hands them over.
pub(super) fn random_words(v: &[u8], secret_near: bool, password_near: bool) -> bool {
    if !diceware(v) {
        return false;
    }
    let body = &v[..v.len() - v.iter().rev().take_while(|b| b.is_ascii_digit()).count()];
    let parts: Vec<&[u8]> = body.split(|b| b"-._".contains(b)).collect();
    let joined = match body[parts[0].len()] {
        b'-' => parts.len() >= 4 || secret_near,
        b'.' => password_near,
        _ => false,
    };
    let distinct = parts
        .iter()
        .enumerate()
        .all(|(i, p)| !parts[..i].contains(p));
    joined
        && distinct
        && parts.iter().filter(|p| p.len() == 3).count() <= 1
        && !NAMING_WORDS
            .split_ascii_whitespace()
            .any(|w| parts.contains(&w.as_bytes()))
}

/// Lower-case letters and digits mixed (`d9wvcu8so9`, `mqb0yyyhembq`): 8–64 characters,
/// a digit and three or more letters, digits not only at the end (`release2024` is a word
/// and a number).
pub(super) fn lower_random(v: &[u8]) -> bool {
    let digits = v.iter().filter(|b| b.is_ascii_digit()).count();
    let trailing = v.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    (8..=64).contains(&v.len())
        && v.iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && digits >= 1
        && v.len() - digits >= 3
        && (trailing < digits || foreign(v))
}

/// What a value right after a flag or word naming a password may look like: [`given`],
/// or both cases with a digit or any symbol (`OE.CZ#xbsTVWz`, `Pass_word9`) — the flag
/// already says what it is.
pub(super) fn given_after_flag(v: &[u8]) -> bool {
    given(v)
        || ((8..=64).contains(&v.len())
            && v.iter().all(|&b| password_char(b))
            && not_email(v)
            && v[0] != b'-'
            && upper(v)
            && lower(v)
            && (digit(v) || v.iter().any(|b| !b.is_ascii_alphanumeric())))
}
