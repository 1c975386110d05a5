//! The full-text index: words to postings. Tokens ([`tokens`]) and the tokenizer cache
//! ([`chunks`]), the vocabulary ([`vocab`]), field lengths ([`norms`]), the inverted index
//! and how entries are added to it ([`inverted`], [`inverted_add`], [`inverted_job`]), and
//! the postings lists with their records ([`postings`], [`records`], [`lists`]).

pub(crate) mod chunks;
pub(crate) mod inverted;
pub(crate) mod inverted_add;
pub(crate) mod inverted_job;
pub(crate) mod lists;
pub(crate) mod norms;
pub(crate) mod postings;
pub(crate) mod records;
pub mod tokens;
pub(crate) mod vocab;
