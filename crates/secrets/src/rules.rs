//! The detection rules: gitleaks' maintained rule set plus the few cases it leaves to its
//! entropy-based generic rule or does not cover (credentials in URLs, bearer tokens,
//! prefixed `*_PASSWORD=` assignments, Azure account keys and SAS signatures, GCP key ids).
//!
//! `gitleaks.toml` is gitleaks' default configuration, unmodified (commit b58d3f10 of
//! github.com/gitleaks/gitleaks, MIT licence in `gitleaks.LICENSE`). Refresh it by copying
//! a newer `config/gitleaks.toml` over it; `tests` in this module check every rule still
//! compiles. Each rule is compiled like Go's RE2 (ASCII `\w`, `\s`, `\b`) as a byte regex.
//!
//! `own.toml` holds our rules in the same format, after gitleaks' (they only add): token
//! formats it leaves to a context keyword, and rules that read a context (URLs, command
//! lines, config lines). Each carries `tps` and `fps`, the examples it must and must not
//! find a secret in, which `own_tests` checks rule by rule as gitleaks' generator does.

use std::sync::OnceLock;

use aho_corasick::AhoCorasick;
use regex::bytes::{Regex, RegexBuilder};
use serde::Deserialize;

const GITLEAKS: &str = include_str!("gitleaks.toml");
/// Our own rules, in the same format, each with the examples it must find and must not.
pub(super) const OWN: &str = include_str!("own.toml");

#[derive(Deserialize)]
pub(super) struct File {
    allowlist: Option<AllowFile>,
    #[serde(default)]
    pub(super) rules: Vec<RuleFile>,
}

/// A rule as gitleaks writes it; `tps` and `fps` are the examples gitleaks keeps beside
/// each rule in its Go generator (texts it must find a secret in, and must not), which
/// `own.toml` carries in the file itself.
#[derive(Deserialize)]
pub(super) struct RuleFile {
    pub(super) id: String,
    regex: Option<String>,
    entropy: Option<f64>,
    #[serde(default)]
    keywords: Vec<String>,
    #[serde(rename = "secretGroup")]
    secret_group: Option<usize>,
    #[serde(default)]
    allowlists: Vec<AllowFile>,
    /// Read only by the rules' own tests (`own_tests`).
    #[serde(default)]
    #[cfg_attr(not(test), allow(dead_code))]
    pub(super) tps: Vec<String>,
    #[serde(default)]
    #[cfg_attr(not(test), allow(dead_code))]
    pub(super) fps: Vec<String>,
}

/// An allowlist as gitleaks writes it (the bundled file's and a team's, see
/// [`super::project`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AllowFile {
    #[serde(default)]
    regexes: Vec<String>,
    #[serde(rename = "regexTarget")]
    regex_target: Option<String>,
    #[serde(default)]
    stopwords: Vec<String>,
    /// Not used here: a memory scans text, not files or commits.
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    paths: Vec<String>,
    #[serde(default)]
    commits: Vec<String>,
    #[serde(default)]
    condition: Option<String>,
}

/// What an allowlist regex is matched against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    Secret,
    Match,
    Line,
}

/// Matches that are not secrets (placeholders, templates, known examples).
#[derive(Debug)]
pub struct Allow {
    pub regexes: Vec<Regex>,
    pub target: Target,
    /// Words (ASCII case-insensitive): a secret containing one is not a secret.
    pub stopwords: Option<AhoCorasick>,
}

/// One detection rule.
#[derive(Debug)]
pub struct Rule {
    /// Names the finding: `[REDACTED:<id>]`.
    pub id: String,
    pub re: Regex,
    /// Shannon entropy the secret must exceed (bits per character).
    pub entropy: Option<f64>,
    /// Capture group holding the secret (None: the first group that matched, else all).
    pub group: Option<usize>,
    /// Lower-case keywords; the rule runs only on text containing one (none: always).
    pub keywords: Vec<String>,
    pub allow: Vec<Allow>,
}

/// Every rule, the global allowlist, and the keyword prefilter.
pub struct RuleSet {
    pub rules: Vec<Rule>,
    pub global: Allow,
    /// Keyword automaton (ASCII case-insensitive); `owners[k]` = rules using keyword k.
    pub keywords: AhoCorasick,
    pub owners: Vec<Vec<usize>>,
    /// Rules without keywords.
    pub always: Vec<usize>,
    /// Rules of the bundled file that did not compile (should be none; checked by tests).
    pub skipped: Vec<String>,
}

pub(super) fn compile(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .unicode(false)
        .size_limit(64 << 20)
        .dfa_size_limit(16 << 20)
        .build()
}

/// The allowlist `a` compiled (None for a path-only one: it does not apply to text); an
/// error names a regex that does not compile or an unknown `regexTarget`. `lenient`
/// (the bundled file) skips a regex Go's RE2 takes and Rust's does not (`{{`).
pub(super) fn allow(a: &AllowFile, lenient: bool) -> Result<Option<Allow>, String> {
    let _ = (&a.description, &a.paths, &a.commits, &a.condition);
    if a.regexes.is_empty() && a.stopwords.is_empty() {
        return Ok(None); // path-only allowlists do not apply to text
    }
    let regexes = a
        .regexes
        .iter()
        .map(|r| compile(r).map_err(|e| format!("allowlist regex `{r}` does not compile: {e}")))
        .filter(|r| !(lenient && r.is_err()))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(Allow {
        regexes,
        target: match a.regex_target.as_deref() {
            Some("match") => Target::Match,
            Some("line") => Target::Line,
            None | Some("secret") => Target::Secret,
            Some(other) => {
                return Err(format!(
                    "`regexTarget = \"{other}\"` is not one of secret, match, line"
                ));
            }
        },
        stopwords: (!a.stopwords.is_empty()).then(|| {
            AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(&a.stopwords)
                .expect("stopwords build an automaton")
        }),
    }))
}

impl Rule {
    /// Every match of the rule in `text`: (the whole match, the secret in it) — the
    /// capture group `secretGroup` names, else the first group that matched, else all.
    pub(super) fn matches<'t>(
        &self,
        text: &'t [u8],
    ) -> impl Iterator<Item = (regex::bytes::Match<'t>, regex::bytes::Match<'t>)> {
        self.re.captures_iter(text).filter_map(|caps| {
            let whole = caps.get(0).expect("a match");
            let secret = match self.group {
                Some(g) => caps.get(g),
                None => (1..caps.len()).find_map(|g| caps.get(g)).or(Some(whole)),
            };
            secret.map(|s| (whole, s))
        })
    }
}

/// A rule's id with the rule set's lifetime.
pub fn id_of(rule: &'static Rule) -> &'static str {
    &rule.id
}

/// The rule set, compiled once per process.
pub fn rules() -> &'static RuleSet {
    static SET: OnceLock<RuleSet> = OnceLock::new();
    SET.get_or_init(build)
}

/// A rule file's rules compiled; `lenient` (gitleaks' file) sets aside a rule whose regex
/// Rust's engine does not take (`skipped`), where ours must all compile.
pub(super) fn compiled(file: &File, lenient: bool, skipped: &mut Vec<String>) -> Vec<Rule> {
    let mut rules = Vec::new();
    for r in &file.rules {
        let Some(pattern) = &r.regex else {
            continue; // path-only rules find files, not text
        };
        match compile(pattern) {
            Ok(re) => rules.push(Rule {
                id: r.id.clone(),
                re,
                entropy: r.entropy,
                group: r.secret_group.filter(|&g| g > 0),
                keywords: r.keywords.iter().map(|k| k.to_ascii_lowercase()).collect(),
                allow: r
                    .allowlists
                    .iter()
                    .filter_map(|a| allow(a, true).expect("the bundled allowlists compile"))
                    .collect(),
            }),
            Err(e) if lenient => skipped.push(format!("{}: {e}", r.id)),
            Err(e) => panic!("our own rule {} does not compile: {e}", r.id),
        }
    }
    rules
}

/// `own.toml` parsed (its tests read the examples).
pub(super) fn own_file() -> File {
    toml::from_str(OWN).expect("the bundled own.toml parses")
}

fn build() -> RuleSet {
    let file: File = toml::from_str(GITLEAKS).expect("the bundled gitleaks.toml parses");
    let mut skipped = Vec::new();
    let mut rules = compiled(&file, true, &mut skipped);
    rules.extend(compiled(&own_file(), false, &mut skipped));
    let global = file
        .allowlist
        .as_ref()
        .and_then(|a| allow(a, true).expect("the bundled allowlist compiles"))
        .unwrap_or(Allow {
            regexes: Vec::new(),
            target: Target::Secret,
            stopwords: None,
        });
    let mut words: Vec<String> = Vec::new();
    let mut owners: Vec<Vec<usize>> = Vec::new();
    let mut always = Vec::new();
    for (i, r) in rules.iter().enumerate() {
        if r.keywords.is_empty() {
            always.push(i);
        }
        for k in &r.keywords {
            match words.iter().position(|w| w == k) {
                Some(w) => owners[w].push(i),
                None => {
                    words.push(k.clone());
                    owners.push(vec![i]);
                }
            }
        }
    }
    let keywords = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(&words)
        .expect("keywords build an automaton");
    RuleSet {
        rules,
        global,
        keywords,
        owners,
        always,
        skipped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_rule_compiles() {
        let set = rules();
        assert!(set.skipped.is_empty(), "{:?}", set.skipped);
        assert!(set.rules.len() > 200, "{} rules", set.rules.len());
    }
}
