//! A project's verification kept between processes, for `verify --continue`: what a pass
//! knows after its lines ([`ProjectVerifier`]: counts, findings, every id and link), saved
//! in the snapshot directory and continued by the next run over the lines appended since.
//!
//! Like the snapshot and the vector cache it is derived state, never trusted blindly: the
//! file carries a keyed BLAKE3 MAC under the snapshot directory's key (a file written by
//! someone without the key, or damaged, is refused), it names the ledger it verified and
//! the options it ran with (another ledger or other options: refused), and its
//! continuation re-reads the verified prefix's last line before going on
//! ([`ProjectVerifier::resume`]). Any refusal means a full pass, with the reason said.
//! What a continuation cannot see — a line changed inside the verified prefix without
//! changing its length — is what `verify` without `--continue` is for.

use std::io;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::resume::ProjectVerifier;
use crate::clock::Timestamp;
use crate::snapshot::SnapshotPlace;

/// The first bytes of the file.
const MAGIC: &[u8; 8] = b"WRMVFY01";

/// A kept verification and what it was kept under.
#[derive(Serialize, Deserialize)]
pub struct Kept {
    /// The ledger's label (canonical path, or database address).
    pub label: String,
    /// `allow_unchained` of the pass.
    pub allow_unchained: bool,
    /// When its last full pass ran.
    pub full_at: Timestamp,
    /// Lines continued over since that pass.
    pub continued: u64,
    /// The verification.
    pub verifier: ProjectVerifier,
}

/// Where the verification of one ledger is kept.
#[derive(Debug, Clone)]
pub struct KeptPlace {
    /// The file.
    pub file: PathBuf,
    place: SnapshotPlace,
}

impl KeptPlace {
    /// The kept verification of the ledger `label`, in the snapshot directory of `place`.
    pub fn new(place: &SnapshotPlace, label: &str) -> KeptPlace {
        let l = blake3::hash(label.as_bytes()).to_hex();
        KeptPlace {
            file: place
                .dir
                .join(format!("{}.verify", crate::text::prefix(&l, 24))),
            place: place.clone(),
        }
    }

    /// The kept verification, if there is one that is authentic, of `label` and of these
    /// options. Why one was not used is the error (not found: none was kept).
    pub fn load(&self, label: &str, allow_unchained: bool) -> io::Result<Kept> {
        let body = self
            .place
            .read_sealed(&self.file, MAGIC, "a kept verification")?;
        let bad = |why: &str| io::Error::new(io::ErrorKind::InvalidData, why.to_string());
        let kept: Kept =
            serde_json::from_slice(&body).map_err(|e| bad(&format!("it does not parse: {e}")))?;
        if kept.label != label {
            return Err(bad("it is another ledger's"));
        }
        if kept.allow_unchained != allow_unchained {
            return Err(bad("it ran with another `allow_unchained`"));
        }
        Ok(kept)
    }

    /// Saves `kept` (atomically, mode 0600; the directory and key made if needed).
    pub fn save(&self, kept: &Kept) -> io::Result<()> {
        let body = serde_json::to_vec(kept).map_err(io::Error::other)?;
        self.place
            .write_sealed(&self.file, MAGIC, &body, ".verify.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::verify::VerifyOptions;

    #[test]
    fn a_kept_verification_comes_back_only_for_its_ledger_and_options() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".agents")).unwrap();
        let paths = crate::config::Paths::under(dir.path());
        std::fs::write(&paths.ledger, "{\"not\":\"an entry\"}\n").unwrap();
        let v = ProjectVerifier::full(&paths, &VerifyOptions::default(), &mut |_, _| {}).unwrap();
        let want = serde_json::to_value(v.report(None, None)).unwrap();
        let place = SnapshotPlace {
            dir: dir.path().join("cache"),
            min_entries: 0,
        };
        let at = KeptPlace::new(&place, "ledger-a");
        at.save(&Kept {
            label: "ledger-a".into(),
            allow_unchained: false,
            full_at: Timestamp(7),
            continued: 3,
            verifier: v,
        })
        .unwrap();
        let back = at.load("ledger-a", false).unwrap();
        assert_eq!((back.full_at, back.continued), (Timestamp(7), 3));
        assert_eq!(
            serde_json::to_value(back.verifier.report(None, None)).unwrap(),
            want
        );
        let e = at.load("ledger-b", false).err().unwrap();
        assert!(e.to_string().contains("another ledger"), "{e}");
        let e = at.load("ledger-a", true).err().unwrap();
        assert!(e.to_string().contains("allow_unchained"), "{e}");
        assert_ne!(KeptPlace::new(&place, "ledger-b").file, at.file);
    }
}
