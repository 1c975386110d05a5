//! The word lists of the shape rules, as data: `words.toml` holds each list with a line
//! saying what it is for and how a word is compared with it, parsed once per process.
//! A list is read by name (`lists().not_code.matches(w)`); the file's schema is this
//! module's [`Words`], so a list the code reads and the file lacks, or one the file has
//! and nothing reads, fails the first scan's parse and the tests.

use std::sync::OnceLock;

use serde::Deserialize;

const FILE: &str = include_str!("words.toml");

/// How a word is compared with a list's words (all ASCII lower case).
#[derive(Deserialize, Clone, Copy, Debug, PartialEq)]
#[serde(rename_all = "lowercase")]
pub(super) enum Match {
    /// The whole word is one of the list's.
    Word,
    /// One of the list's is inside it.
    Within,
    /// It begins with one of the list's.
    Prefix,
    /// It ends with one of the list's.
    Suffix,
}

/// One list: what it is for, how it matches, its words.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub(super) struct List {
    /// What the list is for (the tests hold every list to saying it).
    #[serde(rename = "for")]
    #[cfg_attr(not(test), allow(dead_code))]
    pub(super) purpose: String,
    #[serde(rename = "match")]
    pub(super) how: Match,
    pub(super) words: Vec<String>,
}

impl List {
    /// True if `w` matches one of the list's words the list's way.
    pub(super) fn matches(&self, w: &str) -> bool {
        let mut words = self.words.iter();
        match self.how {
            Match::Word => words.any(|x| x == w),
            Match::Within => words.any(|x| w.contains(x.as_str())),
            Match::Prefix => words.any(|x| w.starts_with(x.as_str())),
            Match::Suffix => words.any(|x| w.ends_with(x.as_str())),
        }
    }
}

/// Every list, by the file that reads it.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub(super) struct Words {
    // bare.rs
    pub(super) names_an_id: List,
    pub(super) not_secret_key: List,
    // codes.rs
    pub(super) not_code: List,
    pub(super) lock_kind: List,
    pub(super) code_owner: List,
    pub(super) opens_with_digits: List,
    pub(super) says_pin: List,
    pub(super) override_role: List,
    // command.rs
    pub(super) secret_argument: List,
    // pairs.rs
    pub(super) accounts: List,
    pub(super) word_accounts: List,
    pub(super) introduce_account: List,
    // told.rs
    pub(super) says_password: List,
    pub(super) names_a_secret: List,
    pub(super) not_pass: List,
    pub(super) not_key: List,
    pub(super) not_secret_key_prefix: List,
    // value.rs
    pub(super) placeholder: List,
    pub(super) read_from: List,
    pub(super) hash_label: List,
}

/// The lists, parsed once per process.
pub(super) fn lists() -> &'static Words {
    static WORDS: OnceLock<Words> = OnceLock::new();
    WORDS.get_or_init(|| toml::from_str(FILE).expect("the bundled words.toml parses"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_list_says_what_it_is_for_and_holds_lower_case_words() {
        let file: toml::Table = toml::from_str(FILE).unwrap();
        let w = lists();
        for (name, _) in &file {
            let list = match name.as_str() {
                "names_an_id" => &w.names_an_id,
                "not_secret_key" => &w.not_secret_key,
                "not_code" => &w.not_code,
                "lock_kind" => &w.lock_kind,
                "code_owner" => &w.code_owner,
                "opens_with_digits" => &w.opens_with_digits,
                "says_pin" => &w.says_pin,
                "override_role" => &w.override_role,
                "secret_argument" => &w.secret_argument,
                "accounts" => &w.accounts,
                "word_accounts" => &w.word_accounts,
                "introduce_account" => &w.introduce_account,
                "says_password" => &w.says_password,
                "names_a_secret" => &w.names_a_secret,
                "not_pass" => &w.not_pass,
                "not_key" => &w.not_key,
                "not_secret_key_prefix" => &w.not_secret_key_prefix,
                "placeholder" => &w.placeholder,
                "read_from" => &w.read_from,
                "hash_label" => &w.hash_label,
                other => panic!("{other} is not a list Words reads"),
            };
            assert!(list.purpose.len() > 20, "{name} says what it is for");
            assert!(!list.words.is_empty(), "{name} has words");
            for x in &list.words {
                assert_eq!(x, &x.to_ascii_lowercase(), "{name}: {x} is lower case");
                assert!(list.matches(x), "{name} matches its own word {x}");
            }
        }
    }

    #[test]
    fn each_way_of_matching_compares_as_it_says() {
        let w = lists();
        assert!(w.not_code.matches("zip") && !w.not_code.matches("zipper"));
        assert!(w.says_password.matches("rootpassword"));
        assert!(
            w.not_secret_key_prefix.matches("publickey")
                && !w.not_secret_key_prefix.matches("apikey")
        );
        assert!(w.secret_argument.matches("wifi-sec.psk") && !w.secret_argument.matches("pskx"));
    }
}
