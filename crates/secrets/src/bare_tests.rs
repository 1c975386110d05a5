//! Tests of [`super`]: credentials pasted into sentences that name nothing, and the ids,
//! versions and words that must stay.

use super::bare;

fn found(t: &str) -> Vec<&str> {
    let mut out = Vec::new();
    bare(t.as_bytes(), &mut out);
    out.into_iter()
        .map(|r| t.get(r).expect("a found range is a char boundary"))
        .collect()
}

#[test]
fn a_credential_pasted_into_a_sentence() {
    assert_eq!(
        found("Sorry, wrong channel — ignore kcklrmvskrwav13"),
        ["kcklrmvskrwav13"]
    );
    assert_eq!(
        found("my bad, I pasted Zr8kQ2vLm4Tx here earlier"),
        ["Zr8kQ2vLm4Tx"]
    );
    assert_eq!(
        found("We're standardising on d9wvcu8so9 for the local databases"),
        ["d9wvcu8so9"]
    );
    let hex = "4484741f021120b159f70d1413c55a0e9d2c7b6a5f4e3d2c1b0a9f8e7d6c5b4a";
    assert_eq!(
        found(&format!("webhooks from Shopify are verified with {hex}")),
        [hex]
    );
    // Random strings a vowel test takes for words, or that start in lower case.
    for (t, secret) in [
        (
            "whoops, llq15jj0fz4diqo was in yesterday's screenshot",
            "llq15jj0fz4diqo",
        ),
        (
            "ugh, pasted 31nUvxpeghu4b5YboxeNe in the wrong channel",
            "31nUvxpeghu4b5YboxeNe",
        ),
        (
            "the legacy FTP still takes ftpuser with ffcLUjLkRJ3PDDVgP5Lc",
            "ffcLUjLkRJ3PDDVgP5Lc",
        ),
        (
            "copying it here so it isn't lost: OxR2zYuLKRov",
            "OxR2zYuLKRov",
        ),
        (
            "ugh, pasted MZsWDzTmUYiV in the wrong channel",
            "MZsWDzTmUYiV",
        ),
    ] {
        assert_eq!(found(t), [secret], "{t}");
    }
    assert_eq!(found("otZeZEgeLj"), ["otZeZEgeLj"]);
    // Symbols a sentence's punctuation checks took for an assignment or an address.
    for (t, secret) in [
        (
            "ugh, pasted leZvtEga4wO5=dor89Qtv in the wrong channel",
            "leZvtEga4wO5=dor89Qtv",
        ),
        (
            "ugh, pasted xVxz6m+kgG@a.5fZ1 in the wrong channel",
            "xVxz6m+kgG@a.5fZ1",
        ),
        (
            "copying it here so it isn't lost: nuuzcvlnldxu0ah",
            "nuuzcvlnldxu0ah",
        ),
    ] {
        assert_eq!(found(t), [secret], "{t}");
    }
    assert_eq!(found("dcm@=MbXDuC"), ["dcm@=MbXDuC"]);
    // Eight to eleven lower-case letters, one digit or none, whose pairs are not English;
    // random letters a symbol ends; random letters before an `=`.
    for secret in [
        "pqw8oxgw",
        "phdtnzuxrk",
        "kqpngjwqxdo",
        "CfpHzXlLA^",
        "BUTTJzzEwbepFABLnH&",
        "sTxHfisXlEF=GN4yZpRE0G",
    ] {
        let t = format!("ugh, pasted {secret} in the wrong channel");
        assert_eq!(found(&t), [secret], "{t}");
    }
}

#[test]
fn ids_versions_and_words_in_a_sentence_are_not() {
    for t in [
        "The Grafana dashboard uid is aeb7x2q9k1mz; panel 14 shows queue depth",
        "Figma file key Bq7XwR3kP9mTzL2vN8cY4d (design system v3)",
        "commit 7c4e2f1a9b3d fixes the off-by-one in the paginator",
        "the Docker volume pgdata2024q4 can be deleted after the restore",
        "we moved to Python3.12 and the iPhone15Pro simulator for the tests",
        "the charset is utf8mb4 and the release2024 branch is frozen",
        "the container k8s2node3 keeps getting evicted on the spot pool",
        "YouTube demo video dQw4w9WgXcQ shows the flow",
        "see https://example.com/a/Zr8kQ2vLm4Tx for the details",
        "we store share codes like q7Xk2mPz9T in the links table",
        "the sha256 of the tarball is 3f5a0c7d9e2b4a6c8d1e0f9a7b5c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c",
        "reverted 9fceb02d0ae598e95dc970b74767f19372d61af8 after the outage",
        "we moved the PostgreSQL and GitHubActions docs to the JavaScript section",
        "the Mistral7B model and the iPhone15Pro run the demo",
        "Airtable base appX1y2Z3a4B5c6D7 holds the roadmap",
        "we set maxConnections=100 and FOO_BAR=baz in the staging overrides",
        "we set userId=7 and cacheTtlSeconds=300 and retryBackoffMs=250 for the test",
        "pinned typescript@5.4 and log in as ubuntu@10.0.4.7 for the bastion",
        "the dashboards moved to grafana.example.com last sprint",
        "check journalctl and pgbouncer, then revert dfdd7aee and zazabczabcz",
    ] {
        assert!(found(t).is_empty(), "{t}: {:?}", found(t));
    }
    // Not prose: a line of code or settings is judged by the other checks.
    assert!(found("x = Zr8kQ2vLm4Tx").is_empty());
}
