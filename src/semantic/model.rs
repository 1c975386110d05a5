//! The embedding runtime (cargo feature `semantic`): the bundled model, and any BERT-family
//! sentence-transformers directory, on candle, on the CPU, mean-pooled and L2-normalised.
//!
//! - **Bundled**: crates.io's `pocket-encoder` carries paraphrase-MiniLM-L3-v2 (3 layers,
//!   384 dimensions, 4-bit weights expanded at load) inside the crate: no download, no
//!   Python, no network, at build or run time.
//! - **A directory** (`semantic: { model: DIR }`): `config.json`, `model.safetensors`
//!   (f32 or f16) and `tokenizer.json`, as sentence-transformers saves them —
//!   all-MiniLM-L6-v2, bge-small-en-v1.5, e5-small-v2… Its id is the BLAKE3 of the three
//!   files, so vectors of another model (or another revision) are never mixed in.

use std::path::Path;
use std::sync::Arc;

use super::Embedder;

/// Tokens a text is cut to (the small sentence models are trained on short texts).
const MAX_TOKENS: usize = 128;

/// The bundled model.
struct Bundled {
    encoder: pocket_encoder::Encoder,
    id: String,
}

impl Embedder for Bundled {
    fn model_id(&self) -> &str {
        &self.id
    }
    fn name(&self) -> &str {
        "paraphrase-MiniLM-L3-v2 (bundled, 4-bit)"
    }
    fn dims(&self) -> usize {
        384
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        let texts: Vec<&str> = texts
            .iter()
            .map(|t| if t.trim().is_empty() { "-" } else { *t })
            .collect();
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(64) {
            out.extend(self.encoder.embed(chunk).map_err(|e| e.to_string())?);
        }
        Ok(out)
    }
}

/// A model loaded from a directory.
struct Dir {
    model: candle_transformers::models::bert::BertModel,
    tokenizer: tokenizers::Tokenizer,
    id: String,
    name: String,
    dims: usize,
}

impl Embedder for Dir {
    fn model_id(&self) -> &str {
        &self.id
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn dims(&self) -> usize {
        self.dims
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        super::model_check::guarded("embedding", || self.embed_unguarded(texts))
    }
}

impl Dir {
    fn embed_unguarded(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        use candle_core::{DType, Device, Tensor};
        let err = |e: &dyn std::fmt::Display| e.to_string();
        let mut out = Vec::with_capacity(texts.len());
        for t in texts {
            let t = if t.trim().is_empty() { "-" } else { t };
            let enc = self.tokenizer.encode(t, true).map_err(|e| err(&e))?;
            let ids = Tensor::new(enc.get_ids(), &Device::Cpu)
                .and_then(|x| x.unsqueeze(0))
                .map_err(|e| err(&e))?;
            let types = Tensor::new(enc.get_type_ids(), &Device::Cpu)
                .and_then(|x| x.unsqueeze(0))
                .map_err(|e| err(&e))?;
            let mask = Tensor::new(enc.get_attention_mask(), &Device::Cpu)
                .and_then(|x| x.unsqueeze(0))
                .map_err(|e| err(&e))?;
            let pooled = (|| {
                let hidden = self.model.forward(&ids, &types, Some(&mask))?;
                let m = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
                hidden
                    .broadcast_mul(&m)?
                    .sum(1)?
                    .squeeze(0)?
                    .to_vec1::<f32>()
            })()
            .map_err(|e| err(&e))?;
            let n = enc
                .get_attention_mask()
                .iter()
                .filter(|&&x| x > 0)
                .count()
                .max(1) as f32;
            let mut v: Vec<f32> = pooled.into_iter().map(|x| x / n).collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            if !norm.is_finite() || norm <= 0.0 {
                return Err("the model gave a zero or non-finite vector".into());
            }
            for x in &mut v {
                *x /= norm;
            }
            out.push(v);
        }
        Ok(out)
    }
}

/// The bundled model, or the model in `dir`.
pub fn load(dir: Option<&Path>) -> Result<Arc<dyn Embedder>, String> {
    let Some(dir) = dir else {
        let encoder = pocket_encoder::Encoder::new().map_err(|e| {
            format!("the bundled model did not load: {e}. Fix: reinstall warroom-memory")
        })?;
        let info = pocket_encoder::model_info();
        return Ok(Arc::new(Bundled {
            encoder,
            id: format!("{}@{}", info.id, info.revision),
        }));
    };
    load_dir(dir).map(|d| Arc::new(d) as Arc<dyn Embedder>)
}

fn load_dir(dir: &Path) -> Result<Dir, String> {
    super::model_check::guarded("loading the model directory", || load_checked(dir))
}

/// The directory's files, checked ([`super::model_check`]) before candle sees them.
fn load_checked(dir: &Path) -> Result<Dir, String> {
    use super::model_check::{MAX_CONFIG_BYTES, MAX_TOKENIZER_BYTES, MAX_WEIGHTS_BYTES};
    use candle_core::{DType, Device};
    let fix = "Fix: give `semantic: { model: DIR }` a sentence-transformers directory \
               (config.json, model.safetensors, tokenizer.json), e.g. one `warroom-memory \
               semantic fetch all-MiniLM-L6-v2` made, or remove `model:` for the bundled one";
    let read = |name: &str, cap: u64| {
        crate::fsx::read_named(&dir.join(name), "the model's", cap)
            .map_err(|e| format!("{e}. {fix}"))
    };
    let config_bytes = read("config.json", MAX_CONFIG_BYTES)?;
    let shape: serde_json::Value = serde_json::from_slice(&config_bytes).map_err(|e| {
        format!(
            "the model's {} is not a BERT config: {e}. {fix}",
            dir.join("config.json").display()
        )
    })?;
    super::model_check::check_config(&shape)
        .map_err(|e| format!("the model's {}: {e}. {fix}", dir.display()))?;
    let tokenizer_bytes = read("tokenizer.json", MAX_TOKENIZER_BYTES)?;
    let weights = read("model.safetensors", MAX_WEIGHTS_BYTES)?;
    let config: candle_transformers::models::bert::Config =
        serde_json::from_value(shape).map_err(|e| {
            format!(
                "the model's {} is not a BERT config: {e}. {fix}",
                dir.join("config.json").display()
            )
        })?;
    let mut h = blake3::Hasher::new();
    for part in [&config_bytes, &weights, &tokenizer_bytes] {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part);
    }
    let id = format!("dir:{}", crate::text::prefix(&h.finalize().to_hex(), 32));
    let vb = candle_nn::VarBuilder::from_buffered_safetensors(weights, DType::F32, &Device::Cpu)
        .map_err(|e| {
            format!(
                "the model's {} does not load: {e}. {fix}",
                dir.join("model.safetensors").display()
            )
        })?;
    let model = candle_transformers::models::bert::BertModel::load(vb, &config).map_err(|e| {
        format!(
            "the model's {} does not fit its config.json: {e}. {fix}",
            dir.join("model.safetensors").display()
        )
    })?;
    let mut tokenizer = tokenizers::Tokenizer::from_bytes(&tokenizer_bytes).map_err(|e| {
        format!(
            "the model's {} does not load: {e}. {fix}",
            dir.join("tokenizer.json").display()
        )
    })?;
    tokenizer
        .with_truncation(Some(tokenizers::TruncationParams {
            max_length: MAX_TOKENS,
            ..Default::default()
        }))
        .map_err(|e| e.to_string())?;
    tokenizer.with_padding(None);
    let name = dir.file_name().map_or_else(
        || dir.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    Ok(Dir {
        dims: config.hidden_size,
        model,
        tokenizer,
        id,
        name,
    })
}
