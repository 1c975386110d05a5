//! The leaves every layer of warroom-memory stands on: cutting text at boundaries it
//! found ([`text`]), the core's typed errors ([`error`]), how project files are opened
//! ([`fsx`]), cancellation up to a commit point ([`cancel`]), work split over the cores
//! ([`par`]) and time as an input ([`clock`]). Nothing here knows entries, storage or the
//! index.

pub mod cancel;
pub mod clock;
pub mod error;
pub mod fsx;
pub mod par;
pub mod text;
