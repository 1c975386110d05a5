//! A line's words and the digit rule, a leaf of the scanner's shape checks: what
//! [`super::shapes`] and the contexts it dispatches to ([`super::bare`],
//! [`super::command`], [`super::pairs`], [`super::told`]) all split a line with, and
//! which needs none of them.

use std::ops::Range;

/// The words of `line` from `from`: byte ranges split at whitespace.
pub(super) fn words(line: &[u8], from: usize) -> Vec<Range<usize>> {
    let mut w = Vec::new();
    let mut i = from;
    while i < line.len() {
        if line[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let s = i;
        while i < line.len() && !line[i].is_ascii_whitespace() {
            i += 1;
        }
        w.push(s..i);
    }
    w
}

/// The digits and marks that make a word with digits a password with no context: four
/// digits that are not a year (`Clover1853`; `Server2022` is a product, `Summer2024` the
/// example of a weak one), or a mark that does not end a sentence (`Ridge124@`;
/// `Node18!` is an exclamation).
pub(super) fn anywhere_digits(t: &[u8]) -> bool {
    let core = t.strip_suffix(b"!").or(t.strip_suffix(b"?")).unwrap_or(t);
    let digits = core.iter().filter(|b| b.is_ascii_digit()).count();
    (digits >= 4 && !ends_in_year(core)) || core.iter().any(|b| b"#%&*^~$@".contains(b))
}

/// True if `t` ends in a year from 1950 to 2099 (`Server2022`).
fn ends_in_year(t: &[u8]) -> bool {
    let digits = t.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    digits == 4
        && std::str::from_utf8(&t[t.len() - 4..])
            .ok()
            .and_then(|y| y.parse::<u32>().ok())
            .is_some_and(|y| (1950..=2099).contains(&y))
}
