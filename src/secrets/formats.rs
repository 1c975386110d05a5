//! Token formats gitleaks leaves to a context keyword or does not know, in its shape:
//! (id, regex, secret group, keywords). Each was added for a miss of a corpus (the
//! held-out corpora in `tests/fixtures/secrets/` say which); [`super::own`] has the rules
//! that read a context (URLs, command lines, config lines).

/// Our token formats, in gitleaks' shape: (id, regex, secret group, keywords).
pub(super) const FORMATS: &[(&str, &str, usize, &[&str])] = &[
    ("mailgun-key", r"\bkey-[0-9a-f]{32}\b", 0, &["key-"]),
    ("nuget-api-key", r"\boy2[a-z0-9]{43}\b", 0, &["oy2"]),
    (
        "hubspot-private-app-token",
        r"\bpat-(?:na|eu)[0-9]-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
        0,
        &["pat-na", "pat-eu"],
    ),
    ("buildkite-token", r"\bbkua_[0-9a-f]{40}\b", 0, &["bkua_"]),
    (
        "linear-oauth-token",
        r"\blin_oauth_[0-9a-f]{64}\b",
        0,
        &["lin_oauth_"],
    ),
    (
        "asana-token",
        // Legacy `1/…:…` and current `2/<workspace>/<user>:…` personal access tokens.
        r"\b[0-9]/[0-9]{16}(?:/[0-9]{16})?:[0-9a-f]{32}\b",
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
    (
        // Transifex's API tokens: `1/` and 40 hex digits.
        "transifex-token",
        r"(?:^|[^0-9A-Za-z/])1/([0-9a-f]{40})\b",
        1,
        &["1/"],
    ),
    (
        // Unleash's API tokens: `project:environment.` (either may be `*`) and 56–64 hex
        // digits.
        "unleash-token",
        r"(?i)(?:\*|\b[a-z][a-z0-9_-]{0,40}):(?:\*|[a-z][a-z0-9_-]{0,40})\.([0-9a-f]{56,64})\b",
        1,
        &[":"],
    ),
    (
        // Bitwarden Secrets Manager's machine-account access tokens:
        // `0.<uuid>.<secret>:<key in base64>`.
        "bitwarden-access-token",
        r"\b0\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.[0-9A-Za-z]{20,40}:[0-9A-Za-z+/]{20,44}={0,2}",
        0,
        &["0."],
    ),
    (
        // Akamai EdgeGrid's access and client tokens: `akab-`, 16 and 16 letters and
        // digits — not the API host, which is spelt the same and goes on `.luna…`.
        "akamai-edgegrid-token",
        r"\b(akab-[a-z0-9]{16}-[a-z0-9]{16})(?:[^.a-z0-9-]|\.(?:\s|$)|$)",
        1,
        &["akab-"],
    ),
    (
        // Login with Amazon's client secrets (Amazon SP-API): `amzn1.oa2-cs.v1.` and 64
        // hex digits.
        "amazon-lwa-client-secret",
        r"\bamzn1\.oa2-cs\.v1\.[0-9a-f]{64}\b",
        0,
        &["amzn1.oa2-cs"],
    ),
    (
        // eBay's Cert ID (its client secret, whatever the name says): `PRD-`/`SBX-`, then
        // 12, 4, 4, 4 and 4 hex digits.
        "ebay-cert-id",
        r"\b(?:PRD|SBX)-[0-9a-f]{12}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}\b",
        0,
        &["prd-", "sbx-"],
    ),
    (
        // Chromatic's project tokens: `chpt_` and 14–16 hex digits.
        "chromatic-project-token",
        r"\bchpt_[0-9a-f]{14,16}\b",
        0,
        &["chpt_"],
    ),
    (
        // Trello's API tokens: `ATTA`, 64 hex digits and an 8-digit checksum.
        "trello-token",
        r"\bATTA[0-9a-fA-F]{64,72}\b",
        0,
        &["atta"],
    ),
];

#[cfg(test)]
mod tests {
    use crate::secrets::tests::{gone, kept};

    #[test]
    fn transifex_unleash_and_bitwarden_tokens_and_their_look_alikes() {
        let hex40 = "2b8b11a3665b041fd96f6f8077348a4bc9d3022e";
        let hex56 = "356d8872d64251efe4e54a6c907136bba40c59bac84471b5fe9b7541";
        let bw = "0.e3597c5d-194f-cfe1-bfd3-1c2a3b4c5d6e.Zk3mQ9xT2vLp8RbN4wYc6HjK1sDfGa:9fK2mQ4xT8vLp1RbN6wYcA==";
        gone(&[
            (&format!("transifex: tx init then paste 1/{hex40}"), hex40),
            (&format!("unleash: admin token *:*.{hex56}"), hex56),
            (&format!("UNLEASH_TOKEN=shop:production.{hex56}"), hex56),
            (&format!("bitwarden: machine account access token {bw}"), bw),
        ]);
        kept(&[
            "the ratio is 1/4 of the traffic",
            "time: 12:30.5 on the clock",
            "see docs/1/index.html",
            "version 0.4.2:beta",
        ]);
    }

    #[test]
    fn an_akamai_token_but_not_its_host() {
        let token = "akab-wjjcwfhmud7otaah-846mytdtdy4moff3";
        gone(&[
            (
                &format!("akamai: the EdgeGrid access_token is {token}"),
                token,
            ),
            (&format!("client_token = {token}."), token),
        ]);
        kept(&[&format!("host = {token}.luna.akamaiapis.net")]);
    }

    #[test]
    fn amazon_lwa_secrets_and_ebay_cert_ids_but_not_ebay_app_ids() {
        let lwa = format!(
            "amzn1.oa2-cs.v1.{}",
            "6fd45b96f7be7e2542f0c4b18f8bd85a".repeat(2)
        );
        let cert = "PRD-19638aa729f3-b45c-7e17-7efc-9945";
        gone(&[
            (&format!("amazon sp-api: LWA client secret {lwa}"), &lwa),
            (&format!("EBAY_CERT_ID={cert}"), cert),
        ]);
        kept(&[
            "EBAY_APP_ID=Acme-Shop-PRD-4f1a2b3c-9d8e7f6a",
            "LWA_CLIENT_ID=amzn1.application-oa2-client.4f1a2b3c4d5e6f708192a3b4c5d6e7f8",
        ]);
    }

    #[test]
    fn a_trello_token_anywhere_and_not_a_word_starting_atta() {
        let token = "ATTA2d9fe5278434d70aa1d78fb360d1ddf0316f6958ccfde27831c80ecf42d0aa70E8FC7803";
        gone(&[(
            &format!("const trello = new Trello(\"4f1a2b3c\", \"{token}\");"),
            token,
        )]);
        kept(&["ATTACHMENT_DIR=/srv/files", "the ATTACK matrix is in docs/"]);
    }
}
