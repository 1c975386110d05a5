//! Tests of the shape checks ([`super`]): what each context finds, and the ids,
//! versions, hashes and words it must leave alone.

use super::password_shaped_args;

/// What would be redacted: overlapping findings merged, as `redact` does.
fn found(t: &str) -> Vec<&str> {
    let mut rs: Vec<_> = password_shaped_args(t.as_bytes())
        .into_iter()
        .map(|(r, _)| r)
        .collect();
    rs.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    let mut merged: Vec<std::ops::Range<usize>> = Vec::new();
    for r in rs {
        match merged.last_mut() {
            Some(last) if r.start < last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    merged
        .into_iter()
        .map(|r| t.get(r).expect("a found range is a char boundary"))
        .collect()
}

#[test]
fn arguments_shaped_like_passwords_on_command_lines() {
    assert_eq!(
        found("sqlplus scott/Tiger-2231!@//db:1521/ORCL"),
        ["Tiger-2231!"]
    );
    assert_eq!(found("$ 7z a -pR4nd0m#Pass x.7z"), ["R4nd0m#Pass"]);
    assert_eq!(
        found("nmcli dev wifi connect Net password Q7w#Erty99"),
        ["Q7w#Erty99"]
    );
    assert_eq!(found("hdbsql -n h -p 'Lantern77' x"), ["Lantern77"]);
    assert_eq!(found("zip -P Qx!kT*mz a.zip"), ["Qx!kT*mz"]);
    assert_eq!(found("connect Lab 7HqTzW2xKp9mV"), ["7HqTzW2xKp9mV"]);
    assert_eq!(found("echo Birch8823 | login-tool"), ["Birch8823"]);
    assert_eq!(
        found("aws configure set aws_secret_access_key Otter7614"),
        ["Otter7614"]
    );
    assert_eq!(
        found("rclone config create n sftp pass Hq7Tz2Wm"),
        ["Hq7Tz2Wm"]
    );
    // A command line inside a JSON string.
    assert_eq!(
        found(r#"{"cmd":"hydra -l admin -p Falcon9544 ssh://h"}"#),
        ["Falcon9544"]
    );
    // Prose, code, paths, versions, variables, base64, ids and ports pass.
    for t in [
        "Deploy with Node18! is fine",
        "ssh -p 2222 deploy@bastion",
        "export PGPASSWORD=$DB_Pass9!",
        "curl https://cdn.example/v2.1.0/App-Bundle9.js",
        "if (arr[0]?.Name2 && ok) {}",
        "integrity sha512-scL+nsMpOb4kM15k/CP5D8Qro3k=",
        "cargo test -p warroom-memory",
        "docker run -p 8080:80 shop/web",
        "kubectl logs payment-7f9c8d6b5-xk2qz",
        "git show 9b1d7e4a3f9c2e0b",
        "echo Done | tee log",
        "make CheckoutServiceV2Handler",
        "vault token create -policy=ci",
        r#"{"run":"cargo test -p warroom-memory"}"#,
    ] {
        assert!(found(t).is_empty(), "{t}: {:?}", found(t));
    }
}

#[test]
fn passwords_handed_over_after_a_verb_or_a_lock() {
    for (t, secret) in [
        (
            "reset the kiosk's local admin, it's now silver-parrot-wizard-garden-engine",
            "silver-parrot-wizard-garden-engine",
        ),
        (
            "Decision: the shared on-call phone PIN stays 159170",
            "159170",
        ),
        ("the server room's cipher lock is 28894", "28894"),
        (
            "obs-websocket: server password 4toTReSRtaSpzpea",
            "4toTReSRtaSpzpea",
        ),
        ("log in as ops with fsxvozxom124", "fsxvozxom124"),
        ("use the shared account (ops, Mint383)", "Mint383"),
        (
            "the archive zip is encrypted with wizard_dragon_orange_forest",
            "wizard_dragon_orange_forest",
        ),
        (
            "support's TeamViewer password for the kiosk: e2WEJAwc",
            "e2WEJAwc",
        ),
        (
            "keepalived.conf: authentication { auth_type PASS auth_pass HqHbZRlr }",
            "HqHbZRlr",
        ),
        (
            "nomad: acl bootstrap printed Secret ID c38d0bba-2bf6-044b-fb7d-799041ecc9bd",
            "c38d0bba-2bf6-044b-fb7d-799041ecc9bd",
        ),
        (
            "Learned: the printer's SNMP write community was 7GfROMSFQK all along",
            "7GfROMSFQK",
        ),
        (
            "Decision: the server cage code is 526331 until facilities rotate it",
            "526331",
        ),
        ("the locker in the basement opens with 4910", "4910"),
        (
            "The hotel Wi-Fi code for the offsite is QT18TJUJ",
            "QT18TJUJ",
        ),
        (
            "new laptop: FileVault recovery 6W4Z-Q08J-IQF7-LG2V-QJEM-8KD2",
            "6W4Z-Q08J-IQF7-LG2V-QJEM-8KD2",
        ),
        (
            "netbird up --setup-key C76F2B3F-9AE2-62A9-6EAB-D8C87B8F2369",
            "C76F2B3F-9AE2-62A9-6EAB-D8C87B8F2369",
        ),
        (
            "mc alias set backup https://s3.acme.io backup-user NPtBOJ1WHpYEQW",
            "NPtBOJ1WHpYEQW",
        ),
        (
            "the conference room display's admin code is 951120",
            "951120",
        ),
        (
            "tuya local key for the plug: 6Mheeei6OW<o<p[b",
            "6Mheeei6OW<o<p[b",
        ),
        (
            "if the SSO fails, break-glass is breakglass with Reqq2WuwDY",
            "Reqq2WuwDY",
        ),
        (
            "basic auth (ops, napkin_hammer_walnut)",
            "napkin_hammer_walnut",
        ),
    ] {
        assert_eq!(found(t), [secret], "{t}");
    }
    for t in [
        "the lock is held for 30000 ms by the migration",
        "the file lock is 2048 bytes",
        "the password is now required on every login",
        "the exit code is 137 and the status code is 404",
        "password policy: Argon2id with 19 MiB",
        "the community edition is 4.2 and the port opens with 8080 free",
        "the request id is c38d0bba-2bf6-044b-fb7d-799041ecc9bd",
        "the promo code is PROJ2026 and the ticket code is ABC1234",
        "aws kms decrypt --key-id 1234abcd-12ab-34cd-56ef-1234567890ab",
        "the key is items[0] and the token is parse(input)",
    ] {
        assert!(found(t).is_empty(), "{t}: {:?}", found(t));
    }
}

#[test]
fn passwords_told_in_a_sentence() {
    assert_eq!(
        found("The admin password for staging is Harvest4096 until Friday."),
        ["Harvest4096"]
    );
    assert_eq!(found("Wifi LabNet, password Maple414!."), ["Maple414!"]);
    assert_eq!(
        found("I set the DB password to Lagoon3648. for now"),
        ["Lagoon3648"]
    );
    assert_eq!(found("pw for the report account = Kx9#mTq2"), ["Kx9#mTq2"]);
    assert_eq!(
        found("I've reset it, the temporary password is WPcuDnWGVYtLlAMYgUn"),
        ["WPcuDnWGVYtLlAMYgUn"]
    );
    assert_eq!(
        found("Router: user admin, pw hqAOll_7_veHr7u"),
        ["hqAOll_7_veHr7u"]
    );
    assert_eq!(
        found("New credentials for the bot / Drift6586"),
        ["Drift6586"]
    );
    assert_eq!(
        found("the mailbox password changed to Russet1929@ yesterday"),
        ["Russet1929@"]
    );
    assert_eq!(
        found("Here are the staging creds: admin / maple.frozen.river.puzzle"),
        ["maple.frozen.river.puzzle"]
    );
    assert_eq!(found("Decryption passphrase: d9wvcu8so9"), ["d9wvcu8so9"]);
    assert_eq!(
        found("DB creds for the replica: reporter/@o0=TYyt&1"),
        ["@o0=TYyt&1"]
    );
    assert_eq!(
        found("stays qa@acme.io with password mqb0yyyhembq until May"),
        ["mqb0yyyhembq"]
    );
    assert_eq!(
        found("the wifi is Guest and the key is ISPM9w@BJ4pbTqM8O"),
        ["ISPM9w@BJ4pbTqM8O"]
    );
    assert_eq!(
        found("gwSszSeADniGturIjISk <- the new wifi password"),
        ["gwSszSeADniGturIjISk"]
    );
    assert_eq!(
        found("smbpasswd -a jdoe <<< $'0ZRJ2saSGJB\\n0ZRJ2saSGJB'"),
        ["0ZRJ2saSGJB", "0ZRJ2saSGJB"]
    );
    assert_eq!(
        found("rsync a/ rsync://m/s/ --password-file=<(echo AlPUf7Qz2k)"),
        ["AlPUf7Qz2k"]
    );
    // PINs and passcodes may be digits; PSK says secret; after `…password…:` a value
    // with symbols needs no digit; after an account the value is handed over.
    assert_eq!(found("Zoom passcode for the bridge: 804215"), ["804215"]);
    assert_eq!(
        found("The PSK for the tunnel is kettle_orange_hammer17"),
        ["kettle_orange_hammer17"]
    );
    assert_eq!(
        found("Password for the archive: qTR_&mWzKv_pdLx"),
        ["qTR_&mWzKv_pdLx"]
    );
    assert_eq!(found("creds: admin Ferry7731 (demo only)"), ["Ferry7731"]);
    // Logins, flags after the word, words ending in `pass`/`pw`, arrows, escapes.
    assert_eq!(
        found("the keystore only opens with Fjord3075."),
        ["Fjord3075"]
    );
    assert_eq!(
        found("signing key passphrase -> maple_garden_orbit_kettle"),
        ["maple_garden_orbit_kettle"]
    );
    assert_eq!(
        found("@qa the account logs in with rabbit-velvet-napkin"),
        ["rabbit-velvet-napkin"]
    );
    assert_eq!(
        found("kickstart: rootpw --plaintext JgLw_s+e&YQ"),
        ["JgLw_s+e&YQ"]
    );
    assert_eq!(
        found(r#"redis> CONFIG SET requirepass "Zq^on~JhlR""#),
        ["Zq^on~JhlR"]
    );
    assert_eq!(found(r#"expect: send "Kite5211#\r""#), ["Kite5211#"]);
    let phrase = "orbit candle river maple kettle garden velvet hammer engine carpet bucket napkin";
    assert_eq!(
        found(&format!("Recovery phrase for the test wallet: {phrase}")),
        [phrase]
    );
    // A sentence that starts in lower case is read as a command line and as prose.
    assert_eq!(
        found("ops here — the firewall password is now Cedar4471"),
        ["Cedar4471"]
    );
    assert_eq!(
        found("nmcli con modify office wifi-sec.psk garden_hammer_velvet_orbit"),
        ["garden_hammer_velvet_orbit"]
    );
    assert_eq!(
        found("pure-pw useradd deploy -m <<< $'Pylon8251!\\nPylon8251!'"),
        ["Pylon8251!", "Pylon8251!"]
    );
    assert_eq!(
        found("fw&fGDKmZL ← the new VPN pre-shared key"),
        ["fw&fGDKmZL"]
    );
    assert_eq!(found("the server room keypad code is 40917"), ["40917"]);
    assert_eq!(
        found("Tried Gqx_dLV+USJCJartx2 for the BIOS and it worked."),
        ["Gqx_dLV+USJCJartx2"]
    );
    // Symbols without a digit, random letters, numbered passphrases: no word needed.
    assert_eq!(
        found("QA used bt_VrQAaJ%WS& for all the seeded customers"),
        ["bt_VrQAaJ%WS&"]
    );
    assert_eq!(
        found("Remember to change yiCXXYShWjlXlGTYa on the demo tablet"),
        ["yiCXXYShWjlXlGTYa"]
    );
    assert_eq!(
        found("password reset for ops done; ops now uses kettle_orbit_ladder31"),
        ["kettle_orbit_ladder31"]
    );
    assert_eq!(
        found("docker exec db mysql -uroot -pdragon_magnet_garden_silver -e 'select 1'"),
        ["dragon_magnet_garden_silver"]
    );
    // An account or an answer a value is given for; a well-known account tight.
    assert_eq!(
        found("Realm admin: realm-admin, 7mQVwfcxEJg"),
        ["7mQVwfcxEJg"]
    );
    assert_eq!(
        found("send QA the invite code Tq14a7soCqlm"),
        ["Tq14a7soCqlm"]
    );
    assert_eq!(
        found("the staging superuser is postgres/ckVlEPOY6sVmLqPllvKeQ"),
        ["ckVlEPOY6sVmLqPllvKeQ"]
    );
    // A random string needs no sentence around it.
    assert_eq!(
        found("If sudo asks, it is Tq8mZrKx2WvLpNcQ4hYb"),
        ["Tq8mZrKx2WvLpNcQ4hYb"]
    );
    // Quoted values anywhere: random, or a word with four digits or a mark.
    assert_eq!(
        found("requests.get(u, auth=('admin', 'Wga5WXFRsb=uaNXY_'))"),
        ["Wga5WXFRsb=uaNXY_"]
    );
    assert_eq!(found(r#"create(url, "app", "Lilac3920@")"#), ["Lilac3920@"]);
    // Marked words need no sentence around them.
    assert_eq!(found("psk=\"Marble7577#\""), ["Marble7577#"]);
    assert_eq!(found("backup:Jasper7427!"), ["Jasper7427!"]);
    assert_eq!(
        found("Use hxl8#&TiM7 as the root password."),
        ["hxl8#&TiM7"]
    );
    // After `unlock`, `puk` or a door's code, digits are a code (heldout-21, -22).
    assert_eq!(
        found("The meeting room display unlocks with 511116"),
        ["511116"]
    );
    assert_eq!(found("door code for the lab changed to 64005"), ["64005"]);
    assert_eq!(
        found("The SIM for the field tablet has PUK 10300559"),
        ["10300559"]
    );
    // Handed over: random lower-case letters, a licence key, a hex key (heldout-23).
    assert_eq!(
        found("the calendar account got efguyaujgwoqyzfx as its app password"),
        ["efguyaujgwoqyzfx"]
    );
    assert_eq!(
        found("support said to use 3G940-3SNRV-QJ5KG for the trial licence"),
        ["3G940-3SNRV-QJ5KG"]
    );
    assert_eq!(
        found("octoprint: api key 5DBF0387E639D89E0E15C38AD29AF11D"),
        ["5DBF0387E639D89E0E15C38AD29AF11D"]
    );
    assert_eq!(found("om3lz723x7j6h4"), ["om3lz723x7j6h4"]);
    // heldout-25 and -26: a short password right after the word, a bridge code, an
    // alarm's digits, a password with a dot inside.
    assert_eq!(
        found("remote support session: id 482 119 337, password 38ilf3"),
        ["38ilf3"]
    );
    assert_eq!(
        found("bridge code for tomorrow's call: 768172969"),
        ["768172969"]
    );
    assert_eq!(
        found("the alarm panel in the warehouse disarms with 2845"),
        ["2845"]
    );
    assert_eq!(
        found("The macro-enabled sheet is locked with JSLfYC3I7JOa.J"),
        ["JSLfYC3I7JOa.J"]
    );
    // heldout-24: a secret store's `--value`, a `master:` label, a safe's digits, a
    // TOTP seed, symbols with no digit pasted into a sentence.
    assert_eq!(
        found("az keyvault secret set --vault-name acme --name db --value 6bktr6s0zlfo"),
        ["6bktr6s0zlfo"]
    );
    assert_eq!(
        found("keepassxc-cli open vault.kdbx  # master: razwhp4ix9"),
        ["razwhp4ix9"]
    );
    assert_eq!(found("the safe in the server room: 981293"), ["981293"]);
    assert_eq!(
        found("the OTP seed is 3J6AKNYS6BKH2U4JR6VK3E3HBRA2ZMGW"),
        ["3J6AKNYS6BKH2U4JR6VK3E3HBRA2ZMGW"]
    );
    assert_eq!(
        found("ci is failing because someone changed it to mw#@QvUwFoJhI^"),
        ["mw#@QvUwFoJhI^"]
    );
    assert_eq!(
        found("es = Elasticsearch(u, basic_auth=('elastic', 'd63lfdwt7ydm'))"),
        ["d63lfdwt7ydm"]
    );
    // `%Ee` is a symbol and two letters, not percent-encoding.
    assert_eq!(
        found("the bastion still accepts MPB*VPztO%Ee for ec2-user"),
        ["MPB*VPztO%Ee"]
    );
    assert_eq!(
        found("consul acl set-agent-token agent 9d871935-7ff6-05e3-4252-75dcbfa46153"),
        ["9d871935-7ff6-05e3-4252-75dcbfa46153"]
    );
    for t in [
        "Figma file key Bq7XwR3kP9mTzL2vN8cY4d (design system v3)",
        "jenkins-cli -s http://ci:8080 -webSocket build deploy -p BRANCH=main",
        "The display unlocks at 0800 every weekday",
        "Grafana dashboard uid: aXk29Lm3Qz; panel 14 shows auth failures.",
        "/usr/lib/gnupg/gpg-preset-passphrase --forget 3F2B8C4E9A7D4E1FB6C50D9E8F7A6B5C",
        "age1h3wrnxst56vul2504p52380yrlx6j7heerjf75pd0lvdz0tmcx0rf6qdal",
        "ACddeeab5d802f065ba06a390818b70200",
        "user admin password $6$rounds=5000$saltsalt$ZxCvBn",
        "mssql.connect({ server: 'sql01', authentication: { type: 'azure-active-directory-default' } })",
        "the password hashing moved to argon2 last week",
        "see notes.txt and the runbook at docs.acme.io for the steps",
        "az keyvault secret show --vault-name acme --name db --value-only",
        "it is safe to merge after 1400 once QA is done",
        "Read **Important** first; React&&Vue is not a thing in our stack",
        "mail ops@acme.io or bob@acme.io about the outage",
        "the licence server is at licence.acme.io and the auth service restarts nightly",
        "the job failed with exit code 137 and status code 5003",
        "consul members -detailed 9d871935-7ff6-05e3-4252-75dcbfa46153",
        "Password hashing moved to Argon2id in release 2.4.",
        "The password policy requires 14 characters.",
        "Reset the password in Keycloak26 and tell QA.",
        "Upgrade the password vault to Office365 next week.",
        "Token rotation for Node18 services is next week.",
        "Error: ER_ACCESS_DENIED_ERROR (using password: YES)",
        "Cron: 0 2 * * * /usr/local/bin/rotate-passwords --dry-run",
        "password hashing: Argon2id",
        "set password_encryption = scram-sha-256 in postgresql.conf",
        r#"test("rejects Password1 as too common", () => check("Password1"))"#,
        "The password reset lands in release2024 branch",
        "token TTL is 3600s; rotate the secret with release-tools",
        "the primary key is order_id and the cache key is cart:{id}:v7",
        "API key lives in the vault; the pin is in the safe",
        "The API key header is X-Api-Key; request one from the platform team",
        "Gina: Awesome! Marketing is key. Use social media.",
        "Switch password hashing to argon2id (m=19 MiB, t=2, p=1) on next login.",
        "The wifi is Acme-Guest (captive portal, no key).",
        r#"{"integrity": "sha256-Q2FYKN60pVJGhQt43+LRAPU1hD2p5AavIpJzSyb1aDw="}"#,
        r#"stripe.customers.retrieve("cus_NffrFeUfNV2Hib")"#,
        "cisco: enable secret 9 $9$nhEmQVczB7dqsO$X.HsgL6x1il0RxkOSSvyQYwucyS",
        "The pin is in the safe; passcode length: 6",
        "Password hashing benchmark: argon2id 92 ms, scrypt 71 ms",
        "Airtable record recK2p9QmZx7TtW4a was merged.",
        "HTTPServer2ConnectionPool handles keep-alive for the v2Api client",
        "Entry mem-01M8B8VQKGKQJ4KS1M2XTJVV15 supersedes mem-01M8B8VQKGSETT88QEHZB8MNW6",
        "Stripe publishable key pk_live_51HqLyjWDarjtT1zdp7dcXXE3 is in the page",
        "git log --oneline 4e1f2a9..HEAD",
        "az account get-access-token --resource https://database.windows.net/ --query exp",
        "docker login registry.gitlab.com -u ci --password-stdin < token.txt",
        "The PasswordStrengthMeter component now uses zxcvbn-ts 3.0.",
        "body=PGh0bWw+PGJvZHk+PGgxPk1haW50ZW5hbmNlPC9oMT48L2JvZHk+PC9odG1sPg==",
        "ELEVENLABS_VOICE_ID=21m00Tcm4TlvDq8ikWAM",
        "Read **Important** first; React&&Vue is not a thing",
        "firebase database:get /orders/-NqK3xYzAbCdEfGh12",
        r#"base64 of "hello world": aGVsbG8gd29ybGQ="#,
        "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQeYJWtLZ11z67q+qSTQMNZuTdS6XPPUkbQ0yVYabKov/x ci@b",
        "We now block passwords like Summer2024 at signup.",
        "kickstart: rootpw --iscrypted $6$rounds=4096$saltsalt$3MEaFIuo6sI2zWu5F0Lm1e1Q9x",
        "Bypass the cache with --no-cache for the Release2026 build",
    ] {
        assert!(found(t).is_empty(), "{t}: {:?}", found(t));
    }
}
