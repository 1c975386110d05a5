//! `own.toml`'s rules against their own examples (gitleaks' generator does the same for
//! its rules): each `tps` text holds a secret the rule finds and the whole scanner
//! redacts, no `fps` text has one the rule finds; then the cases our rules were written
//! for, through the whole scanner.

use super::rules::{Rule, compiled, own_file};
use super::scan;
use crate::tests::{gone, kept};

/// True if `rule` finds a secret in `text`: a keyword present (or none asked) and a match.
fn finds(rule: &Rule, text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    (rule.keywords.is_empty() || rule.keywords.iter().any(|k| lower.contains(k.as_str())))
        && rule.matches(text.as_bytes()).next().is_some()
}

#[test]
fn every_own_rule_finds_its_true_positives_and_none_of_its_false_ones() {
    let file = own_file();
    let rules = compiled(&file, false, &mut Vec::new());
    assert_eq!(rules.len(), file.rules.len(), "every own rule has a regex");
    let mut wrong = Vec::new();
    for (n, (r, rule)) in file.rules.iter().zip(&rules).enumerate() {
        if r.tps.is_empty() || r.fps.is_empty() {
            wrong.push(format!("rule {n} ({}) lacks tps or fps", r.id));
        }
        for tp in &r.tps {
            if !finds(rule, tp) {
                wrong.push(format!("rule {n} ({}) misses its tp {tp:?}", r.id));
            } else if scan(tp).kinds.is_empty() {
                wrong.push(format!("the scanner keeps rule {n}'s ({}) tp {tp:?}", r.id));
            }
        }
        for fp in &r.fps {
            if finds(rule, fp) {
                wrong.push(format!("rule {n} ({}) finds its fp {fp:?}", r.id));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn rabbitmq_users_password_even_of_repeated_words() {
    gone(&[
        (
            "rabbitmqctl add_user shop bucket_magnet_garden_magnet_ladder",
            "bucket_magnet_garden_magnet_ladder",
        ),
        ("rabbitmqctl change_password shop Xk29dj3kfA", "Xk29dj3kfA"),
    ]);
    kept(&[
        "rabbitmqctl add_user shop shop_user",
        "rabbitmqctl list_users",
    ]);
}

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
