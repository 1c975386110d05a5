//! The optional `.agents/warroom.yaml` (`ConfigFile`): its keys, how each is read (a
//! switch or a map for `semantic:` and `secrets:`), and how it applies to `Paths` and
//! `Settings`. Unknown keys are refused.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{CONFIG_FILE, Paths, SecretPolicy, Settings, SupersedeOthers};
use crate::entry::Kind;
use crate::error::{Error, Result};

/// `on` / `off` (YAML's booleans too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OnOff(pub bool);

impl<'de> Deserialize<'de> for OnOff {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Bool(bool),
            Word(String),
        }
        match Raw::deserialize(d)? {
            Raw::Bool(b) => Ok(OnOff(b)),
            Raw::Word(w) => match w.as_str() {
                "on" | "true" | "yes" => Ok(OnOff(true)),
                "off" | "false" | "no" => Ok(OnOff(false)),
                other => Err(serde::de::Error::custom(format!(
                    "`{other}` is neither on nor off"
                ))),
            },
        }
    }
}

/// `semantic:` in warroom.yaml.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum SemanticConfig {
    /// `semantic: on` / `off`.
    Switch(OnOff),
    /// `semantic: { model: DIR, weight: 0.5 }` (on unless `on: false`).
    Detail {
        /// On (default when the map is given).
        on: Option<bool>,
        /// A sentence-transformers directory, relative to the root.
        model: Option<PathBuf>,
        /// The lexical side's share in the fusion (0..=1).
        weight: Option<f64>,
        /// The cosine from which a neighbour is the same subject on its own (0..=1).
        overlap_cosine: Option<f64>,
    },
}

/// `secrets:` in warroom.yaml: a policy, or a policy and a team's rules file.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum SecretsConfig {
    /// `secrets: redact` or `secrets: refuse`.
    Policy(SecretPolicy),
    /// `secrets: { policy: refuse, rules: .agents/gitleaks.toml }`.
    Detail {
        /// `redact` (default) or `refuse`.
        policy: Option<SecretPolicy>,
        /// A rules file in gitleaks' TOML format, relative to the root.
        rules: Option<PathBuf>,
    },
}

/// The optional `.agents/warroom.yaml`. Every key is optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// Ledger path (relative to the root), or `postgres://…` for the PostgreSQL backend.
    pub ledger: Option<PathBuf>,
    /// War-rooms directory (relative to the root); OSTwin uses `.war-rooms`.
    pub war_rooms: Option<PathBuf>,
    /// Plans directory (relative to the root).
    pub plans: Option<PathBuf>,
    /// `fsync` after each append (default true).
    pub fsync: Option<bool>,
    /// `redact` (default) or `refuse`; or `{ policy: redact|refuse, rules: FILE }`, FILE
    /// being a team's own rules in gitleaks' TOML format (relative to the root).
    pub secrets: Option<SecretsConfig>,
    /// Per-kind half-life overrides in hours, e.g. `{decision: 500}`.
    pub half_life_hours: Option<std::collections::BTreeMap<String, f64>>,
    /// `blend` (default), `seed` (BM25 × decay exactly) or `relevance` (no decay).
    pub ranking: Option<String>,
    /// Under `blend`: the share of relevance age never takes away (0..=1, default 0.75).
    pub decay_floor: Option<f64>,
    /// Longest wait for another process's append lock, in seconds (default 10).
    pub lock_wait_seconds: Option<f64>,
    /// Roles and rooms allowed to supersede other rooms' entries: `{roles: [..], rooms: [..]}`.
    pub supersede_others: Option<SupersedeOthers>,
    /// `warroom` or `ostwin`: which layout's paths to use (default: detected).
    pub layout: Option<crate::layout::Layout>,
    /// `verify` accepts lines without a `prev` link after chained ones (default false:
    /// such a line is a violation, since this server never writes one). Set it only when
    /// another writer really appends unchained lines beside us.
    pub allow_unchained: Option<bool>,
    /// fsync every context receipt (default false; see `Settings::receipts_fsync`).
    pub receipts_fsync: Option<bool>,
    /// New context receipts one asker may record per minute (default 600).
    pub receipts_per_minute: Option<u32>,
    /// Entries and channel messages one identity may write a minute (default 600).
    pub appends_per_minute: Option<u32>,
    /// MiB of them one identity may write a minute (default 32).
    pub append_mib_per_minute: Option<u64>,
    /// Plans one identity may register a minute (default 10).
    pub plans_per_minute: Option<u32>,
    /// Plans one room may keep registered (default 20).
    pub plans_per_identity: Option<u32>,
    /// `on`, `off` (default), or `{ on: true, model: DIR, weight: 0.5 }`.
    pub semantic: Option<SemanticConfig>,
    /// The console's audit page continues the last verification and runs a full pass in
    /// the background at most once per this many seconds (default 600; 0: on every view).
    pub full_verify_seconds: Option<u64>,
}

impl ConfigFile {
    /// Reads `<root>/.agents/warroom.yaml` if it exists.
    pub fn load(root: &Path) -> Result<Option<ConfigFile>> {
        let path = root.join(".agents").join(CONFIG_FILE);
        let jail = crate::fsx::Jail::new([root]);
        let text = match crate::fsx::read_to_string_in(&path, Some(&jail)) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io("reading config", &path, e)),
        };
        serde_saphyr::from_str::<ConfigFile>(text.strip_prefix('\u{feff}').unwrap_or(&text))
            .map(Some)
            .map_err(|e| {
                Error::invalid(
                    path.display().to_string(),
                    format!("the config file does not parse: {e}"),
                    "see README § Configuration for the accepted keys",
                )
            })
    }

    /// Applies the file to default paths and settings.
    pub fn apply(&self, paths: &mut Paths, settings: &mut Settings) -> Result<()> {
        if let Some(url) = self.ledger.as_ref().and_then(|p| p.to_str())
            && crate::store::pg::DbUrl::is_url(url)
        {
            paths.database = Some(crate::store::pg::DbUrl::parse("ledger", url)?);
        } else if let Some(p) = &self.ledger {
            paths.ledger = paths.rooted(p);
            if let Some(dir) = paths.ledger.parent().map(Path::to_path_buf) {
                paths.trust(&dir);
            }
        }
        if let Some(p) = &self.war_rooms {
            paths.war_rooms = paths.rooted(p);
            paths.trust(&paths.war_rooms.clone());
        }
        if let Some(p) = &self.plans {
            paths.plans = paths.rooted(p);
            paths.trust(&paths.plans.clone());
        }
        if let Some(f) = self.fsync {
            settings.fsync = f;
        }
        if let Some(a) = self.allow_unchained {
            settings.allow_unchained = a;
        }
        if let Some(f) = self.receipts_fsync {
            settings.receipts_fsync = f;
        }
        match &self.semantic {
            None => {}
            Some(SemanticConfig::Switch(on)) => settings.semantic.on = on.0,
            Some(SemanticConfig::Detail {
                on,
                model,
                weight,
                overlap_cosine,
            }) => {
                if let Some(c) = *overlap_cosine {
                    if !(0.0..=1.0).contains(&c) {
                        return Err(Error::invalid(
                            "semantic.overlap_cosine",
                            format!("{c} is outside 0..=1"),
                            "give a cosine such as 0.7 (docs/overlaps.md: 0.55 suits all-MiniLM-L6-v2)",
                        ));
                    }
                    settings.semantic.overlap_cosine = c;
                }
                settings.semantic.on = on.unwrap_or(true);
                settings.semantic.model = model.as_ref().map(|m| paths.rooted(m));
                if let Some(w) = *weight {
                    if !(0.0..=1.0).contains(&w) {
                        return Err(Error::invalid(
                            "semantic.weight",
                            format!("{w} is outside 0..=1"),
                            "give the lexical side's share, e.g. 0.5",
                        ));
                    }
                    settings.semantic.weight = w;
                }
            }
        }
        if let Some(n) = self.full_verify_seconds {
            settings.full_verify_seconds = n;
        }
        if let Some(n) = self.receipts_per_minute {
            if n == 0 {
                return Err(Error::invalid(
                    "receipts_per_minute",
                    "0 would refuse every brief",
                    "give a number such as 600",
                ));
            }
            settings.receipts_per_minute = n;
        }
        let l = &mut settings.limits;
        for (key, given, into) in [
            (
                "appends_per_minute",
                self.appends_per_minute,
                &mut l.appends_per_minute,
            ),
            (
                "plans_per_minute",
                self.plans_per_minute,
                &mut l.plans_per_minute,
            ),
            (
                "plans_per_identity",
                self.plans_per_identity,
                &mut l.plans_per_identity,
            ),
        ] {
            if let Some(n) = given {
                if n == 0 {
                    return Err(Error::invalid(
                        key,
                        "0 would refuse every agent",
                        "give a number such as the default",
                    ));
                }
                *into = n;
            }
        }
        if let Some(n) = self.append_mib_per_minute {
            if n == 0 {
                return Err(Error::invalid(
                    "append_mib_per_minute",
                    "0 would refuse every agent",
                    "give a number such as 32",
                ));
            }
            l.append_mib_per_minute = n;
        }
        match &self.secrets {
            Some(SecretsConfig::Policy(p)) => settings.secrets = *p,
            Some(SecretsConfig::Detail { policy, rules }) => {
                if let Some(p) = policy {
                    settings.secrets = *p;
                }
                if let Some(r) = rules {
                    settings.secret_rules = Some(paths.rooted(r));
                }
            }
            None => {}
        }
        for (name, hours) in self.half_life_hours.iter().flatten() {
            let kind = Kind::parse(&format!("half_life_hours.{name}"), name)?;
            if !(hours.is_finite() && *hours > 0.0) {
                return Err(Error::invalid(
                    format!("half_life_hours.{name}"),
                    format!("{hours} is not a positive number of hours"),
                    "give a positive number such as 336",
                ));
            }
            settings.half_life_hours[kind.index()] = *hours;
        }
        settings.ranking = parse_ranking(self.ranking.as_deref(), self.decay_floor)?;
        if let Some(s) = self.lock_wait_seconds {
            if !(s > 0.0 && s <= 3600.0) {
                return Err(Error::invalid(
                    "lock_wait_seconds",
                    format!("{s} is outside (0, 3600]"),
                    "give a number of seconds such as 10",
                ));
            }
            settings.lock_wait = std::time::Duration::from_secs_f64(s);
        }
        if let Some(p) = &self.supersede_others {
            settings.supersede_others = p.clone();
        }
        Ok(())
    }
}

/// The ranking named by the config's `ranking` and `decay_floor` keys.
pub fn parse_ranking(name: Option<&str>, floor: Option<f64>) -> Result<crate::index::Ranking> {
    use crate::index::{DEFAULT_DECAY_FLOOR, Ranking};
    if let Some(f) = floor
        && !(0.0..=1.0).contains(&f)
    {
        return Err(Error::invalid(
            "decay_floor",
            format!("{f} is outside 0..=1"),
            "give a share such as 0.75 (0 = the seed's full decay, 1 = no decay)",
        ));
    }
    match name.unwrap_or("blend") {
        "blend" => Ok(Ranking::Blend {
            floor: floor.unwrap_or(DEFAULT_DECAY_FLOOR),
        }),
        other if floor.is_some() => Err(Error::invalid(
            "decay_floor",
            format!("it only applies to `ranking: blend`, not `{other}`"),
            "remove decay_floor, or set ranking: blend",
        )),
        "seed" => Ok(Ranking::Seed),
        "relevance" => Ok(Ranking::Relevance),
        other => Err(Error::invalid(
            "ranking",
            format!("`{}` is not a ranking", crate::validate::printable(other)),
            "use blend (default), seed or relevance",
        )),
    }
}
