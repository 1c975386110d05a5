//! Checks shared by every input: byte limits, short identifiers, and identifiers that name
//! files or directories.
//!
//! Architecture invariant: any identifier that becomes part of a path (`room_id`, `plan_id`)
//! passes [`path_component`] first. That function allows only `[A-Za-z0-9._-]`, never a
//! leading dot, at most 128 bytes — so `..`, `/`, `\`, NUL, absolute paths and look-alike
//! Unicode (fullwidth solidus, RTL overrides, zero-width joiners) are refused by
//! construction, not by a deny-list that could miss one.

use warroom_base::error::{Error, Result};

/// Longest identifier accepted anywhere (ids, room ids, roles, refs, plan ids).
pub const MAX_ID_BYTES: usize = 128;

/// Rejects empty text and text over `limit` UTF-8 bytes, naming the field and the limit.
pub fn bytes_within(field: &str, value: &str, limit: usize, fix: &str) -> Result<()> {
    if value.trim().is_empty() {
        return Err(Error::invalid(field, "it is empty", fix));
    }
    let n = value.len();
    if n > limit {
        return Err(Error::invalid(
            field,
            format!("it is {n} bytes (UTF-8), over the limit of {limit} bytes"),
            fix,
        ));
    }
    Ok(())
}

/// A short free-form identifier (role, ref): non-empty, ≤ 128 bytes, no control characters,
/// no surrounding whitespace.
pub fn short_id(field: &str, value: &str) -> Result<()> {
    let fix =
        format!("give a short name such as `architect` or `EPIC-007` (≤ {MAX_ID_BYTES} bytes)");
    bytes_within(field, value, MAX_ID_BYTES, &fix)?;
    if value.trim() != value {
        return Err(Error::invalid(
            field,
            "it starts or ends with whitespace",
            "remove the surrounding spaces",
        ));
    }
    if let Some(c) = value.chars().find(|c| c.is_control()) {
        return Err(Error::invalid(
            field,
            format!("it contains the control character U+{:04X}", c as u32),
            fix,
        ));
    }
    Ok(())
}

/// An identifier that names a directory or file: `[A-Za-z0-9._-]+`, not starting with `.`,
/// ≤ 128 bytes.
pub fn path_component(field: &str, value: &str) -> Result<()> {
    let fix = "use letters, digits, `-`, `_` and `.` only, not starting with `.` \
               (for example `room-042`)";
    if value.is_empty() {
        return Err(Error::invalid(field, "it is empty", fix));
    }
    if value.len() > MAX_ID_BYTES {
        return Err(Error::invalid(
            field,
            format!(
                "it is {} bytes, over the limit of {MAX_ID_BYTES}",
                value.len()
            ),
            fix,
        ));
    }
    if value.starts_with('.') {
        return Err(Error::invalid(
            field,
            format!(
                "`{}` starts with `.` and could escape its directory",
                printable(value)
            ),
            fix,
        ));
    }
    if let Some(c) = value
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Err(Error::invalid(
            field,
            format!(
                "`{}` contains {} which is not allowed in a file name",
                printable(value),
                describe_char(c)
            ),
            fix,
        ));
    }
    Ok(())
}

/// Describes a character for an error message without echoing control characters.
pub fn describe_char(c: char) -> String {
    match c {
        '/' => "`/`".into(),
        '\\' => "`\\`".into(),
        c if c.is_control() || !c.is_ascii() => format!("U+{:04X}", c as u32),
        c => format!("`{c}`"),
    }
}

/// `text` with control characters escaped (`\n`, `\u{7}`) and invisible or
/// direction-changing ones too (`\u{202e}`), so an echo shows what was sent.
pub fn escape_hidden(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else if warroom_secrets::invisible(c) {
                c.escape_unicode().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

/// Text safe to echo in an error message (which reaches the client, and logs and pages
/// through it): secrets redacted by the scanner, control, direction-changing and invisible
/// characters escaped (`\u{202e}`), at most 80 characters. The scan runs on a bounded prefix before clipping, so a token cut in half
/// by the clip is still recognised whole.
pub fn printable(value: &str) -> String {
    let head: String = value.chars().take(256).collect();
    let scanned = warroom_secrets::scan(&head).text;
    let mut out = escape_hidden(warroom_base::text::prefix_chars(&scanned, 80));
    if scanned.chars().count() > 80 || value.chars().count() > 256 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_components_refuse_every_escape() {
        for bad in [
            "",
            ".",
            "..",
            "../x",
            "a/b",
            "a\\b",
            "/etc",
            ".hidden",
            "a\0b",
            "room\u{2215}x",
            "room\u{FF0F}x",
            "r\u{202E}oom",
            "ro\u{200B}om",
            "ромм",
            "a b",
            "a\nb",
        ] {
            assert!(
                path_component("room_id", bad).is_err(),
                "{bad:?} must be refused"
            );
        }
        for good in ["room-042", "EPIC_7", "r.1", "A"] {
            path_component("room_id", good).unwrap();
        }
        assert!(path_component("room_id", &"a".repeat(129)).is_err());
    }

    #[test]
    fn errors_name_field_limit_and_fix() {
        let e = bytes_within("summary", &"é".repeat(3000), 4096, "shorten it").unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("`summary`"), "{msg}");
        assert!(msg.contains("6000 bytes"), "{msg}");
        assert!(msg.contains("4096"), "{msg}");
        assert!(msg.contains("shorten it"), "{msg}");
    }

    #[test]
    fn short_ids_reject_controls_and_padding() {
        assert!(short_id("ref", " EPIC-1").is_err());
        assert!(short_id("ref", "EP\u{7}IC").is_err());
        assert!(short_id("ref", "").is_err());
        short_id("ref", "EPIC-001 — Auth").unwrap();
    }
}
