//! The detection rules: gitleaks' maintained rule set plus the few cases it leaves to its
//! entropy-based generic rule or does not cover (credentials in URLs, bearer tokens,
//! prefixed `*_PASSWORD=` assignments, Azure account keys and SAS signatures, GCP key ids).
//!
//! `gitleaks.toml` is gitleaks' default configuration, unmodified (commit b58d3f10 of
//! github.com/gitleaks/gitleaks, MIT licence in `gitleaks.LICENSE`). Refresh it by copying
//! a newer `config/gitleaks.toml` over it; `tests` in this module check every rule still
//! compiles. Each rule is compiled like Go's RE2 (ASCII `\w`, `\s`, `\b`) as a byte regex.

use std::sync::OnceLock;

use aho_corasick::AhoCorasick;
use regex::bytes::{Regex, RegexBuilder};
use serde::Deserialize;

const GITLEAKS: &str = include_str!("gitleaks.toml");

#[derive(Deserialize)]
struct File {
    allowlist: Option<AllowFile>,
    #[serde(default)]
    rules: Vec<RuleFile>,
}

#[derive(Deserialize)]
struct RuleFile {
    id: String,
    regex: Option<String>,
    entropy: Option<f64>,
    #[serde(default)]
    keywords: Vec<String>,
    #[serde(rename = "secretGroup")]
    secret_group: Option<usize>,
    #[serde(default)]
    allowlists: Vec<AllowFile>,
}

#[derive(Deserialize)]
struct AllowFile {
    #[serde(default)]
    regexes: Vec<String>,
    #[serde(rename = "regexTarget")]
    regex_target: Option<String>,
    #[serde(default)]
    stopwords: Vec<String>,
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

fn compile(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .unicode(false)
        .size_limit(64 << 20)
        .dfa_size_limit(16 << 20)
        .build()
}

fn allow(a: &AllowFile) -> Option<Allow> {
    if a.regexes.is_empty() && a.stopwords.is_empty() {
        return None; // path-only allowlists do not apply to text
    }
    Some(Allow {
        regexes: a.regexes.iter().filter_map(|r| compile(r).ok()).collect(),
        target: match a.regex_target.as_deref() {
            Some("match") => Target::Match,
            Some("line") => Target::Line,
            _ => Target::Secret,
        },
        stopwords: (!a.stopwords.is_empty()).then(|| {
            AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(&a.stopwords)
                .expect("stopwords build an automaton")
        }),
    })
}

/// Our additions, in gitleaks' shape: (id, regex, secret group, keywords).
const OWN: &[(&str, &str, usize, &[&str])] = &[
    (
        // gitleaks allow-lists AWS's documented example keys; we redact them anyway.
        "aws-access-key",
        r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA)[A-Z0-9]{16}\b",
        0,
        &[
            "a3t", "akia", "asia", "abia", "acca", "agpa", "aida", "aroa",
        ],
    ),
    (
        "aws-secret-key",
        r#"(?i)aws_?secret_?(?:access_?)?key["']?[ \t]*[=:][ \t]*["']?([a-z0-9/+=]{40})"#,
        1,
        &["aws"],
    ),
    (
        "url-credentials",
        // The password may hold `@` (unencoded): it runs to the last `@` before the host.
        r"(?i)\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@'\x22]{0,128}:([^\s/'\x22]{1,256})@[a-z0-9.\[-]",
        1,
        &["://"],
    ),
    (
        "bearer-token",
        r"(?i)\bbearer[ \t]+([a-z0-9._~+/-]{16,}=*)",
        1,
        &["bearer"],
    ),
    (
        "password",
        r#"(?i)\b[a-z0-9_.-]{0,40}(?:password|passwd|pwd|passphrase|[_.-]pass|\bpass|[_.-]pw)\b["']?[ \t]*(?:=|:|:=)[ \t]*("[^"\n]{4,}"|'[^'\n]{4,}'|[^\s"',;]{6,})"#,
        1,
        &["pass", "pwd", "_pw", "-pw", ".pw"],
    ),
    (
        // A quoted key: PHP's `'password' => '…'`, `$cfg['db_password'] = '…'`,
        // `define('DB_PASSWORD', '…')`.
        "password",
        r#"(?i)["'][a-z0-9_.-]{0,40}(?:password|passwd|passphrase|pwd|pass|secret|token|api_?key)["'][ \t]*\]?[ \t]*(?:=>|=|:|,)[ \t]*("[^"\n]{4,}"|'[^'\n]{4,}')"#,
        1,
        &["pass", "pwd", "secret", "token", "key"],
    ),
    (
        // A config line `KEY VALUE` (ldap's `bind_pw X`, `smtp_pass X`): one key ending in
        // a secret word, one value of six or more characters, nothing else on the line.
        "password",
        r##"(?im)^[ \t]*[a-z0-9_.-]{0,40}(?:password|passwd|passphrase|pwd|pw|pass|secret|token)[ \t]+([^\s=:'"#][^\s]{5,127})[ \t]*$"##,
        1,
        &["pass", "pwd", "pw", "secret", "token"],
    ),
    (
        // A `.pgpass` line: `host:port:database:user:password`.
        "password",
        r##"(?m)^[^\s:#]+:(?:\d{1,5}|\*):[^\s:]+:[^\s:]+:(\S{3,128})$"##,
        1,
        &[":"],
    ),
    (
        "api-key",
        r#"(?i)\b[a-z0-9_.-]{0,40}(?:api[_-]?key|apikey|secret[_-]?key(?:[_-]?base)?|client[_-]?secret|access[_-]?token|auth[_-]?token|secret|token)\b["']?[ \t]*(?:=|:|:=)[ \t]*("[^"\n]{4,}"|'[^'\n]{4,}'|[^\s"',;]{6,})"#,
        1,
        &["key", "secret", "token"],
    ),
    (
        "azure-account-key",
        r"(?i)\b(?:AccountKey|SharedAccessKey)=([a-z0-9+/]{20,}={0,2})",
        1,
        &["accountkey", "sharedaccesskey"],
    ),
    (
        "azure-sas-signature",
        r"(?i)[?&]sig=([a-z0-9%+/]{20,}(?:%3d|=){0,2})",
        1,
        &["sig="],
    ),
    (
        "gcp-private-key-id",
        r#"(?i)"?private_key_id"?[ \t]*[:=][ \t]*"?([a-f0-9]{40})"#,
        1,
        &["private_key_id"],
    ),
    // Credentials on command lines (the red team's gap): each tool's own flag.
    (
        "cli-password",
        r#"(?i)\b(?:curl|wget|https?)\b[^\n]{0,200}?\s(?:-u|--user|--http-user|-a|--auth)[ =]?['"]?[^\s:'"]{1,64}:([^\s'"]{3,128})"#,
        1,
        &["curl", "wget", "http"],
    ),
    (
        "cli-password",
        r#"(?i)\bsshpass\b[^\n]{0,40}?\s-p\s*['"]?([^\s'"]{3,128})"#,
        1,
        &["sshpass"],
    ),
    (
        "cli-password",
        r#"(?i)\bmysql(?:dump|admin|import|sh|check)?\b[^\n]{0,200}?\s-p([^\s'"-][^\s'"]{2,127})"#,
        1,
        &["mysql"],
    ),
    (
        "cli-password",
        r#"(?i)(?:^|\s)--?(?:password|passwd|pass|http-password|ftp-password)[ =]['"]?([^\s'"-][^\s'"]{2,127})"#,
        1,
        &["-pass"],
    ),
    (
        "cli-password",
        r#"(?i)\s-(?:pass|passin|passout|k)\s+pass:([^\s'"]{3,128})"#,
        1,
        &["pass:"],
    ),
    (
        "cli-password",
        r#"(?i)\bdocker\s+login\b[^\n]{0,200}?\s-p\s+['"]?([^\s'"-][^\s'"]{2,127})"#,
        1,
        &["docker"],
    ),
    (
        "cli-password",
        r#"(?i)\bredis-cli\b[^\n]{0,200}?\s-a\s+['"]?([^\s'"-][^\s'"]{2,127})"#,
        1,
        &["redis-cli"],
    ),
    (
        "cli-password",
        r#"(?i)\b(?:smbclient|rpcclient|smbmap|net\s+use)\b[^\n]{0,200}?(?:-U\s*|/user:)['"]?[^\s%'"]{1,64}%([^\s'"]{3,128})"#,
        1,
        &["smbclient", "rpcclient", "smbmap", "net use"],
    ),
    (
        "cli-password",
        r#"(?i)\bldap[a-z]{0,10}\b[^\n]{0,300}?\s-w\s+['"]?([^\s'"-][^\s'"]{2,127})"#,
        1,
        &["ldap"],
    ),
    (
        "cli-password",
        r#"(?i)\baz\s+login\b[^\n]{0,300}?\s-p\s+['"]?([^\s'"-][^\s'"]{2,127})"#,
        1,
        &["az login"],
    ),
    (
        "cli-password",
        r#"(?i)\bhtpasswd\s+-[a-z]*b[a-z]*\s+(?:-[a-z]+\s+)*\S+\s+\S+\s+['"]?([^\s'"]{3,128})"#,
        1,
        &["htpasswd"],
    ),
    (
        "cli-password",
        r#"(?i)\blftp\b[^\n]{0,200}?\s-u\s+['"]?[^\s,'"]{1,64},([^\s'"]{3,128})"#,
        1,
        &["lftp"],
    ),
    (
        "cli-password",
        r#"(?i)\b(?:sqlcmd|bcp|osql|isql)\b[^\n]{0,200}?\s-P\s*['"]?([^\s'"-][^\s'"]{2,127})"#,
        1,
        &["sqlcmd", "bcp", "osql", "isql"],
    ),
    (
        // Kubernetes / compose env lists: `- name: DB_PASSWORD` then `value: …`.
        "env-secret-value",
        r#"(?i)name:[ \t]*["']?[a-z0-9_]*(?:password|passwd|secret|token|api_?key|pass)["']?[ \t]*\r?\n[ \t]*value:[ \t]*["']?([^\s"']{4,256})"#,
        1,
        &["name:"],
    ),
    (
        "cli-password",
        r#"(?i)\brabbitmqctl\s+(?:add_user|change_password)\s+\S+\s+['"]?([^\s'"]{3,128})"#,
        1,
        &["rabbitmqctl"],
    ),
    (
        // `echo 'pw' | docker login … --password-stdin`, `… | sudo -S …`,
        // `… | passwd --stdin`, `… | chpasswd`: a literal piped to what reads a password.
        "cli-password",
        r#"(?i)\b(?:echo|printf)\s+(?:-[ne]+\s+)?['"]?([^\s'"|]{3,128})['"]?\s*\|[^\n]{0,200}?(?:--password-stdin|--passwd-on-stdin|\s--stdin\b|\bsudo\s+(?:-[a-z]+\s+)*-[a-z]*S\b|\bchpasswd\b)"#,
        1,
        &["stdin", "sudo", "chpasswd"],
    ),
    (
        // Windows' `net user NAME PASSWORD [/add]`.
        "cli-password",
        r#"(?i)\bnet\s+user\s+\S+\s+['"]?([^\s/'"*][^\s'"]{2,127})"#,
        1,
        &["net user"],
    ),
    (
        // rar's `-pSECRET` / `-hpSECRET` (password attached to the flag).
        "cli-password",
        r#"(?i)\brar\b[^\n]{0,100}?\s-h?p([^\s'"-][^\s'"]{2,127})"#,
        1,
        &["rar"],
    ),
    (
        // `user:pass@host` without a scheme (`impacket-psexec dom/admin:pw@10.0.0.5`,
        // `mysqlsh root:pw@localhost`); a value of digits and dots is a version.
        "cli-password",
        r#"(?i)(?:^|[\s/'"=])[a-z0-9_.\\-]{1,64}:([^\s@/:'"]*[^\s@/:'"\d.][^\s@/:'"]*)@(?:\d{1,3}(?:\.\d{1,3}){3}|[a-z0-9-]+(?:\.[a-z0-9-]+)+|localhost)\b"#,
        1,
        &["@"],
    ),
    // Tool-agnostic command-line shapes, for tools no rule names (heldout-3's misses:
    // each tool spells its password flag its own way).
    (
        // A flag whose name ends in a secret word: `-storepass X`, `--db-password=X`,
        // `--client-secret X`. Not `--password-file`, `--no-password`, `$VAR` or `-…`.
        "cli-password",
        // The same secret words as keys use (`passphrase`, `-pw`, `--user_pass`).
        r#"(?i)(?:^|\s)--?(?:[a-z][a-z0-9_-]{0,30})?(?:pass|password|passwd|passphrase|pwd|pw|secret|token|api-?key)[ =]['"]?([^\s'"<|>&;$-][^\s'"]{2,127})"#,
        1,
        &["pass", "pwd", "-pw", "_pw", "secret", "token", "key"],
    ),
    (
        // `-u USER -p PASS` / `-U USER -P PASS` in any tool; a value of digits, colons
        // and dots is a port or a uid, not a password.
        "cli-password",
        r#"(?:^|\s)(?:-u|-U|--user|--username|--login)[ =]?['"]?[^\s'"$-][^\s'"]{0,63}['"]?\s+(?:-[pP][ =]?|--pass[ =])['"]?((?:[^\s'"$-][^\s'"]*)?[^\s'"\d:./-][^\s'"]*)"#,
        1,
        &["-p", "--pass"],
    ),
    (
        "cli-password",
        r#"(?:^|\s)(?:-[pP][ =]?|--pass[ =])['"]?((?:[^\s'"$-][^\s'"]*)?[^\s'"\d:./-][^\s'"]*)['"]?\s+(?:-u|-U|--user|--username|--login)[ =]?['"]?[^\s'"$-]"#,
        1,
        &["-p", "--pass"],
    ),
    (
        // Windows-style flags: `/p:X`, `/pass:X`, `/password:X` (RDP, cmdkey); not an
        // MSBuild property (`/p:Configuration=Release`).
        "cli-password",
        r#"(?im)(?:^|\s)/(?:p|pw|pwd|pass|passwd|password|passphrase|[a-z]{1,20}pass(?:word)?)[:=]['"]?([^\s'"/$%<=-][^\s'"=]{2,127})['"]?(?:\s|$)"#,
        1,
        &["/p"],
    ),
    (
        // `--proxy-user user:pass`, `--basic-auth user:pass` in any tool.
        "cli-password",
        r#"(?i)\s(?:--proxy-user|--user|-u|-U|--auth|--basic-auth|--credentials|--creds)[ =]['"]?[^\s:'"@/$-][^\s:'"@/]{0,63}:([^\s'"@]*[^\s'"@\d:.][^\s'"@]*)"#,
        1,
        &["user", "-u", "auth", "cred"],
    ),
    (
        // `SSHPASS=…`, `PGPASS=…`, `REDISCLI_AUTH`-style names in upper case.
        "env-password",
        r#"\b[A-Z][A-Z0-9_]*(?:PASS|PASSWD|PASSWORD|SECRET|TOKEN|APIKEY|_AUTH)=['"]?([^\s'"$][^\s'"]{3,127})"#,
        1,
        &["pass", "secret", "token", "apikey", "_auth"],
    ),
    (
        // An ftp script's `user NAME PASS` line.
        "cli-password",
        r#"(?ims)\bftp\b.{0,400}?^[ \t]*user[ \t]+\S+[ \t]+(\S{4,128})[ \t]*$"#,
        1,
        &["ftp"],
    ),
    (
        "netrc-password",
        r"(?i)\bmachine\s+\S+\s+login\s+\S+\s+password\s+(\S{3,128})",
        1,
        &["machine"],
    ),
    (
        "xml-secret",
        r"(?i)<(?:password|passwd|pwd|secret|api[_-]?key|token|client[_-]?secret)>([^<\s]{4,256})</",
        1,
        &["<pass", "<pwd", "<secret", "<api", "<token", "<client"],
    ),
    // Token formats gitleaks leaves to a context keyword or does not know.
    ("mailgun-key", r"\bkey-[0-9a-f]{32}\b", 0, &["key-"]),
    (
        "linear-oauth-token",
        r"\blin_oauth_[0-9a-f]{64}\b",
        0,
        &["lin_oauth_"],
    ),
    (
        "asana-token",
        r"\b[0-9]/[0-9]{16}:[0-9a-f]{32}\b",
        0,
        &["/"],
    ),
    ("new-relic-key", r"\bNRAK-[A-Z0-9]{27}\b", 0, &["nrak-"]),
    (
        "vault-token",
        r"\bhv[sb]\.[A-Za-z0-9_-]{24,}",
        0,
        &["hvs.", "hvb."],
    ),
    (
        "airtable-token",
        r"\bpat[A-Za-z0-9]{14}\.[0-9a-f]{64}\b",
        0,
        &["pat"],
    ),
    ("supabase-token", r"\bsbp_[0-9a-f]{40}\b", 0, &["sbp_"]),
    (
        "age-secret-key",
        r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b",
        0,
        &["age-secret-key"],
    ),
    (
        "mailchimp-key",
        r"\b[0-9a-f]{32}-us[0-9]{1,2}\b",
        0,
        &["-us"],
    ),
    (
        "private-key",
        r"(?i)-----begin[ a-z0-9_-]{0,100}private key(?: block)?-----[\s\S]*?(?:-----end[ a-z0-9_-]{0,100}private key(?: block)?-----|\z)",
        0,
        &["-----begin"],
    ),
];

/// A rule's id with the rule set's lifetime.
pub fn id_of(rule: &'static Rule) -> &'static str {
    &rule.id
}

/// The rule set, compiled once per process.
pub fn rules() -> &'static RuleSet {
    static SET: OnceLock<RuleSet> = OnceLock::new();
    SET.get_or_init(build)
}

fn build() -> RuleSet {
    let file: File = toml::from_str(GITLEAKS).expect("the bundled gitleaks.toml parses");
    let mut rules = Vec::new();
    let mut skipped = Vec::new();
    for r in file.rules {
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
                allow: r.allowlists.iter().filter_map(allow).collect(),
            }),
            Err(e) => skipped.push(format!("{}: {e}", r.id)),
        }
    }
    for (id, pattern, group, keywords) in OWN {
        rules.push(Rule {
            id: (*id).to_string(),
            re: compile(pattern).expect("our own secret patterns compile"),
            entropy: None,
            group: Some(*group).filter(|&g| g > 0),
            keywords: keywords.iter().map(|k| (*k).to_string()).collect(),
            allow: Vec::new(),
        });
    }
    let global = file.allowlist.as_ref().and_then(allow).unwrap_or(Allow {
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
