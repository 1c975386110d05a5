//! A model directory checked before the runtime sees it: candle's BERT trusts its
//! `config.json` (zero attention heads divide by zero — a panic in every command that
//! loads the model), and a tokenizer file of hundreds of MB costs seconds and gigabytes.
//! Each file has a size cap, and the config's shape numbers must be positive, within
//! bounds, and consistent (the hidden size divisible by the heads), so that a corrupt or
//! hostile directory is a clear error — and lexical service, as for any model that does
//! not load — never a panic.
//!
//! The bounds are wide enough for every sentence-transformers model of the BERT family we
//! know of (MiniLM, bge, e5, gte up to their "large" sizes), documented in
//! docs/semantic.md.

use serde_json::Value;

/// Most bytes of `config.json`.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;
/// Most bytes of `tokenizer.json` (a multilingual tokenizer is ~17 MB).
pub const MAX_TOKENIZER_BYTES: u64 = 32 << 20;
/// Most bytes of `model.safetensors`.
pub const MAX_WEIGHTS_BYTES: u64 = 1 << 30;

/// (field, least, most) for the config's shape numbers.
const BOUNDS: &[(&str, u64, u64)] = &[
    ("hidden_size", 1, 4096),
    ("num_attention_heads", 1, 64),
    ("num_hidden_layers", 1, 48),
    ("intermediate_size", 1, 16_384),
    ("vocab_size", 1, 1_000_000),
    ("max_position_embeddings", 1, 65_536),
    ("type_vocab_size", 1, 16),
];

/// Checks a parsed `config.json`: every shape number present, an integer within its
/// bounds, and `hidden_size` a multiple of `num_attention_heads`.
pub fn check_config(config: &Value) -> Result<(), String> {
    let mut got = std::collections::HashMap::new();
    for &(field, least, most) in BOUNDS {
        let v = config
            .get(field)
            .ok_or_else(|| format!("config.json has no `{field}` (a BERT config names it)"))?;
        let n = v.as_u64().filter(|n| (least..=most).contains(n)).ok_or_else(|| {
            format!(
                "config.json's `{field}` is {}, it must be a whole number from {least} to {most}",
                crate::validate::printable(&v.to_string())
            )
        })?;
        got.insert(field, n);
    }
    let (hidden, heads) = (got["hidden_size"], got["num_attention_heads"]);
    if hidden % heads != 0 {
        return Err(format!(
            "config.json's `hidden_size` {hidden} is not a multiple of `num_attention_heads` \
             {heads}"
        ));
    }
    Ok(())
}

/// Runs `f`, turning a panic inside the runtime into an error naming what was being done
/// (the message is the runtime's, never a text being embedded).
pub fn guarded<T>(what: &str, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(format!(
            "the model's runtime failed while {what} (it panicked); the model is not used"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn minilm() -> Value {
        json!({"hidden_size": 384, "num_attention_heads": 12, "num_hidden_layers": 6,
               "intermediate_size": 1536, "vocab_size": 30522, "max_position_embeddings": 512,
               "type_vocab_size": 2})
    }

    #[test]
    fn a_real_config_passes_and_hostile_ones_are_named() {
        assert_eq!(check_config(&minilm()), Ok(()));
        for (field, bad, says) in [
            ("num_attention_heads", json!(0), "num_attention_heads"),
            ("num_attention_heads", json!(5), "not a multiple"),
            ("hidden_size", json!(-384), "hidden_size"),
            ("hidden_size", json!(1.5), "hidden_size"),
            ("num_hidden_layers", json!(100000), "num_hidden_layers"),
            ("vocab_size", json!("30522"), "vocab_size"),
        ] {
            let mut c = minilm();
            c[field] = bad;
            let e = check_config(&c).unwrap_err();
            assert!(e.contains(says), "{field}: {e}");
        }
        let mut c = minilm();
        c.as_object_mut().unwrap().remove("type_vocab_size");
        assert!(check_config(&c).unwrap_err().contains("type_vocab_size"));
    }

    #[test]
    fn a_panic_in_the_runtime_is_an_error() {
        let r: Result<(), String> = guarded("loading", || panic!("divide by zero"));
        let e = r.unwrap_err();
        assert!(e.contains("loading") && !e.contains("divide"), "{e}");
        assert_eq!(guarded("x", || Ok(3)), Ok(3));
    }
}
