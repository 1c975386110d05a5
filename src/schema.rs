//! The normative JSON Schemas in `schemas/`, compiled once and used to validate what we write
//! (publish, channel posts, plans) and what `verify` reads.
//!
//! The files are embedded at build time, so the binary and the documents in the repository
//! can never disagree.

use std::sync::OnceLock;

use jsonschema::Validator;
use serde_json::Value;

/// One of the schemas shipped in `schemas/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schema {
    /// `schemas/ledger-entry.schema.json`.
    LedgerEntry,
    /// `schemas/channel-message.schema.json`.
    ChannelMessage,
    /// `schemas/plan.schema.json`.
    Plan,
    /// `schemas/scenario.schema.json`.
    Scenario,
}

/// Most bytes of one schema error (the value it quotes clipped).
pub const MAX_ERROR_BYTES: usize = 512;

impl Schema {
    /// The schema document's text.
    pub fn source(self) -> &'static str {
        match self {
            Schema::LedgerEntry => include_str!("../schemas/ledger-entry.schema.json"),
            Schema::ChannelMessage => include_str!("../schemas/channel-message.schema.json"),
            Schema::Plan => include_str!("../schemas/plan.schema.json"),
            Schema::Scenario => include_str!("../schemas/scenario.schema.json"),
        }
    }

    fn validator(self) -> &'static Validator {
        static CELLS: [OnceLock<Validator>; 4] = [const { OnceLock::new() }; 4];
        CELLS[self as usize].get_or_init(|| {
            let doc: Value = serde_json::from_str(self.source()).expect("embedded schema is JSON");
            jsonschema::validator_for(&doc).expect("embedded schema compiles")
        })
    }

    /// Validates `value`; on failure returns one message per violation (at most five, each
    /// at most [`MAX_ERROR_BYTES`]), each naming the JSON path of the offending value.
    pub fn check(self, value: &Value) -> Result<(), Vec<String>> {
        let errors: Vec<String> = self
            .validator()
            .iter_errors(value)
            .map(|e| {
                let path = e.instance_path().to_string();
                let at = if path.is_empty() {
                    "/".to_string()
                } else {
                    path
                };
                // A message can quote the whole offending value (a 4,000-epic array):
                // each is clipped, and secrets in it redacted.
                // The value quoted first in the message: clipped apart, so that what was
                // wrong with it (after the value) is still said.
                let value = e.instance().to_string();
                let mut message = e.to_string();
                if value.len() > 96 && message.contains(&value) {
                    // Redacted before it is cut: a secret across the cut would otherwise
                    // be left as a fragment no rule recognises.
                    let redacted = crate::secrets::scan(&value).text;
                    let short = format!("{}…", crate::text::prefix(&redacted, 96));
                    message = message.replacen(&value, &short, 1);
                }
                let said = crate::secrets::scan(&format!("at {at}: {message}")).text;
                crate::text::clip_within(&said, MAX_ERROR_BYTES)
            })
            .take(5)
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_schema_compiles() {
        for s in [
            Schema::LedgerEntry,
            Schema::ChannelMessage,
            Schema::Plan,
            Schema::Scenario,
        ] {
            let _ = s.validator();
        }
    }

    #[test]
    fn ledger_schema_accepts_ostwin_and_rejects_broken_lines() {
        let ostwin = json!({"id":"mem-dec-1-2","ts":"2026-04-03T11:04:01Z","kind":"decision",
            "room_id":"room-001","author_role":"architect","ref":"EPIC-001","tags":["auth"],
            "summary":"Use JWT"});
        Schema::LedgerEntry.check(&ostwin).unwrap();
        let bad = json!({"id":"","ts":"noon","kind":"memo","summary":""});
        let errs = Schema::LedgerEntry.check(&bad).unwrap_err();
        assert!(errs.len() >= 4, "{errs:?}");
        assert!(errs.iter().any(|e| e.contains("/kind")), "{errs:?}");
    }
}
