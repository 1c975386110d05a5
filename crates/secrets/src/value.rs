//! What a candidate value looks like, once a rule has matched it: a placeholder standing
//! for a secret (`<password>`, `${DB_PASSWORD}`, `%DB_PASS%`, `changeme`), a reference to
//! where the secret is kept (`./db-pass.txt`, `/run/secrets/db`, `@token.txt`), an
//! identifier made of words, or something shaped like a secret. Rules find *where* a
//! secret would be; these judge *whether* the value there is one. Likewise for unlabelled
//! random-looking tokens: what is known to be public (integrity hashes, public keys, data
//! URIs) or is not random at all (base64 of text, identifiers made of words).

use super::words::lists;
use std::ops::Range;

use super::letters::{foreign, random_letters, wordy};

/// Shannon entropy in bits per byte.
pub fn entropy(s: &[u8]) -> f64 {
    if s.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in s {
        counts[b as usize] += 1;
    }
    let n = s.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

fn unquoted(value: &[u8]) -> &[u8] {
    let quote = |c: &u8| matches!(c, b'"' | b'\'' | b'`');
    let start = value.iter().position(|c| !quote(c)).unwrap_or(value.len());
    let end = value
        .iter()
        .rposition(|c| !quote(c))
        .map_or(start, |e| e + 1);
    &value[start..end.max(start)]
}

/// A value that stands for a secret rather than being one.
pub(super) fn placeholder(secret: &[u8]) -> bool {
    let s = String::from_utf8_lossy(unquoted(secret)).to_ascii_lowercase();
    if s.is_empty() || (s.starts_with('<') && s.ends_with('>')) {
        return true;
    }
    // ${VAR}, $VAR, {{ template }}, and Windows' %VAR% — but not a password that merely
    // starts with `%`.
    let windows_var = s.len() > 2
        && s.strip_prefix('%')
            .and_then(|v| v.strip_suffix('%'))
            .is_some_and(|v| v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
    // Terraform/HCL references: `var.db_password`, `local.pw`, `module.db.password`.
    let hcl = ["var.", "local.", "module.", "data."].iter().any(|p| {
        s.strip_prefix(p).is_some_and(|v| {
            v.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-[]\"".contains(&b))
        })
    });
    if s.starts_with('$') || s.starts_with("{{") || windows_var || hcl {
        return true;
    }
    // A setting that turns authentication off (`NEO4J_AUTH=none`).
    if matches!(
        s.as_str(),
        "none" | "null" | "nil" | "false" | "disabled" | "off"
    ) {
        return true;
    }
    lists().placeholder.matches(&s)
}

/// True if `v` says where code or a tool reads the secret from: `process.env.PGPASSWORD`,
/// `os.environ["PW"]`, `System.getenv("PW")`, `ENV.fetch(…)`, an ARN, an Ansible Vault
/// value (`!vault |`), Home Assistant's `!secret name`, HTTPie's `:=@file`.
pub(super) fn read_from(v: &[u8]) -> bool {
    let lower = String::from_utf8_lossy(v).to_ascii_lowercase();
    lists().read_from.matches(&lower)
}

/// A value naming where the secret is kept, not the secret: a relative or home path
/// (`./db-pass.txt`, `~/.pgpass`), an absolute path of two or more parts
/// (`/run/secrets/db`), curl's `@file`, a URL (`proxy_pass http://backend:8080`; credentials
/// in a URL have their own rule), openssl's `env:NAME`, `fd:N`, `stdin`.
pub(super) fn reference(value: &[u8]) -> bool {
    let v = unquoted(value);
    if read_from(v) {
        return true;
    }
    // A store's path of lower-case segments (`airflow/connections/db`, a secret's name in
    // a secrets backend).
    let store_path = v.iter().filter(|&&b| b == b'/').count() >= 2
        && !v.starts_with(b"/")
        && v.split(|&b| b == b'/').all(|seg| {
            !seg.is_empty()
                && seg
                    .iter()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-_".contains(b))
        });
    store_path
        || v.starts_with(b"./")
        || v.starts_with(b"../")
        || v.starts_with(b"~/")
        || v.starts_with(b"file:")
        || v.windows(3).any(|w| w == b"://")
        || v.starts_with(b"env:")
        || v.starts_with(b"fd:")
        || v == b"stdin"
        || (v.starts_with(b"@") && v.len() > 1 && v[1..].iter().all(|b| b.is_ascii_graphic()))
        || (v.starts_with(b"/")
            && v[1..].contains(&b'/')
            && v.iter()
                .all(|b| b.is_ascii_alphanumeric() || b"/._-".contains(b)))
}

/// An unquoted value of a `password=`/`key=` rule must look like a secret, not prose or a
/// name: a digit or a symbol in it, or random letters (mixed case that is not words —
/// `WBPqCqgyawb`, not `MyPassword`), and not lower-case words joined by `-_.`
/// (`redis-auth`, a secret's name) nor a file name (`dump.sql`).
pub(super) fn looks_secret(value: &[u8]) -> bool {
    if value.first().is_some_and(|c| matches!(c, b'"' | b'\'')) {
        return true;
    }
    // Code, not a value: `tokens.next()`, `args[0]`, `{config.key}`.
    if value.iter().any(|c| b"()[]{}<>".contains(c)) {
        return false;
    }
    // A name: lower-case words joined by `-`, `_`, `.` or `/` (`redis-auth`,
    // `db-password`, `airflow/connections/db`).
    let name = value
        .iter()
        .all(|c| c.is_ascii_lowercase() || b"-_./".contains(c))
        // …or a file name (`dump.sql`, `backup-2026.tar.gz`).
        || value.iter().rposition(|&c| c == b'.').is_some_and(|d| {
            (2..=5).contains(&(value.len() - d - 1))
                && value[d + 1..].iter().all(u8::is_ascii_lowercase)
                && value[..d]
                    .iter()
                    .all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(c))
        });
    // Lower-case letters that are no English (`tkdtzxhxs`; not `disabled`).
    let noise = value.len() >= 8 && value.iter().all(u8::is_ascii_lowercase) && foreign(value);
    noise
        || (!name
            && (value
                .iter()
                .any(|c| c.is_ascii_digit() || !(c.is_ascii_alphanumeric() || *c >= 0x80))
                || random_letters(value)))
}

/// The byte ranges of `PUBLIC KEY`, `CERTIFICATE` and PGP public key blocks: their bodies
/// are public.
pub(super) fn public_blocks(bytes: &[u8]) -> Vec<Range<usize>> {
    // On bytes, not text: the ranges index `bytes` itself, whatever its encoding.
    use memchr::memmem::find;
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(b) = bytes.get(from..).and_then(|r| find(r, b"-----BEGIN ")) {
        let begin = from + b;
        let head_end = memchr::memchr(b'\n', &bytes[begin..]).map_or(bytes.len(), |e| begin + e);
        let head = &bytes[begin..head_end];
        let end = find(&bytes[head_end..], b"-----END ").map_or(bytes.len(), |e| head_end + e);
        let has = |k: &[u8]| find(head, k).is_some();
        if (has(b"PUBLIC KEY") || has(b"CERTIFICATE")) && !has(b"PRIVATE") {
            out.push(begin..end);
        }
        from = end.max(begin + 1);
    }
    out
}

/// An id that is public by design though it looks random: Stripe's and Clerk's
/// publishable keys (`pk_live_…`, `pk_test_…`), PostHog's project keys (`phc_…`), an age
/// recipient (`age1` and 58 bech32 characters: a public key files are encrypted to).
/// (reCAPTCHA's site and secret keys share one shape, so neither is judged by it.)
pub(super) fn public_id(t: &[u8]) -> bool {
    let t = unquoted(t);
    let age = t.len() == 62
        && t.starts_with(b"age1")
        && t[4..]
            .iter()
            .all(|b| b"qpzry9x8gf2tvdw0s3jn54khce6mua7l".contains(b));
    // RevenueCat's public SDK keys and Branch's public keys are in every app's code.
    const PUBLIC: [&[u8]; 8] = [
        b"pk_live_",
        b"pk_test_",
        b"phc_",
        b"appl_",
        b"goog_",
        b"amzn_",
        b"key_live_",
        b"key_test_",
    ];
    PUBLIC.iter().any(|p| t.starts_with(p)) || age
}

/// True if `at` lies inside a crypt(3)-style hash (`$6$rounds=4096$salt$…`, Cisco's
/// `$9$…`): a hash, not the password.
pub(super) fn crypt_hash(bytes: &[u8], at: usize) -> bool {
    let word_start = bytes[..at]
        .iter()
        .rposition(|b| b.is_ascii_whitespace() || b"\"'".contains(b))
        .map_or(0, |i| i + 1);
    // The word the position is in, from its start (the token may be the whole word).
    let word = &bytes[word_start..bytes.len().min(word_start + 16)];
    word.first() == Some(&b'$')
        && word[1..].iter().position(|&b| b == b'$').is_some_and(|i| {
            (1..=8).contains(&i)
                && word[1..1 + i]
                    .iter()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// True if `at` lies inside an AWS ARN (`arn:aws:secretsmanager:…:secret:prod/db`): an
/// ARN names a secret, it does not hold one.
pub(super) fn in_arn(bytes: &[u8], at: usize) -> bool {
    let start = bytes[..at]
        .iter()
        .rposition(|b| b.is_ascii_whitespace() || b"=\"'".contains(b))
        .map_or(0, |i| i + 1);
    bytes[start..].starts_with(b"arn:") && at > start
}

/// A random-looking token known to be public, or not random at all (module doc, step 3).
pub(super) fn known_public(bytes: &[u8], r: Range<usize>) -> bool {
    public(bytes, r, true)
}

/// Only the markers of [`known_public`] — hashes, public keys, data URIs, public ids —
/// not its judgement of the token's randomness (`Ledge4473` is made of a word, and still
/// a password).
pub(super) fn public_marker(bytes: &[u8], r: Range<usize>) -> bool {
    public(bytes, r, false)
}

fn public(bytes: &[u8], r: Range<usize>, judge: bool) -> bool {
    let t = &bytes[r.clone()];
    // …also as an assignment's value read as one token (`KNOCK_PUBLIC_API_KEY=pk_test_…`).
    let assigned = t
        .iter()
        .position(|&b| b == b'=')
        .is_some_and(|eq| public_id(&t[eq + 1..]));
    if public_id(t) || assigned {
        return true;
    }
    if crypt_hash(bytes, r.start) {
        return true;
    }
    let before = &bytes[r.start.saturating_sub(24)..r.start];
    let line_start = bytes[..r.start]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = &bytes[line_start..r.start];
    let lower: Vec<u8> = t.iter().take(8).map(u8::to_ascii_lowercase).collect();
    // Integrity and checksum values: npm/SRI `sha512-…`, Nix `sha256-…`, go.sum `h1:…`,
    // pip `--hash=sha256:…`, image digests.
    const HASH_PREFIXES: [&[u8]; 5] = [b"sha1-", b"sha256-", b"sha384-", b"sha512-", b"md5-"];
    // …or labelled as one just before it (`"sha512": "…"`, `content-digest: sha-256=:…`).
    let label = String::from_utf8_lossy(before).to_ascii_lowercase();
    // An HMAC's algorithm names what a *key* is for (`algorithm hmac-sha256; secret "…"`):
    // the value after it is the key, not a digest.
    if HASH_PREFIXES.iter().any(|p| lower.starts_with(p))
        || (lists().hash_label.matches(&label) && !label.contains("hmac"))
    {
        return true;
    }
    // Public keys: the SSH wire format (`ssh-ed25519 AAAA…`), JWKS members.
    if t.starts_with(b"AAAA") && contains(line, b"ssh-") | contains(line, b"ecdsa-sha2-") {
        return true;
    }
    let member = |m: &[u8]| {
        let b = String::from_utf8_lossy(before).replace(' ', "");
        b.ends_with(&String::from_utf8_lossy(m).into_owned())
    };
    if ["\"n\":\"", "\"x\":\"", "\"y\":\"", "\"x5c\":[\""]
        .iter()
        .any(|m| member(m.as_bytes()))
    {
        return true;
    }
    // A value labelled a public key (`PublicKey = xTIBA5…`, WireGuard; `public_key:`).
    let squeezed = label.replace([' ', '_', '-'], "");
    if squeezed.contains("publickey") || squeezed.contains("pubkey") {
        return true;
    }
    // Data URIs.
    if before.ends_with(b";base64,") {
        return true;
    }
    // `name=<base64>` is one token here: judge the value after the name.
    let value = match t.iter().position(|&b| b == b'=') {
        Some(i)
            if (1..=40).contains(&i)
                && t[0].is_ascii_alphabetic()
                && (t[..i].iter().all(u8::is_ascii_alphabetic)
                    || (t[..i].contains(&b'_')
                        && t[..i]
                            .iter()
                            .all(|b| b.is_ascii_alphanumeric() || *b == b'_')))
                && t[i + 1..].iter().any(|&b| b != b'=') =>
        {
            // Too short once its name is off (`ENCRYPTION_ALGORITHM=aes-256-gcm`), or of
            // one case only (`CLOUDFLARE_ACCOUNT_ID=023e105f…`: a hex id; a hex secret
            // under a name that says so is found by the rules that know the name).
            let v = &t[i + 1..];
            // A name that says the value is an id or public (`AUTH0_CLIENT_ID=…`,
            // `FLUTTERWAVE_PUBLIC_KEY=FLWPUBK-…`).
            let name = String::from_utf8_lossy(&t[..i])
                .to_ascii_lowercase()
                .replace('_', "");
            if super::names_an_id(&t[..i])
                || ["publickey", "pubkey", "publishable"]
                    .iter()
                    .any(|p| name.contains(p))
            {
                return true;
            }
            if v.len() < 32
                || !v.iter().any(u8::is_ascii_uppercase)
                || !v.iter().any(u8::is_ascii_lowercase)
            {
                return true;
            }
            &t[i + 1..]
        }
        _ => t,
    };
    judge && (decodes_to_text(t) || decodes_to_text(value) || short_text(t) || wordy(t))
}

/// Base64 of a short plain text (`aGVsbG8gd29ybGQ=`, "hello world"): nine or more
/// decoded bytes, all printable — which random bytes almost never are ((95/256)⁹ ≈ 10⁻⁴).
fn short_text(t: &[u8]) -> bool {
    let body = t.iter().filter(|&&c| c != b'=').count();
    (12..=64).contains(&body)
        && base64_decode(t)
            .is_some_and(|out| out.iter().all(|&b| b.is_ascii_graphic() || b == b' '))
}

/// The bytes that base64 (standard or URL-safe, padding ignored) encodes; `None` if `t`
/// is not base64.
pub(super) fn base64_decode(t: &[u8]) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    };
    let body: Vec<u8> = t.iter().copied().filter(|&c| c != b'=').collect();
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    for chunk in body.chunks(4) {
        let mut n = 0u32;
        for (k, &c) in chunk.iter().enumerate() {
            n |= value(c)? << (18 - 6 * k);
        }
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    Some(out)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// Base64 (standard or URL-safe) whose decoded value is plain text: entropy measured on
/// the decoded value, as detect-secrets does, not on its encoding.
pub(super) fn decodes_to_text(t: &[u8]) -> bool {
    let Some(out) = base64_decode(t) else {
        return false;
    };
    let printable = out
        .iter()
        .filter(|&&b| b.is_ascii_graphic() || matches!(b, b' ' | b'\n' | b'\t'))
        .count();
    // Prose has spaces; structured text (JSON, CSV, markup) its punctuation. A short
    // printable value (`user:pass`, a password) is neither long nor structured enough.
    let structure = out.iter().filter(|b| b"{}\":,;<>=\n".contains(b)).count();
    out.len() >= 24 && printable * 100 >= out.len() * 97 && (out.contains(&b' ') || structure >= 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_publishable_key_is_public_also_as_an_assignment_read_whole() {
        let line = b"KNOCK_PUBLIC_API_KEY=pk_test_Zx9kQ2mP4vL8nR6tY3wBcD5fG7hJ1kL3";
        assert!(known_public(line, 0..line.len()));
        let secret = b"KNOCK_SECRET_API_KEY=sk_test_Zx9kQ2mP4vL8nR6tY3wBcD5fG7hJ1kL3";
        assert!(!known_public(secret, 0..secret.len()));
    }

    #[test]
    fn placeholders_references_and_random_letters() {
        for p in [
            "<password>",
            "${DB_PASS}",
            "%DB_PASS%",
            "'changeme'",
            "{{ pw }}",
        ] {
            assert!(placeholder(p.as_bytes()), "{p}");
        }
        assert!(!placeholder(b"%4mBDrftqski67vQ"));
        for r in [
            "./db-pass.txt",
            "/run/secrets/db",
            "~/.pgpass",
            "@token.txt",
        ] {
            assert!(reference(r.as_bytes()), "{r}");
        }
        assert!(!reference(b"/p4ss!Word") && !reference(b"Hunter2/x!"));
        assert!(random_letters(b"WBPqCqgyawb") && random_letters(b"RtTWzJUkzHzcbvUr"));
        for w in ["MyPassword", "handshake", "GitHubActions", "ABCDEFGH"] {
            assert!(!random_letters(w.as_bytes()), "{w}");
        }
    }
}
