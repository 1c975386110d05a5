//! Which file layout a project uses: ours (`.agents/ledger.jsonl`, `.agents/war-rooms/`)
//! or OSTwin's (`.agents/memory/ledger.jsonl`, `.war-rooms/`), so an existing OSTwin
//! project is served from its own files with no configuration — and never gets a second,
//! empty ledger beside its real one.
//!
//! Rule (docs/ostwin.md): `layout:` in `.agents/warroom.yaml` decides when set. Otherwise
//! a root with OSTwin's ledger or `.war-rooms/` and none of ours is OSTwin's; a root with
//! files of both is refused (we do not guess which ledger is the real one); anything else
//! — including an empty root — is ours.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};

/// A project's file layout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    /// `.agents/ledger.jsonl`, `.agents/war-rooms/`, `.agents/plan/`.
    #[default]
    Warroom,
    /// OSTwin's: `.agents/memory/ledger.jsonl`, `.war-rooms/`.
    Ostwin,
}

impl Layout {
    /// The ledger path under `root`.
    pub fn ledger(self, root: &Path) -> PathBuf {
        match self {
            Layout::Warroom => root.join(".agents").join("ledger.jsonl"),
            Layout::Ostwin => root.join(".agents").join("memory").join("ledger.jsonl"),
        }
    }

    /// The war-rooms directory under `root`.
    pub fn war_rooms(self, root: &Path) -> PathBuf {
        match self {
            Layout::Warroom => root.join(".agents").join("war-rooms"),
            Layout::Ostwin => root.join(".war-rooms"),
        }
    }

    /// Its name in messages and the config file.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Warroom => "warroom",
            Layout::Ostwin => "ostwin",
        }
    }
}

/// The layout of `root` and why, when the config file does not say.
pub fn detect(root: &Path) -> Result<(Layout, String)> {
    let present = |l: Layout| -> Vec<String> {
        [l.ledger(root), l.war_rooms(root)]
            .into_iter()
            .filter(|p| p.exists())
            .map(|p| p.strip_prefix(root).unwrap_or(&p).display().to_string())
            .collect()
    };
    let (ours, theirs) = (present(Layout::Warroom), present(Layout::Ostwin));
    match (ours.is_empty(), theirs.is_empty()) {
        (false, false) => Err(Error::invalid(
            "layout",
            format!(
                "{} holds files of both layouts: ours ({}) and OSTwin's ({}); refusing to guess \
                 which ledger is the real one",
                root.display(),
                ours.join(", "),
                theirs.join(", ")
            ),
            "set `layout: ostwin` or `layout: warroom` in .agents/warroom.yaml",
        )),
        (true, false) => Ok((Layout::Ostwin, format!("found {}", theirs.join(" and ")))),
        (false, true) => Ok((Layout::Warroom, format!("found {}", ours.join(" and ")))),
        (true, true) => Ok((Layout::Warroom, "no ledger yet; the default layout".into())),
    }
}
