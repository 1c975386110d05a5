//! How relevance and age combine into one score: the ranking setting.
//!
//! The seed multiplies BM25 by `exp(−λ_kind × age)`. Measured on LoCoMo (README), that
//! buries strong old matches: a five-month-old exact answer weighs ~1e-7 at a 168 h
//! half-life and loses to any fresh entry sharing one word. The default therefore keeps
//! the per-kind half-lives but bounds what age can take away:
//!
//! `score = relevance × (floor + (1 − floor) × exp(−λ_kind × age))`
//!
//! With `floor` = [`DEFAULT_DECAY_FLOOR`], a fresh entry beats an old one only if it is at
//! least `floor` times as relevant (0.75: "comparably relevant"); between equally relevant
//! entries the fresher still wins, per kind, exactly as in the seed. The time factor is at
//! most 1, so BM25 upper bounds stay valid for top-k pruning.

use warroom_base::clock::Timestamp;

/// Everything that turns relevance and age into a score at one moment: the server's now,
/// the per-kind half-lives (indexed by [`crate::entry::Kind::index`]) and the ranking.
#[derive(Clone, Copy, Debug)]
pub struct Scorer {
    /// The server's now; ages are measured from it.
    pub now: Timestamp,
    /// Half-life in hours per kind.
    pub half_lives: [f64; 6],
    /// How relevance and decay combine.
    pub ranking: Ranking,
}

/// Default share of the score that age can never take away.
pub const DEFAULT_DECAY_FLOOR: f64 = 0.75;

/// The ranking used by search and predecessor context.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ranking {
    /// BM25F over summary, tags, detail and ref × `floor + (1 − floor) × decay`.
    Blend {
        /// Share of relevance that age never takes away (0 ≤ floor ≤ 1).
        floor: f64,
    },
    /// The seed formula exactly: BM25 over summary + tags × decay.
    Seed,
    /// BM25F alone, age ignored (for comparisons; ties still go to the newer entry).
    Relevance,
}

impl Default for Ranking {
    fn default() -> Self {
        Ranking::Blend {
            floor: DEFAULT_DECAY_FLOOR,
        }
    }
}

impl Ranking {
    /// The text scoring this ranking uses.
    pub fn scoring(self) -> crate::inverted::Scoring {
        match self {
            Ranking::Seed => crate::inverted::Scoring::Seed,
            Ranking::Blend { .. } | Ranking::Relevance => crate::inverted::Scoring::Fielded,
        }
    }

    /// The factor applied to relevance for an entry whose seed decay is `decay`.
    pub fn time_factor(self, decay: f64) -> f64 {
        match self {
            Ranking::Blend { floor } => floor + (1.0 - floor) * decay,
            Ranking::Seed => decay,
            Ranking::Relevance => 1.0,
        }
    }

    /// `ln(time_factor)` for an entry whose `ln(decay)` is `log_decay` (≤ 0); exact for
    /// the seed even where `exp` would underflow.
    pub fn log_time_factor(self, log_decay: f64) -> f64 {
        match self {
            Ranking::Seed => log_decay,
            other => other.time_factor(log_decay.exp()).ln(),
        }
    }

    /// The setting's name as written in `.agents/warroom.yaml`.
    pub fn name(self) -> &'static str {
        match self {
            Ranking::Blend { .. } => "blend",
            Ranking::Seed => "seed",
            Ranking::Relevance => "relevance",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blend_orders_equals_by_age_but_never_buries() {
        let r = Ranking::default();
        // Equal relevance: fresher wins.
        assert!(r.time_factor(0.9) > r.time_factor(0.1));
        // A strong old match (decay ~0) beats a fresh one less than `floor` as relevant.
        let old = 1.0 * r.time_factor(1e-7);
        let fresh_weak = 0.7 * r.time_factor(1.0);
        assert!(old > fresh_weak);
        assert_eq!(Ranking::Seed.time_factor(0.25), 0.25);
        assert_eq!(Ranking::Relevance.time_factor(0.25), 1.0);
        assert_eq!(Ranking::Seed.log_time_factor(-1000.0), -1000.0);
        assert!((r.log_time_factor(0.0)).abs() < 1e-12);
    }
}
