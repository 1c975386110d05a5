//! A team's own secret rules, in gitleaks' configuration format, so a team fixes its own
//! misses and false alarms without a release: `.gitleaks.toml` at the project root, or the
//! file `secrets: { rules: FILE }` names in `.agents/warroom.yaml`.
//!
//! What is read (gitleaks v8's format; a file gitleaks reads, we read):
//! - `[[rules]]` — `id`, `regex`, `secretGroup`, `entropy`, `keywords`, and the rule's
//!   `[[rules.allowlists]]` (or the older single `[rules.allowlist]`): added to ours;
//! - `[[allowlists]]` (or the older `[allowlist]`) — `regexes` with `regexTarget`
//!   (`secret`, `match`, `line`) and `stopwords`: a finding of *any* rule, ours included,
//!   that an allowlist allows is kept as written (the team's false alarms);
//! - `[extend] disabledRules = [ids]`: findings of those rules, ours included, are kept.
//!
//! Descriptions, tags, `paths` and `commits` are accepted and not used (a memory scans text,
//! not files or commits). A rule with `path` but no `regex`, `[extend] useDefault = false`,
//! an unknown key, a regex that does not compile or a missing file is an error naming the
//! file, the rule and the fix: a team's rules silently ignored would let its secrets in.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::rules::{Allow, AllowFile, Rule, compile};

/// A project's rules, compiled.
#[derive(Debug)]
pub struct ProjectRules {
    /// Where they were read from.
    pub file: PathBuf,
    pub(super) rules: Vec<Rule>,
    pub(super) allow: Vec<Allow>,
    pub(super) disabled: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    extend: Option<Extend>,
    #[serde(default)]
    rules: Vec<RuleFile>,
    #[serde(default)]
    allowlist: Option<AllowFile>,
    #[serde(default)]
    allowlists: Vec<AllowFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Extend {
    #[serde(rename = "useDefault", default)]
    use_default: Option<bool>,
    #[serde(default)]
    path: Option<String>,
    #[serde(rename = "disabledRules", default)]
    disabled_rules: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleFile {
    id: String,
    #[serde(default)]
    description: Option<String>,
    regex: Option<String>,
    #[serde(rename = "secretGroup", default)]
    secret_group: Option<usize>,
    #[serde(default)]
    entropy: Option<f64>,
    #[serde(default)]
    keywords: Vec<String>,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    allowlist: Option<AllowFile>,
    #[serde(default)]
    allowlists: Vec<AllowFile>,
}

/// Why a rules file was refused: the message names the file, what is wrong and the fix.
#[derive(Debug)]
pub struct RulesError(pub String);

impl std::fmt::Display for RulesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl ProjectRules {
    /// Reads and compiles the rules file at `path` (at most 1 MiB).
    pub fn load(path: &Path) -> Result<ProjectRules, RulesError> {
        let shown = path.display();
        let text = warroom_base::fsx::read_named_text(path, "the secrets rules file", 1 << 20)
            .map_err(|e| RulesError(format!("{e}")))?;
        Self::parse(path, &text).map_err(|why| {
            RulesError(format!(
                "the secrets rules file {shown} (gitleaks' format): {why}. Fix the file, or \
                 point `secrets: {{ rules: FILE }}` in .agents/warroom.yaml elsewhere"
            ))
        })
    }

    fn parse(path: &Path, text: &str) -> Result<ProjectRules, String> {
        let file: File = toml::from_str(text).map_err(|e| e.to_string().trim().to_string())?;
        let _ = (&file.title, &file.description);
        let mut disabled = Vec::new();
        if let Some(x) = &file.extend {
            if x.use_default == Some(false) {
                return Err(
                    "`[extend] useDefault = false` would turn off the built-in rules, \
                            which always apply here; to silence one, list its id in \
                            `[extend] disabledRules`"
                        .into(),
                );
            }
            if x.path.is_some() {
                return Err("`[extend] path` is not followed: put the rules in this file".into());
            }
            disabled.clone_from(&x.disabled_rules);
        }
        let mut rules = Vec::new();
        for r in file.rules {
            let _ = (&r.description, &r.tags);
            if !super::marker::valid_id(&r.id) {
                return Err(format!(
                    "rule id {:?} cannot name a finding in `[REDACTED:<id>]`: use 1 to 64 \
                     ASCII letters, digits, `-`, `_` or `.`",
                    r.id
                ));
            }
            let Some(pattern) = &r.regex else {
                return Err(format!(
                    "rule `{}` has no `regex` (a `path`-only rule finds files; here only text \
                     is scanned)",
                    r.id
                ));
            };
            if r.path.is_some() {
                return Err(format!(
                    "rule `{}` has a `path`: here only text is scanned, so remove it",
                    r.id
                ));
            }
            let re = compile(pattern)
                .map_err(|e| format!("rule `{}`: its regex does not compile: {e}", r.id))?;
            let allow = r
                .allowlists
                .iter()
                .chain(r.allowlist.iter())
                .map(|a| super::rules::allow(a, false).map_err(|e| format!("rule `{}`: {e}", r.id)))
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .flatten()
                .collect();
            rules.push(Rule {
                // Ids name redactions for the life of the process, like the built-in ones.
                id: r.id.clone(),
                re,
                entropy: r.entropy,
                group: r.secret_group.filter(|&g| g > 0),
                keywords: r.keywords.iter().map(|k| k.to_ascii_lowercase()).collect(),
                allow,
            });
        }
        let allow = file
            .allowlists
            .iter()
            .chain(file.allowlist.iter())
            .map(|a| super::rules::allow(a, false).map_err(|e| format!("an allowlist: {e}")))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .flatten()
            .collect();
        Ok(ProjectRules {
            file: path.to_path_buf(),
            rules,
            allow,
            disabled,
        })
    }

    /// Applies the project's rules to the findings of `text`: drops those of disabled
    /// rules and those an allowlist allows, adds the project rules' own.
    pub(super) fn apply(
        &self,
        text: &[u8],
        found: &mut Vec<(std::ops::Range<usize>, &'static str)>,
    ) {
        found.retain(|(r, id)| {
            !self.disabled.iter().any(|d| d == id)
                && !self
                    .allow
                    .iter()
                    .any(|a| super::allowed(a, &text[r.clone()], r.clone(), text))
        });
        let lower = text.to_ascii_lowercase();
        for rule in &self.rules {
            if !rule.keywords.is_empty()
                && !rule
                    .keywords
                    .iter()
                    .any(|k| lower.windows(k.len()).any(|w| w == k.as_bytes()))
            {
                continue;
            }
            for (whole, secret) in rule.matches(text) {
                let value = secret.as_bytes();
                if rule.entropy.is_some_and(|e| super::entropy(value) <= e)
                    || rule
                        .allow
                        .iter()
                        .chain(&self.allow)
                        .any(|a| super::allowed(a, value, whole.range(), text))
                {
                    continue;
                }
                found.push((secret.range(), leak(&rule.id)));
            }
        }
    }
}

/// A project rule's id as the `'static` name a finding carries. Each id is leaked once per
/// load (a few bytes per rule, loaded once per process).
fn leak(id: &str) -> &'static str {
    use std::collections::HashSet;
    use std::sync::Mutex;
    static IDS: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut ids = IDS.lock().unwrap_or_else(|p| p.into_inner());
    let set = ids.get_or_insert_with(HashSet::new);
    if let Some(s) = set.get(id) {
        return s;
    }
    let s: &'static str = Box::leak(id.to_string().into_boxed_str());
    set.insert(s);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(text: &str) -> Result<ProjectRules, String> {
        ProjectRules::parse(Path::new("team.toml"), text)
    }

    #[test]
    fn a_teams_rules_find_its_misses_and_its_allowlist_keeps_its_false_alarms() {
        let p = rules(
            r#"
title = "acme"
[extend]
disabledRules = ["generic-api-key"]
[[rules]]
id = "acme-ticket-key"
description = "Acme's internal ticket keys"
regex = '''\b(ack_[a-z0-9]{12})\b'''
keywords = ["ack_"]
[[allowlists]]
description = "our build ids look random"
regexes = ['''^bld-[A-Za-z0-9]{20,}$''']
"#,
        )
        .unwrap();
        let s = super::super::scan_fields_with(
            &["queue ack_9k2m4p7q1x3z is the staging one"],
            Some(&p),
        );
        assert_eq!(s[0].kinds, vec!["acme-ticket-key".to_string()]);
        assert!(!s[0].text.contains("ack_9k2m4p7q1x3z"));
        let build = "build bld-Zq8xW3vN5mK2pL7rT9yB4cD6fH1jA0 failed";
        assert!(
            !super::super::scan(build).kinds.is_empty(),
            "ours alone flags it"
        );
        let s = super::super::scan_fields_with(&[build], Some(&p));
        assert!(s[0].kinds.is_empty(), "{:?}", s[0].kinds);
    }

    #[test]
    fn every_built_in_rule_id_can_name_a_finding() {
        for r in &super::super::rules().rules {
            assert!(super::super::marker::valid_id(&r.id), "{:?}", r.id);
        }
    }

    #[test]
    fn a_bad_file_is_an_error_naming_what_is_wrong() {
        for (text, says) in [
            (
                "[[rules]]\nid = \"x\"\nregex = '''(unclosed'''\n",
                "rule `x`: its regex",
            ),
            (
                "[[rules]]\nid = \"x\"\npath = '''.env'''\n",
                "has no `regex`",
            ),
            ("[[rules]]\nid = \"x\"\nregexx = 'a'\n", "regexx"),
            ("[extend]\nuseDefault = false\n", "disabledRules"),
            ("rules = 3", "invalid type"),
            (
                "[[rules]]\nid = \"acme key]\"\nregex = 'a'\n",
                "rule id \"acme key]\" cannot name a finding",
            ),
        ] {
            let e = rules(text).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
