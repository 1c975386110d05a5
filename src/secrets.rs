//! Secrets never reach the disk: published text (entry summary, detail and tags; channel
//! bodies) is scanned for common credentials before anything is written. Depending on the
//! policy ([`crate::config::SecretPolicy`]) a finding is replaced by `[REDACTED:<kind>]` and
//! reported, or the call is refused.
//!
//! Detected: PEM private key blocks, AWS access key ids and secret keys, GitHub tokens,
//! OpenAI-style `sk-` keys, Slack tokens, JWTs, and assignments such as `password=…`,
//! `api_key: "…"`, `client_secret=…` whose value looks like a secret (≥ 6 characters with a
//! digit or symbol, or any quoted value of ≥ 4 characters) — so prose like "password
//! hashing" or "password: must be long" is left alone.

use std::sync::OnceLock;

use regex::Regex;

struct Rule {
    kind: &'static str,
    re: Regex,
    /// Capture group holding the secret (0 = the whole match).
    group: usize,
}

fn rules() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| {
        let r = |kind, pattern: &str, group| Rule {
            kind,
            re: Regex::new(pattern).expect("valid secret pattern"),
            group,
        };
        vec![
            r("private-key", r"-----BEGIN [A-Z ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY(?: BLOCK)?-----|\z)", 0),
            r("aws-access-key", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b", 0),
            r("aws-secret-key", r#"(?i)\baws_?secret_?access_?key\b["']?\s*[=:]\s*["']?([A-Za-z0-9/+=]{40})"#, 1),
            r("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b", 0),
            r("openai-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}", 0),
            r("slack-token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}", 0),
            r("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", 0),
            r(
                "password",
                r#"(?i)\b(?:password|passwd|pwd|passphrase)\b["']?\s*[=:]\s*("[^"\n]{4,}"|'[^'\n]{4,}'|[^\s"',;]{6,})"#,
                1,
            ),
            r(
                "api-key",
                r#"(?i)\b(?:api[_-]?key|apikey|secret[_-]?key|client[_-]?secret|access[_-]?token|auth[_-]?token|secret|token)\b["']?\s*[=:]\s*("[^"\n]{4,}"|'[^'\n]{4,}'|[^\s"',;]{6,})"#,
                1,
            ),
        ]
    })
}

/// An unquoted value must look like a secret, not a word of prose.
fn looks_secret(value: &str) -> bool {
    if value.starts_with(['"', '\'']) {
        return true;
    }
    value
        .chars()
        .any(|c| c.is_ascii_digit() || !c.is_alphanumeric())
}

/// What a scan found and the text with every finding replaced.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scan {
    /// The text, secrets replaced by `[REDACTED:<kind>]`.
    pub text: String,
    /// Kinds found, in order of first appearance, without repeats.
    pub kinds: Vec<String>,
}

/// Scans `text` for secrets.
pub fn scan(text: &str) -> Scan {
    let mut out = text.to_string();
    let mut kinds: Vec<String> = Vec::new();
    for rule in rules() {
        let mut found = false;
        let replaced = rule.re.replace_all(&out, |c: &regex::Captures<'_>| {
            let whole = c.get(0).expect("match").as_str();
            let Some(secret) = c.get(rule.group) else {
                return whole.to_string();
            };
            if rule.group > 0 && !looks_secret(secret.as_str()) {
                return whole.to_string();
            }
            found = true;
            let start = secret.start() - c.get(0).expect("match").start();
            format!(
                "{}[REDACTED:{}]{}",
                &whole[..start],
                rule.kind,
                &whole[start + secret.len()..]
            )
        });
        if found {
            out = replaced.into_owned();
            if !kinds.iter().any(|k| k == rule.kind) {
                kinds.push(rule.kind.to_string());
            }
        }
    }
    Scan { text: out, kinds }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_and_redacts_common_credentials() {
        let cases = [
            ("key AKIAIOSFODNN7EXAMPLE here", "aws-access-key"),
            (
                "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "aws-secret-key",
            ),
            (
                "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 leaked",
                "github-token",
            ),
            ("use sk-proj-abcdefghijklmnopqrstuvwxyz123456", "openai-key"),
            ("slack xoxb-1234567890-abcdefghij", "slack-token"),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
                "private-key",
            ),
            ("DATABASE password=hunter2!", "password"),
            ("api_key: \"abcd1234efgh\"", "api-key"),
            ("client_secret=s3cr3t-value", "api-key"),
            (
                "bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r",
                "jwt",
            ),
        ];
        for (text, kind) in cases {
            let s = scan(text);
            assert_eq!(s.kinds, vec![kind.to_string()], "{text}");
            assert!(s.text.contains(&format!("[REDACTED:{kind}]")), "{}", s.text);
        }
        let s = scan("password=hunter2! and AKIAIOSFODNN7EXAMPLE");
        assert!(
            !s.text.contains("hunter2") && !s.text.contains("AKIAIOSFODNN7EXAMPLE"),
            "{}",
            s.text
        );
        assert_eq!(
            s.text,
            "password=[REDACTED:password] and [REDACTED:aws-access-key]"
        );
    }

    #[test]
    fn leaves_prose_alone() {
        for text in [
            "Chose bcrypt over argon2 for password hashing",
            "password: must be at least twelve characters",
            "The token endpoint returns {access_token, expires_in}",
            "secret: handshake",
            "Use sk-learn? no, scikit-learn",
        ] {
            let s = scan(text);
            assert!(s.kinds.is_empty(), "{text} → {:?}", s.kinds);
            assert_eq!(s.text, text);
        }
    }
}
