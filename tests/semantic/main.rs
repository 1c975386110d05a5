//! The tests of the `semantic` cargo feature, their own binary: CI runs them a second time
//! with the feature on (`cargo test -p warroom-memory --features semantic --test semantic`);
//! the rest of the suite does not change with it. The harness is the main suite's.

#[path = "../it/common/mod.rs"]
mod common;

mod semantic;
mod semantic_fetch;
