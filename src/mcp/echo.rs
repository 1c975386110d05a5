//! Error answers screened before they leave, on every transport: whatever a client sent
//! and an error repeats (rmcp's `-32022` names the requested protocol version in
//! `data.requested`, serde names an unknown variant in the message) is scanned for
//! secrets and clipped, so a 1 MB version string comes back as 256 bytes and a token given
//! as a version comes back redacted.
//!
//! The rule, for an error object's parts:
//! - every string inside `data` is a client string: secrets redacted, control and
//!   invisible characters escaped, at most [`MAX_ECHO`] bytes;
//! - the message is ours with client words in it: secrets redacted, each whitespace-free
//!   run longer than [`MAX_ECHO`] bytes clipped (no word of ours is that long), the whole
//!   at most [`MAX_MESSAGE`] bytes.
//!
//! The stdio wire calls [`screen`] on each error it writes; the HTTP edge calls
//! [`screen_body`] on each JSON answer that is an error.

use rmcp::model::ErrorData;
use serde_json::Value;

/// Most bytes of one client string an error repeats (the clip's `…` included).
pub const MAX_ECHO: usize = 256;
/// Most bytes of an error's message.
pub const MAX_MESSAGE: usize = 4096;

/// A client string as an error may repeat it: scanned, escaped, at most [`MAX_ECHO`] bytes.
pub fn client_string(s: &str) -> String {
    // Scan a bounded head, a little longer than the clip, so a token cut by the clip is
    // still seen whole.
    let head = crate::text::prefix(s, MAX_ECHO * 4);
    let scanned = crate::secrets::scan(head).text;
    let escaped = crate::validate::escape_hidden(&scanned);
    if head.len() < s.len() {
        crate::text::clip_within(&format!("{escaped}…"), MAX_ECHO)
    } else {
        crate::text::clip_within(&escaped, MAX_ECHO)
    }
}

/// An error message: secrets redacted, overlong words clipped, at most [`MAX_MESSAGE`].
pub fn message(m: &str) -> String {
    let mut out = String::with_capacity(m.len().min(MAX_MESSAGE));
    let mut whole = true;
    for (i, word) in m.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        if word.len() > MAX_ECHO {
            // Scanned before it is cut (a bounded head, as a client string): a token across
            // the cut is redacted whole, not left as a fragment.
            let head = crate::secrets::scan(crate::text::prefix(word, MAX_ECHO * 4)).text;
            out.push_str(&crate::text::clip_within(&head, MAX_ECHO));
        } else {
            out.push_str(word);
        }
        if out.len() > MAX_MESSAGE {
            whole = false;
            break;
        }
    }
    let scanned = crate::secrets::scan(&out).text;
    if !whole || scanned.len() > MAX_MESSAGE {
        crate::text::clip_within(&scanned, MAX_MESSAGE)
    } else {
        scanned
    }
}

/// Every string in `v` (keys too) screened as a client string.
fn screen_value(v: &mut Value) {
    match v {
        Value::String(s) if needs_screen(s) => *s = client_string(s),
        Value::Array(items) => items.iter_mut().for_each(screen_value),
        Value::Object(map) => {
            let long_key = map.keys().any(|k| needs_screen(k));
            if long_key {
                let old = std::mem::take(map);
                for (k, mut v) in old {
                    screen_value(&mut v);
                    map.insert(client_string(&k), v);
                }
            } else {
                map.values_mut().for_each(screen_value);
            }
        }
        _ => {}
    }
}

/// Whether a string could change when screened (cheap for the usual short, plain ones).
fn needs_screen(s: &str) -> bool {
    s.len() > 16
        || s.chars()
            .any(|c| c.is_control() || crate::secrets::invisible(c))
}

/// Screens one error before it is written.
pub fn screen(e: &mut ErrorData) {
    let m = message(&e.message);
    if m != e.message {
        e.message = m.into();
    }
    if let Some(d) = e.data.as_mut() {
        screen_value(d);
    }
}

/// A JSON-RPC answer's bytes with its error (if it is one) screened; `None` when it is
/// not an error answer, or not JSON-RPC (left as it is).
pub fn screen_body(body: &[u8]) -> Option<Vec<u8>> {
    let mut v: Value = serde_json::from_slice(body).ok()?;
    let screened = |one: &mut Value| -> bool {
        let Some(err) = one.get_mut("error").filter(|e| e.is_object()) else {
            return false;
        };
        if let Some(Value::String(m)) = err.get_mut("message") {
            *m = message(m);
        }
        if let Some(d) = err.get_mut("data") {
            screen_value(d);
        }
        true
    };
    let any = match &mut v {
        Value::Array(batch) => batch.iter_mut().fold(false, |a, one| screened(one) | a),
        one => screened(one),
    };
    any.then(|| serde_json::to_vec(&v).ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_huge_version_comes_back_clipped_and_a_token_redacted() {
        let mut e = ErrorData::new(
            rmcp::model::ErrorCode(-32022),
            "Unsupported protocol version",
            Some(
                serde_json::json!({"requested": "9".repeat(1 << 20), "supported": ["2026-07-28"]}),
            ),
        );
        screen(&mut e);
        let d = e.data.unwrap();
        assert!(d["requested"].as_str().unwrap().len() <= MAX_ECHO);
        assert_eq!(d["supported"][0], "2026-07-28");
        let token = format!("ghp_{}", "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6");
        let mut e = ErrorData::new(
            rmcp::model::ErrorCode(-32022),
            "Unsupported protocol version",
            Some(serde_json::json!({"requested": token})),
        );
        screen(&mut e);
        let r = e.data.unwrap()["requested"].as_str().unwrap().to_string();
        assert!(!r.contains("aB3dE6gH9jK2"), "{r}");
        assert!(r.contains("REDACTED"), "{r}");
    }

    #[test]
    fn a_message_keeps_our_words_and_clips_a_clients() {
        let m = format!(
            "Invalid request: unknown variant `{}`, expected one of `initialize`",
            "x".repeat(100_000)
        );
        let out = message(&m);
        assert!(out.len() < 400, "{}", out.len());
        assert!(out.starts_with("Invalid request: unknown variant `xxx"));
        assert!(out.ends_with("expected one of `initialize`"), "{out}");
        let plain = "not initialized: send `initialize` first";
        assert_eq!(message(plain), plain);
    }

    #[test]
    fn an_http_error_body_is_screened_and_a_result_is_left_alone() {
        let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022,
            "message": "Unsupported protocol version", "data": {"requested": "v".repeat(5000)}}});
        let out = screen_body(body.to_string().as_bytes()).unwrap();
        assert!(out.len() < 600, "{}", out.len());
        let ok = serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"x": "v".repeat(5000)}});
        assert!(screen_body(ok.to_string().as_bytes()).is_none());
        assert!(screen_body(b"not json").is_none());
    }

    #[test]
    fn a_token_across_a_long_word_s_cut_is_redacted_whole() {
        for pad in [200, 220, 230, 240, 250] {
            let word = format!(
                "{{\"a\":\"{}\",\"b\":\"ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789\"}}",
                "x".repeat(pad)
            );
            let m = message(&format!("unknown variant `{word}`"));
            assert!(!m.contains("ghp_ABC"), "pad {pad}: {m}");
        }
    }

    proptest! {
        #[test]
        fn screened_text_is_bounded_in_any_script(s in crate::text::strategies::any_script()) {
            let c = client_string(&s);
            prop_assert!(c.len() <= MAX_ECHO);
            prop_assert!(!c.chars().any(|c| c.is_control()));
            let m = message(&s);
            prop_assert!(m.len() <= MAX_MESSAGE);
        }

        #[test]
        fn screened_long_text_is_bounded(s in "\\PC{200,3000}") {
            prop_assert!(client_string(&s).len() <= MAX_ECHO);
            prop_assert!(message(&s).split(' ').all(|w| w.len() <= MAX_ECHO + 64));
        }
    }
}
