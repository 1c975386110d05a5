//! Values that are data, whatever rule or shape matched them — the last judgement of every
//! finding ([`super::find`]). Each is a general property of the value, not a case:
//!
//! - **A digest the text calls one**: 32, 40, 56, 64, 96 or 128 hex digits of one case,
//!   with a word calling it a hash just before it (`hashed to`, `digest`, `checksum`,
//!   `fingerprint`). A hash of a secret is not the secret. An algorithm's name alone is
//!   not enough: `1 SHA1 <hex>` in ntp.keys names a key's type.
//! - **A name a toolchain generated**: an identifier beginning with two underscores
//!   (wasm-bindgen's `__wbg_get_7d5f…`, `__wbindgen_…`, C++'s `__Z…`, `__rust_…`): a
//!   symbol's hash suffix looks random, but the name is code, never a credential.
//! - **An encoded file or message**: base64 whose bytes begin with a file format's magic
//!   number (PNG, GIF, JPEG, PDF, ZIP, gzip, WebAssembly…), or whose bytes are mostly
//!   printable runs in binary framing (a protobuf or msgpack message in a log line) —
//!   unless the text inside holds a secret. Random key bytes begin with a 4-byte magic
//!   number about once in 4 billion, and are ~37 % printable in runs of two or three.

use std::ops::Range;

use super::value::base64_decode;

/// True if the finding `r` of `bytes` is data by one of the properties above.
pub(super) fn is_data(bytes: &[u8], r: &Range<usize>) -> bool {
    let v = &bytes[r.clone()];
    named_digest(bytes, r, v) || generated_symbol(bytes, r) || encoded(v)
}

fn named_digest(bytes: &[u8], r: &Range<usize>, v: &[u8]) -> bool {
    let hex = v.iter().all(u8::is_ascii_hexdigit)
        && (v.iter().all(|b| !b.is_ascii_uppercase()) || v.iter().all(|b| !b.is_ascii_lowercase()));
    if !hex || ![32, 40, 56, 64, 96, 128].contains(&v.len()) {
        return false;
    }
    let before =
        String::from_utf8_lossy(&bytes[r.start.saturating_sub(40)..r.start]).to_ascii_lowercase();
    let words: Vec<&str> = before
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty())
        .collect();
    // The last few words before it: "is hashed to", "SHA-256 digest:", "md5 of the file is".
    words.iter().rev().take(5).any(|w| {
        matches!(
            *w,
            "hash"
                | "hashed"
                | "hashes"
                | "hashing"
                | "digest"
                | "digests"
                | "checksum"
                | "fingerprint"
                | "sum"
        )
    })
}

fn generated_symbol(bytes: &[u8], r: &Range<usize>) -> bool {
    let part = |b: u8| b.is_ascii_alphanumeric() || b"_$.:".contains(&b);
    // The dotted name the finding lies in (`wbg.__wbg_randomFillSync_ab2c…`).
    let mut start = r.start;
    while start > 0 && part(bytes[start - 1]) {
        start -= 1;
    }
    let mut end = r.end.max(r.start);
    while end < bytes.len() && part(bytes[end]) {
        end += 1;
    }
    if end < r.end {
        return false;
    }
    bytes[start..end]
        .split(|&b| b == b'.' || b == b':')
        .any(|c| c.len() > 3 && c.starts_with(b"__") && c[2].is_ascii_alphabetic())
}

fn encoded(v: &[u8]) -> bool {
    // `payload=<base64>` is one token to the entropy check: judge the part after the name.
    let body = match v.iter().position(|&b| b == b'=' || b == b':') {
        Some(i) if v[i + 1..].iter().any(|&b| b != b'=') => &v[i + 1..],
        _ => v,
    };
    [v, body].iter().any(|t| {
        let Some(d) = base64_decode(t) else {
            return false;
        };
        d.len() >= 16 && (file_magic(&d) || framed_text(&d))
    })
}

fn file_magic(d: &[u8]) -> bool {
    const MAGIC: [&[u8]; 12] = [
        b"\x89PNG\r\n\x1a\n",
        b"GIF87a",
        b"GIF89a",
        b"\xff\xd8\xff",
        b"%PDF-",
        b"PK\x03\x04",
        b"\x1f\x8b\x08",
        b"\0asm",
        b"wOFF",
        b"wOF2",
        b"\0\0\x01\0",
        b"BZh",
    ];
    MAGIC.iter().any(|m| d.starts_with(m)) || (d.starts_with(b"RIFF") && &d[8..12] == b"WEBP")
}

/// Mostly printable runs of four or more in binary framing — and no secret in the text.
fn framed_text(d: &[u8]) -> bool {
    let printable = |b: u8| b.is_ascii_graphic() || b == b' ';
    let mut runs: Vec<&[u8]> = Vec::new();
    for run in d.split(|&b| !printable(b)) {
        if run.len() >= 4 {
            runs.push(run);
        }
    }
    let covered: usize = runs.iter().map(|r| r.len()).sum();
    if covered * 100 < d.len() * 60 || !runs.iter().any(|r| r.len() >= 6) {
        return false;
    }
    let text: Vec<String> = runs
        .iter()
        .map(|r| String::from_utf8_lossy(r).into_owned())
        .collect();
    super::find(&text.join(" ")).is_empty()
}

#[cfg(test)]
mod tests {
    use super::super::scan;

    #[test]
    fn digests_named_symbols_and_encoded_files_are_data_and_keys_are_not() {
        for kept in [
            "The API token is hashed to 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 in the tokens table",
            "The JS glue calls wbg.__wbg_randomFillSync_ab2cfe79ebbf2740 which throws",
            "export function __wbg_getRandomValues_f5e14ab7ac8e995d(arg0, arg1)",
            "icon = DATA:IMAGE/PNG;BASE64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAGklEQVR4nGJ",
            "The PNG data URI iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAAGUlEQVR42mNk+M9Qz0AEYBxVSF+FAAhKDveksOjmAAAAAElFTkSuQmCC is the logo",
            "worker log: decoded payload=CgtyZWZyZXNoLWpvYhIQY2F0YWxvZy1pbmRleGVyGgcIARDoBxgDIgxidWlsZC0yMDI2LTEx for job 42",
        ] {
            let s = scan(kept);
            assert!(s.kinds.is_empty(), "{kept}: {:?}", s.kinds);
        }
        for secret in [
            "The API token is 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ3kLp9vTq",
            "payload=Zq8xW3vN5mK2pL7rT9yB4cD6fH1jA0sE3gU5wQ2eR4tY6uI8oP0aS",
        ] {
            let s = scan(secret);
            assert!(!s.kinds.is_empty(), "{secret}: kept");
        }
    }
}
