//! SQLite FTS5 `bm25()` on the same texts, for the side-by-side column of `bench`.
//! Compiled only with `--features sqlite-compare` (it builds SQLite from source).

use super::measure::Micros;

/// Builds an in-memory FTS5 index (porter stemming, like our tokenizer) over `docs` and
/// times `queries` as OR-queries ranked by `bm25()`, 10 rows each. Returns the latencies
/// and the build time in ms, or `None` when the feature is off.
#[cfg(feature = "sqlite-compare")]
pub fn measure(docs: &[String], queries: &[String]) -> anyhow::Result<Option<(Micros, f64)>> {
    use std::time::Instant;
    let conn = rusqlite::Connection::open_in_memory()?;
    conn.execute_batch(
        "CREATE VIRTUAL TABLE fts USING fts5(body, tokenize = 'porter unicode61');",
    )?;
    let t = Instant::now();
    let tx = conn.unchecked_transaction()?;
    {
        let mut insert = tx.prepare("INSERT INTO fts(rowid, body) VALUES (?1, ?2)")?;
        for (i, d) in docs.iter().enumerate() {
            insert.execute((i as i64, d))?;
        }
    }
    tx.commit()?;
    let build_ms = t.elapsed().as_secs_f64() * 1e3;
    let mut stmt = conn.prepare(
        "SELECT rowid, bm25(fts) FROM fts WHERE fts MATCH ?1 ORDER BY bm25(fts) LIMIT 10",
    )?;
    let mut samples = Vec::with_capacity(queries.len());
    for q in queries {
        let expr = q
            .split_whitespace()
            .map(|w| format!("\"{}\"", w.replace('"', "")))
            .collect::<Vec<_>>()
            .join(" OR ");
        let t = Instant::now();
        let rows: Vec<i64> = stmt
            .query_map([expr], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        samples.push(t.elapsed());
        std::hint::black_box(rows);
    }
    Ok(Some((Micros::of(samples), build_ms)))
}

/// Without the `sqlite-compare` feature there is nothing to compare against.
#[cfg(not(feature = "sqlite-compare"))]
pub fn measure(_docs: &[String], _queries: &[String]) -> anyhow::Result<Option<(Micros, f64)>> {
    Ok(None)
}

/// FTS5 OR-query over the words of each query (letters and digits only, so questions'
/// punctuation is no syntax), ranked by `bm25()`: the first `k` rows per query, as indexes
/// into `docs`. `None` when the feature is off.
#[cfg(feature = "sqlite-compare")]
pub fn top_k(
    docs: &[String],
    queries: &[String],
    k: usize,
) -> anyhow::Result<Option<Vec<Vec<usize>>>> {
    let conn = rusqlite::Connection::open_in_memory()?;
    conn.execute_batch(
        "CREATE VIRTUAL TABLE fts USING fts5(body, tokenize = 'porter unicode61');",
    )?;
    {
        let mut insert = conn.prepare("INSERT INTO fts(rowid, body) VALUES (?1, ?2)")?;
        for (i, d) in docs.iter().enumerate() {
            insert.execute((i as i64, d))?;
        }
    }
    let mut stmt =
        conn.prepare("SELECT rowid FROM fts WHERE fts MATCH ?1 ORDER BY bm25(fts) LIMIT ?2")?;
    let mut out = Vec::with_capacity(queries.len());
    for q in queries {
        let words: Vec<String> = q
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(|w| format!("\"{w}\""))
            .collect();
        if words.is_empty() {
            out.push(Vec::new());
            continue;
        }
        let rows: Vec<i64> = stmt
            .query_map((words.join(" OR "), k as i64), |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        out.push(rows.into_iter().map(|r| r as usize).collect());
    }
    Ok(Some(out))
}

/// Without the `sqlite-compare` feature there is nothing to compare against.
#[cfg(not(feature = "sqlite-compare"))]
pub fn top_k(
    _docs: &[String],
    _queries: &[String],
    _k: usize,
) -> anyhow::Result<Option<Vec<Vec<usize>>>> {
    Ok(None)
}
