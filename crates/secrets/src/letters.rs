//! What letters say about a value (used by every step that judges a value's shape):
//! whether it is made of words (`wordy`: `HTTPServer2ConnectionPool`), whether its letter
//! pairs read as English (`englishness`, `foreign`: `efguyaujgwoqyzfx` does not), random
//! letters of both cases or lower case, and ids whose type is spelt before them
//! (`typed_id`: Airtable's `recK2p9QmZx7TtW4a`). Kept apart from [`super::value`], which
//! judges what a value is (a placeholder, a reference, a public key, a hash).

/// Eight or more letters, at least two upper and two lower case, not made of words.
pub(super) fn random_letters(v: &[u8]) -> bool {
    v.len() >= 8
        && v.iter().all(u8::is_ascii_alphabetic)
        && v.iter().filter(|c| c.is_ascii_uppercase()).count() >= 2
        && v.iter().filter(|c| c.is_ascii_lowercase()).count() >= 2
        && !wordy(v)
}

/// The share of `v`'s adjacent letter pairs that are common in English (`th`, `er`,
/// `an`…): about 0.8 for words and names, about 0.3 for random letters
/// (`efguyaujgwoqyzfx`); 1.0 when there is no pair.
pub(super) fn englishness(v: &[u8]) -> f64 {
    const COMMON: &str = "th he in er an re on at en nd ti es or te of ed is it al ar st to nt ng \
        se ha as ou io le ve co me de hi ri ro ic ne ea ra ce li ch ll be ma si om ur ca el ta \
        la ns di fo ho pe ec pr no ct us ac ot il tr ly nc et ut ss so rs un lo wa ge ie wh ee \
        wi em ad ol rt po we na ul ni ts mo ow pa im mi ai sh ir su id os iv ia am fi ci vi pl \
        ig tu ev ld ry mp fe bl ab gh ty op wo sa ay ex ke fr oo av ag if ap gr od bo sp rd do \
        uc bu ei ov by rm ep tt oc fa ef cu rn sc gi da yo cr cl du ga qu ue ff ba ey ls va um \
        pp ua up lu go ht ru ug ds lt pi rc rr eg au ck ew mu br bi pt ak pu ui rg ib tl ny ki \
        rk ys ob mm fu ph og ms ye ud mb ip ub oi rl gu dr hr cc tw ft wn nu sk ks nk kn";
    let pairs: Vec<[u8; 2]> = v
        .windows(2)
        .filter(|w| w[0].is_ascii_alphabetic() && w[1].is_ascii_alphabetic())
        .map(|w| [w[0].to_ascii_lowercase(), w[1].to_ascii_lowercase()])
        .collect();
    if pairs.is_empty() {
        return 1.0;
    }
    // A 26×26 table, built once: a pair is one lookup.
    static TABLE: std::sync::OnceLock<[[bool; 26]; 26]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [[false; 26]; 26];
        for c in COMMON.split_ascii_whitespace() {
            let c = c.as_bytes();
            t[usize::from(c[0] - b'a')][usize::from(c[1] - b'a')] = true;
        }
        t
    });
    let common = pairs
        .iter()
        .filter(|p| table[usize::from(p[0] - b'a')][usize::from(p[1] - b'a')])
        .count();
    common as f64 / pairs.len() as f64
}

/// Lower-case random letters (`efguyaujgwoqyzfx`, a generated app password): 12–64
/// letters, fewer than two in five of their pairs common in English.
pub(super) fn random_lower(v: &[u8]) -> bool {
    (12..=64).contains(&v.len()) && v.iter().all(u8::is_ascii_lowercase) && englishness(v) < 0.4
}

/// Letters whose pairs are not English (`owvdy` in `vw91q21owvdy`, `Uvxpeghu`): four or
/// more adjacent letter pairs, fewer than a third of them common. Random strings often
/// hold a run that [`wordy`]'s vowel test takes for a word; their pairs give them away.
pub(super) fn foreign(v: &[u8]) -> bool {
    let pairs = v
        .windows(2)
        .filter(|w| w[0].is_ascii_alphabetic() && w[1].is_ascii_alphabetic())
        .count();
    pairs >= 4 && englishness(v) < 0.34
}

/// An id whose type is spelt in three lower-case letters before 14 random ones, as
/// Airtable writes them (`recK2p9QmZx7TtW4a`, `appX1y2Z3a4B5c6D7`); a random password
/// that merely starts with three lower-case letters is not one.
pub(super) fn typed_id(v: &[u8]) -> bool {
    const TYPES: [&[u8]; 12] = [
        b"app", b"tbl", b"fld", b"viw", b"rec", b"sel", b"usr", b"wsp", b"att", b"ent", b"shr",
        b"wfl",
    ];
    v.len() == 17 && TYPES.iter().any(|t| v.starts_with(t))
}

/// An identifier made of words (`HTTPServer2ConnectionPoolManager`, `use_optimistic_…`):
/// most of its letters are in runs that look like words, where random text breaks into
/// short, vowel-less pieces.
pub(super) fn wordy(t: &[u8]) -> bool {
    let mut parts: Vec<&[u8]> = Vec::new();
    let mut start = 0;
    for i in 1..=t.len() {
        // Camel case splits before an upper-case letter after a lower-case one, and
        // before the last capital of an acronym that a word follows (`HTTP|Server`) —
        // not of a plural acronym (`Allowed|IPs`, `VMs`).
        let plural =
            t.get(i + 1) == Some(&b's') && t.get(i + 2).is_none_or(|c| !c.is_ascii_lowercase());
        let boundary = i == t.len()
            || !t[i].is_ascii_alphabetic()
            || !t[i - 1].is_ascii_alphabetic()
            || (t[i].is_ascii_uppercase() && t[i - 1].is_ascii_lowercase())
            || (t[i].is_ascii_uppercase()
                && t[i - 1].is_ascii_uppercase()
                && t.get(i + 1).is_some_and(u8::is_ascii_lowercase)
                && !plural);
        if boundary {
            parts.push(&t[start..i]);
            start = i;
        }
    }
    let vowel = |c: &u8| b"aeiouyAEIOUY".contains(c);
    // A word: Capitalised or lower case, or an upper-case acronym of up to 8 letters; with
    // a vowel and no run of more than 3 consonants.
    // …and, unless an acronym, with half or more of its letter pairs common in English
    // (`Reqq`, `Wuw` in `Reqq2WuwDY` pass the vowel test and are no words).
    let word = |p: &&[u8]| {
        let caps = p.strip_suffix(b"s").filter(|c| c.len() >= 2).unwrap_or(p);
        let acronym = caps.len() <= 8 && caps.iter().all(u8::is_ascii_uppercase);
        let cased =
            acronym || (p.iter().skip(1).all(u8::is_ascii_lowercase) && englishness(p) >= 0.5);
        p.len() >= 3
            && p.iter().all(u8::is_ascii_alphabetic)
            && cased
            && p.iter().any(vowel)
            && p.split(vowel).all(|run| run.len() <= 3)
    };
    let mut in_words: usize = parts.iter().filter(|p| word(p)).map(|p| p.len()).sum();
    // An acronym without a vowel (`TLS`, `SSL`, `DNS`, `XML`) is a word beside a long one
    // (`TLSConnect`, `DNSResolver`): a random string's capitals seldom stand before one.
    if parts.iter().any(|p| p.len() >= 5 && word(p)) {
        in_words += parts
            .iter()
            .filter(|p| (2..=5).contains(&p.len()) && p.iter().all(u8::is_ascii_uppercase))
            .filter(|p| !word(p))
            .map(|p| p.len())
            .sum::<usize>();
    }
    let letters = t.iter().filter(|c| c.is_ascii_alphabetic()).count();
    letters > 0 && in_words * 100 >= letters * 75
}

#[cfg(test)]
mod tests {
    use super::{englishness, foreign, random_lower, typed_id, wordy};

    #[test]
    fn words_read_as_english_and_random_letters_do_not() {
        for w in [
            "password",
            "checkout",
            "reindexing",
            "thunderbird",
            "configuration",
        ] {
            assert!(englishness(w.as_bytes()) >= 0.6, "{w}");
            assert!(!random_lower(w.as_bytes()), "{w}");
        }
        for r in ["efguyaujgwoqyzfx", "qzxvkjwpfmbtlrcd"] {
            assert!(random_lower(r.as_bytes()), "{r}");
        }
        // Random letters and digits whose runs look like words to a vowel test.
        for r in ["vw91q21owvdy", "llq15jj0fz4diqo", "MZsWDzTmUYiV"] {
            assert!(foreign(r.as_bytes()), "{r}");
        }
        for w in [
            "pgdata2024q4",
            "release2024",
            "iPhone15Pro",
            "k8s2node3",
            "utf8",
        ] {
            assert!(!foreign(w.as_bytes()), "{w}");
        }
    }

    #[test]
    fn an_airtable_id_is_typed_and_a_password_starting_in_lower_case_is_not() {
        assert!(typed_id(b"recK2p9QmZx7TtW4a") && typed_id(b"appX1y2Z3a4B5c6D7"));
        assert!(!typed_id(b"ffcLUjLkRJ3PDDVgP5Lc") && !typed_id(b"mrcXgGCJb@56e"));
    }

    #[test]
    fn an_acronym_is_part_of_a_name() {
        for w in [
            "AllowedIPs",
            "ListNICsForZone",
            "FetchAPIsNow",
            "GetURLsFromIndex",
            "TLSConnect",
            "DNSResolver",
        ] {
            assert!(wordy(w.as_bytes()), "{w}");
        }
        for r in ["MZsWDzTmUYiV", "QxVsTrPwKmZn"] {
            assert!(!wordy(r.as_bytes()), "{r}");
        }
    }
}
