//! Passwords found by their shape (step 4 of the scan), where no rule names the tool or
//! the key: every tool spells its password argument its own way, often positionally
//! (`nmcli … password X`, `zip -P X`, `sqlplus user/X@db`), code passes them as plain
//! string literals, and people tell passwords in sentences. The shapes themselves are in
//! [`super::looks`]; here are the contexts, each with the shape it demands (a JSON line's
//! string values are also checked as lines of their own: `{"cmd":"hydra -p X …"}`):
//!
//! - Anywhere, a *marked* word (8–64 characters with upper case, lower case, a digit and
//!   one of `!#%&*?^~$`): `psk="Marble7577#"`, `backup:Jasper7427!`. Prose, code
//!   (brackets, dots and parentheses are not in the set), paths, URLs, versions, base64
//!   and `$VARIABLES` are not. A word with four digits that are not a year, or a mark
//!   (`Clover1853`, `Ridge124@`).
//! - Anywhere, a random string of 14–64 characters with three or more letters of each
//!   case (`RsYpr6zgECkiQVPCLO2mixX`), and the other context-free shapes of
//!   [`super::looks::random_other`]: not words (`HTTPServer2ConnectionPool`), not an id
//!   whose type is spelt before it (`recK2p9Q…`, `mem-01M8…`), not a value of a name
//!   ending in `id`/`user`/`host`, not a public key's body.
//! - Anywhere, a password beside its account ([`super::pairs`]).
//! - Anywhere, a quoted value that is random-looking (`auth=('admin', 'Wga5WXFRsb=uaNX')`)
//!   or a word with four digits or a mark (`"Lilac3920@"`); not what is known to be
//!   public (integrity hashes, JWKS members) nor an id with a prefix (`cus_…`).
//! - On a line that looks like a shell command: see [`super::command`].
//! - In a sentence that says password: see [`super::told`]; in one that does not, see
//!   [`super::bare`].

use std::ops::Range;

use super::command::{command_line, on_command_line};
use super::looks::{random_anywhere, random_mixed, random_other, shaped, strong, word_with_digits};
use super::value::random_letters;

/// The words of `line` from `from`: byte ranges split at whitespace.
pub(super) fn words(line: &[u8], from: usize) -> Vec<Range<usize>> {
    let mut w = Vec::new();
    let mut i = from;
    while i < line.len() {
        if line[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let s = i;
        while i < line.len() && !line[i].is_ascii_whitespace() {
            i += 1;
        }
        w.push(s..i);
    }
    w
}

/// Quoted values anywhere (`auth=('admin', 'Wga5WXFRsb=uaNXY_')`, `"app", "Lilac3920@"`):
/// random-looking, or a word with four digits or a mark.
fn quoted_anywhere(line: &[u8], out: &mut Vec<Range<usize>>) {
    let mut i = 0;
    while i < line.len() {
        let q = line[i];
        if q != b'\'' && q != b'"' {
            i += 1;
            continue;
        }
        let s = i + 1;
        let Some(len) = line[s..].iter().position(|&b| b == q) else {
            return;
        };
        // An escape the quoted string ends with is not part of the value (`send "X\r"`).
        let mut end = s + len;
        while end >= s + 2 && line[end - 2] == b'\\' && b"rnt".contains(&line[end - 1]) {
            end -= 2;
        }
        let v = &line[s..end];
        if !v.iter().any(u8::is_ascii_whitespace)
            && (((random_mixed(v) || (v.len() >= 14 && random_letters(v)))
                && !super::value::known_public(line, s..s + len))
                || (word_with_digits(v) && strong(v)))
        {
            out.push(s..end);
        }
        i = s + len + 1;
    }
}

/// Marked words anywhere (`psk="Marble7577#"`, `backup:Jasper7427!`): the shape alone,
/// pieces split at `= : , ; "` `'` and brackets.
fn marked_anywhere(line: &[u8], top: bool, out: &mut Vec<Range<usize>>) {
    let sep = |b: u8| b.is_ascii_whitespace() || b"=:,;\"'`()[]{}<>".contains(&b);
    // The line's words, read once and only if a value needs them.
    let ids = std::cell::OnceCell::new();
    let mut i = 0;
    while i < line.len() {
        if sep(line[i]) {
            i += 1;
            continue;
        }
        let s = i;
        while i < line.len() && !sep(line[i]) {
            i += 1;
        }
        // A sentence's last word keeps its own marks but not the full stop.
        let e = if i - s > 8 && line[i - 1] == b'.' {
            i - 1
        } else {
            i
        };
        let t = &line[s..e];
        // …and random strings of 14 or more (`RsYpr6zgECkiQVPCLO2mixX`), unless public.
        if super::value::crypt_hash(line, s) {
            continue; // a piece of `$6$rounds=4096$salt$…`
        }
        let top = top
            && !names_public_value(line, s)
            && !ids.get_or_init(|| super::bare::Ids::new(line)).named(s);
        // A word with four digits or a mark (`Clover1853`, `Ridge1246@`) is what people
        // pick as a password, wherever it is written — but a word and a year is also a
        // product (`Server2022`) or the example of a weak password (`Summer2024`).
        if shaped(t)
            || (word_with_digits(t) && anywhere_digits(t))
            || (top && random_anywhere(t) && !super::value::known_public(line, s..e))
            || (top && random_other(t) && !super::value::public_marker(line, s..e))
        {
            out.push(s..e);
        }
    }
}

/// True if the value at `at` is assigned to a name that says it is public — an id, a
/// user, a host, a model (`ELEVENLABS_VOICE_ID=21m00Tcm…`, `"user": "…"`): random-looking
/// values there are ids, not secrets.
fn names_public_value(line: &[u8], at: usize) -> bool {
    let mut i = at;
    while i > 0 && matches!(line[i - 1], b'"' | b'\'' | b' ') {
        i -= 1;
    }
    if i == 0 || !matches!(line[i - 1], b'=' | b':') {
        return false;
    }
    let end = i - 1;
    let mut start = end;
    while start > 0 && matches!(line[start - 1], b'"' | b'\'') {
        start -= 1;
    }
    let name_end = start;
    while start > 0 && (line[start - 1].is_ascii_alphanumeric() || line[start - 1] == b'_') {
        start -= 1;
    }
    let original = &line[start..name_end];
    // `apiKeyId`, `tokenID`: camel case ends in an id too.
    let camel_id = original.len() > 2
        && (original.ends_with(b"Id") || original.ends_with(b"ID"))
        && original[original.len() - 3].is_ascii_lowercase();
    if camel_id {
        return true;
    }
    let name = original.to_ascii_lowercase();
    const ENDS: [&[u8]; 13] = [
        b"id",
        b"uid",
        b"sid",
        b"uuid",
        b"user",
        b"username",
        b"name",
        b"host",
        b"url",
        b"region",
        b"model",
        b"email",
        b"domain",
    ];
    !name.is_empty()
        && ENDS.iter().any(|e| {
            name.ends_with(e) && (name.len() == e.len() || name[name.len() - e.len() - 1] == b'_')
        })
}

/// The digits and marks that make a word with digits a password with no context: four
/// digits that are not a year (`Clover1853`; `Server2022` is a product, `Summer2024` the
/// example of a weak one), or a mark that does not end a sentence (`Ridge124@`;
/// `Node18!` is an exclamation).
pub(super) fn anywhere_digits(t: &[u8]) -> bool {
    let core = t.strip_suffix(b"!").or(t.strip_suffix(b"?")).unwrap_or(t);
    let digits = core.iter().filter(|b| b.is_ascii_digit()).count();
    (digits >= 4 && !ends_in_year(core)) || core.iter().any(|b| b"#%&*^~$@".contains(b))
}

/// True if `t` ends in a year from 1950 to 2099 (`Server2022`).
fn ends_in_year(t: &[u8]) -> bool {
    let digits = t.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    digits == 4
        && std::str::from_utf8(&t[t.len() - 4..])
            .ok()
            .and_then(|y| y.parse::<u32>().ok())
            .is_some_and(|y| (1950..=2099).contains(&y))
}

/// The string values of a JSON line (`{"cmd":"hydra -l admin -p X …"}`), each scanned as
/// a line of its own.
fn json_strings(line: &[u8]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < line.len() {
        if line[i] != b'"' {
            i += 1;
            continue;
        }
        let s = i + 1;
        i = s;
        while i < line.len() && line[i] != b'"' {
            i += if line[i] == b'\\' { 2 } else { 1 };
        }
        out.push(s..i.min(line.len()));
        i += 1;
    }
    out
}

/// Findings in one line; `top` is false for a JSON string scanned on its own, where the
/// line around it (a JWKS member's name) is not in view: random strings are judged only
/// with their context.
fn one_line(line: &[u8], top: bool, out: &mut Vec<Range<usize>>) {
    quoted_anywhere(line, out);
    super::pairs::pairs(line, out);
    // A sentence may start in lower case and look like a command: both are checked.
    super::told::told(line, out);
    super::bare::bare(line, out);
    match command_line(line) {
        Some(from) => on_command_line(line, from, out),
        None => marked_anywhere(line, top, out),
    }
}

/// The byte ranges of passwords found by their shape in `bytes` (see the module doc).
pub(super) fn password_shaped_args(bytes: &[u8]) -> Vec<(Range<usize>, &'static str)> {
    let mut out = Vec::new();
    let mut at = 0;
    // The body of a public key or certificate is public, whatever its lines look like.
    let public = super::value::public_blocks(bytes);
    for line in bytes.split(|&b| b == b'\n') {
        if public.iter().any(|p| p.contains(&at)) {
            at += line.len() + 1;
            continue;
        }
        let mut found = Vec::new();
        one_line(line, true, &mut found);
        if line.trim_ascii_start().starts_with(b"{") || line.trim_ascii_start().starts_with(b"[") {
            for r in json_strings(line) {
                let mut inner = Vec::new();
                one_line(&line[r.clone()], false, &mut inner);
                found.extend(
                    inner
                        .into_iter()
                        .map(|x| r.start + x.start..r.start + x.end),
                );
            }
        }
        out.extend(
            found
                .into_iter()
                .filter(|r| !super::value::public_id(&line[r.clone()]))
                .map(|r| (at + r.start..at + r.end, "cli-password")),
        );
        at += line.len() + 1;
    }
    out
}

#[cfg(test)]
mod tests {
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
        merged.into_iter().map(|r| &t[r]).collect()
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
        let phrase =
            "orbit candle river maple kettle garden velvet hammer engine carpet bucket napkin";
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
}
