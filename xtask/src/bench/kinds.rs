//! Password kinds in sentences (part of `bench secrets`): each kind of password the
//! held-out sets draw — symbols, a word with digits, random letters and digits, a
//! diceware passphrase, lower-case letters and digits — put in sentences that name it and
//! sentences that name nothing, and the share the scanner keeps off the disk. A held-out
//! set says how the scanner does on new tools and phrasings; this says which *shapes* it
//! misses whatever the tool, which is what a guard that costs a fixed share of every set
//! looks like. Seeded: the same passwords every run.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One kind in one sentence.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct KindRate {
    /// The password kind (`symbols`, `word+digits`, `random`, `passphrase`, `lower+digits`).
    pub kind: String,
    /// The sentence, with `X` for the password.
    pub sentence: String,
    /// Passwords tried.
    pub samples: usize,
    /// Passwords whose bytes are gone from what would be stored.
    pub kept_off: usize,
}

/// The sentences: two that name a password, one with an account, three that name nothing,
/// and a note that is the password alone.
const SENTENCES: [&str; 7] = [
    "the staging password is X since Monday",
    "log in as ops with X",
    "use the shared account (ops, X)",
    "copying it here so it isn't lost: X",
    "ugh, pasted X in the wrong channel",
    "X - that's the one for the build VM",
    "X",
];

/// A small seeded generator (SplitMix64): the bench needs the same passwords every run,
/// not cryptographic ones.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
    fn pick(&mut self, from: &[u8]) -> u8 {
        from[self.below(from.len())]
    }
    fn string(&mut self, alphabet: &[u8], len: usize) -> String {
        (0..len).map(|_| self.pick(alphabet) as char).collect()
    }
}

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const LOWER_DIGITS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
const WORDS: [&str; 12] = [
    "Amber", "Boulder", "Clover", "Ferry", "Harbor", "Lantern", "Meadow", "Otter", "Ridge",
    "Summit", "Willow", "Frost",
];
const DICE: [&str; 12] = [
    "bucket", "carpet", "dragon", "engine", "forest", "garden", "hammer", "island", "ladder",
    "magnet", "parrot", "velvet",
];

/// One password of `kind`, drawn as the held-out sets draw them.
fn password(kind: &str, rng: &mut Rng) -> String {
    match kind {
        "symbols" => {
            let len = rng.between(10, 22);
            let mut s: Vec<u8> = rng.string(ALNUM, len).into_bytes();
            for _ in 0..rng.between(1, 3) {
                let at = rng.below(s.len());
                s[at] = rng.pick(b"!#%&*?^~@+=-_.");
            }
            String::from_utf8(s).expect("ASCII")
        }
        "word+digits" => {
            let word = WORDS[rng.below(WORDS.len())];
            let mark = ["", "", "!", "#", "$", "@", "?", "*"][rng.below(8)];
            format!("{word}{}{mark}", rng.between(1, 9999))
        }
        "random" => {
            let len = rng.between(10, 24);
            rng.string(ALNUM, len)
        }
        "passphrase" => {
            let sep = ["-", ".", "_"][rng.below(3)];
            let words: Vec<&str> = (0..rng.between(3, 5))
                .map(|_| DICE[rng.below(DICE.len())])
                .collect();
            let tail = if rng.below(2) == 0 {
                String::new()
            } else {
                rng.between(1, 99).to_string()
            };
            format!("{}{tail}", words.join(sep))
        }
        _ => {
            let len = rng.between(8, 16);
            rng.string(LOWER_DIGITS, len)
        }
    }
}

/// Every kind in every sentence, `per` passwords each.
pub fn measure(per: usize) -> Vec<KindRate> {
    let mut rng = Rng(0x05EC_2E75);
    let mut out = Vec::new();
    for kind in [
        "symbols",
        "word+digits",
        "random",
        "passphrase",
        "lower+digits",
    ] {
        let passwords: Vec<String> = (0..per).map(|_| password(kind, &mut rng)).collect();
        for sentence in SENTENCES {
            let kept_off = passwords
                .iter()
                .filter(|p| {
                    let text = sentence.replace('X', p);
                    !warroom_memory::secrets::scan(&text)
                        .text
                        .contains(p.as_str())
                })
                .count();
            out.push(KindRate {
                kind: kind.to_string(),
                sentence: sentence.to_string(),
                samples: per,
                kept_off,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Rng, password};

    #[test]
    fn the_kinds_are_drawn_as_the_sets_draw_them() {
        let mut rng = Rng(7);
        for _ in 0..200 {
            let p = password("lower+digits", &mut rng);
            assert!((8..=16).contains(&p.len()), "{p}");
            assert!(
                p.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            );
            let w = password("word+digits", &mut rng);
            assert!(w.as_bytes()[0].is_ascii_uppercase(), "{w}");
            let d = password("passphrase", &mut rng);
            assert!(d.bytes().filter(|b| b"-._".contains(b)).count() >= 2, "{d}");
        }
    }
}
