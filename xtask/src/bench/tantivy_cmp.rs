//! tantivy on the same texts, for the side-by-side column of `bench`: what a Rust engineer
//! would pick instead of our index. Compiled only with `--features tantivy-compare`.

use super::measure::Micros;

/// A schema builder with the text field `body`: English stemming (like our tokenizer) and
/// term frequencies, what BM25 needs.
#[cfg(feature = "tantivy-compare")]
fn with_body() -> (tantivy::schema::SchemaBuilder, tantivy::schema::Field) {
    use tantivy::schema::{IndexRecordOption, Schema, TextFieldIndexing, TextOptions};
    let mut builder = Schema::builder();
    let indexing = TextFieldIndexing::default()
        .set_tokenizer("en_stem")
        .set_index_option(IndexRecordOption::WithFreqs);
    let body = builder.add_text_field(
        "body",
        TextOptions::default().set_indexing_options(indexing),
    );
    (builder, body)
}

/// Latencies of `run` over `queries`, after 20 of them as a warm-up.
#[cfg(feature = "tantivy-compare")]
fn timed(
    queries: &[String],
    run: impl Fn(&str) -> anyhow::Result<usize>,
) -> anyhow::Result<Micros> {
    for q in queries.iter().take(20) {
        run(q)?;
    }
    let mut samples = Vec::with_capacity(queries.len());
    for q in queries {
        let t = std::time::Instant::now();
        std::hint::black_box(run(q)?);
        samples.push(t.elapsed());
    }
    Ok(Micros::of(samples))
}

/// Builds an in-RAM tantivy index (English stemming, like our tokenizer) over `docs` and
/// times `queries` as OR-queries ranked by BM25, 10 hits each. Returns the latencies and
/// the build time in ms, or `None` when the feature is off.
#[cfg(feature = "tantivy-compare")]
pub fn measure(docs: &[String], queries: &[String]) -> anyhow::Result<Option<(Micros, f64)>> {
    use std::time::Instant;
    use tantivy::collector::TopDocs;
    use tantivy::query::QueryParser;
    use tantivy::{Index, TantivyDocument, doc};

    let (builder, body) = with_body();
    let index = Index::create_in_ram(builder.build());
    let t = Instant::now();
    let mut writer = index.writer::<TantivyDocument>(256 << 20)?;
    for d in docs {
        writer.add_document(doc!(body => d.as_str()))?;
    }
    writer.commit()?;
    let reader = index.reader()?;
    let build_ms = t.elapsed().as_secs_f64() * 1e3;
    let searcher = reader.searcher();
    let parser = QueryParser::for_index(&index, vec![body]);
    let run = |q: &str| -> anyhow::Result<usize> {
        let (query, _) = parser.parse_query_lenient(q);
        Ok(searcher
            .search(&query, &TopDocs::with_limit(10).order_by_score())?
            .len())
    };
    Ok(Some((timed(queries, run)?, build_ms)))
}

/// tantivy doing what our `memory_search` does, end to end, on the ledger at `corpus`:
/// the same text, the searching room's own entries left out, BM25 × our time factor
/// (`floor + (1 − floor) × exp(−ln 2 × age / half_life(kind))`, from `ts` and `kind` fast
/// fields), and the 10 hits' entries fetched from its stored lines and parsed, as we
/// return them. The generated corpus supersedes nothing, so the
/// exclusion of superseded entries has nothing to do on either side. Two ways: every
/// match scored with the time factor (`tweak_score`, no pruning), and the best k by BM25
/// (pruned) re-ranked, k widened until that is exact. Returns both latencies, or `None`
/// when the feature is off.
#[cfg(feature = "tantivy-compare")]
pub fn measure_same_work(
    corpus: &std::path::Path,
    queries: &[String],
    scorer: warroom_memory::index::Scorer,
    own_room: &str,
) -> anyhow::Result<Option<(Micros, Micros)>> {
    use tantivy::collector::TopDocs;
    use tantivy::query::{BooleanQuery, Occur, Query, QueryParser, TermQuery};
    use tantivy::schema::{FAST, IndexRecordOption, STORED, STRING, Value};
    use tantivy::{DocId, Index, Score, SegmentReader, TantivyDocument, Term, doc};

    let (mut builder, body) = with_body();
    let room = builder.add_text_field("room", STRING);
    let ts = builder.add_u64_field("ts", FAST);
    let kind = builder.add_u64_field("kind", FAST);
    // The room again as a number, for a filter after the search (see `reranked`).
    let room_no = builder.add_u64_field("room_no", FAST);
    let mut rooms = std::collections::HashMap::<String, u64>::new();
    let line = builder.add_text_field("line", STORED);
    let index = Index::create_in_ram(builder.build());
    let mut writer = index.writer::<TantivyDocument>(256 << 20)?;
    // Line by line: at 10M entries the ledger is 5 GB.
    for l in std::io::BufRead::lines(std::io::BufReader::new(std::fs::File::open(corpus)?)) {
        let l = l?;
        let Ok((e, t)) = warroom_memory::entry::Entry::from_line(l.as_bytes()) else {
            continue;
        };
        let text = format!("{} {} {} {}", e.summary, e.tags.join(" "), e.detail, e.ref_);
        writer.add_document(doc!(
            body => text,
            room => e.room_id.as_str(),
            room_no => {
                let next = rooms.len() as u64;
                *rooms.entry(e.room_id.clone()).or_insert(next)
            },
            ts => u64::try_from(t.0).unwrap_or(0),
            kind => e.kind.index() as u64,
            line => l.as_str(),
        ))?;
    }
    writer.commit()?;
    drop(writer);
    let reader = index.reader()?;
    let searcher = reader.searcher();
    let parser = QueryParser::for_index(&index, vec![body]);
    let own = TermQuery::new(
        Term::from_field_text(room, own_room),
        IndexRecordOption::Basic,
    );
    let time_factor = move |seg: &SegmentReader| {
        let column = |name: &str| {
            seg.fast_fields()
                .u64(name)
                .expect("the schema has this fast field")
                .first_or_default_col(0)
        };
        let (ts, kind) = (column("ts"), column("kind"));
        move |doc: DocId, bm25: Score| -> f64 {
            let age =
                warroom_memory::clock::Timestamp(ts.get_val(doc) as i64).age_hours(scorer.now);
            let half_life = scorer.half_lives[kind.get_val(doc) as usize];
            let decay = warroom_memory::index::decay(age, half_life);
            f64::from(bm25) * scorer.ranking.time_factor(decay)
        }
    };
    // The time factor and room per segment, opened before timing (as a server would
    // keep them).
    let factors: Vec<_> = searcher.segment_readers().iter().map(time_factor).collect();
    let room_nos: Vec<_> = searcher
        .segment_readers()
        .iter()
        .map(|seg| {
            let column = seg.fast_fields().u64("room_no");
            column
                .expect("the schema has room_no")
                .first_or_default_col(0)
        })
        .collect();
    let own_no = rooms.get(own_room).copied().unwrap_or(u64::MAX);
    let query_of = |q: &str| {
        let (text, _) = parser.parse_query_lenient(q);
        BooleanQuery::new(vec![
            (Occur::Must, text),
            (Occur::MustNot, Box::new(own.clone()) as Box<dyn Query>),
        ])
    };
    let fetch = |hits: &[tantivy::DocAddress]| -> anyhow::Result<usize> {
        let mut fetched = 0;
        for &address in hits {
            let d: TantivyDocument = searcher.doc(address)?;
            let stored = d.get_first(line).and_then(|v| v.as_str()).unwrap_or("");
            if warroom_memory::entry::Entry::from_line(stored.as_bytes()).is_ok() {
                fetched += 1;
            }
        }
        Ok(fetched)
    };
    // Every match scored with the time factor: exact, but without block-max pruning.
    let tweaked = |q: &str| -> anyhow::Result<usize> {
        let top = TopDocs::with_limit(10).tweak_score(time_factor);
        let hits: Vec<_> = searcher
            .search(&query_of(q), &top)?
            .into_iter()
            .map(|(_, a)| a)
            .collect();
        fetch(&hits)
    };
    // The best `k` by BM25 (block-max WAND: the query has only `Should` terms, as a
    // `MustNot` clause turns pruning off), the own room's left out and the rest re-ranked
    // with the time factor; exact once the 10th re-ranked score reaches the k-th BM25 (a
    // document not fetched has BM25 at most that, and a time factor at most 1), else `k`
    // grows fourfold and it runs again. Starting at 80 was the fastest at 100k (p50 299 µs;
    // 20: 398, 50: 333, 160: 373): few queries need a second run.
    let reranked = |q: &str| -> anyhow::Result<usize> {
        let (query, _) = parser.parse_query_lenient(q);
        let mut k = 80;
        loop {
            let top = searcher.search(&query, &TopDocs::with_limit(k).order_by_score())?;
            let mut scored: Vec<(f64, tantivy::DocAddress)> = top
                .iter()
                .filter(|(_, a)| room_nos[a.segment_ord as usize].get_val(a.doc_id) != own_no)
                .map(|&(bm25, a)| (factors[a.segment_ord as usize](a.doc_id, bm25), a))
                .collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0));
            let exact = top.len() < k
                || scored
                    .get(9)
                    .is_some_and(|tenth| tenth.0 >= f64::from(top[k - 1].0));
            if exact {
                let hits: Vec<_> = scored.iter().take(10).map(|&(_, a)| a).collect();
                return fetch(&hits);
            }
            k *= 4;
        }
    };
    Ok(Some((timed(queries, tweaked)?, timed(queries, reranked)?)))
}

/// Without the `tantivy-compare` feature there is nothing to compare against.
#[cfg(not(feature = "tantivy-compare"))]
pub fn measure_same_work(
    _corpus: &std::path::Path,
    _queries: &[String],
    _scorer: warroom_memory::index::Scorer,
    _own_room: &str,
) -> anyhow::Result<Option<(Micros, Micros)>> {
    Ok(None)
}

/// Without the `tantivy-compare` feature there is nothing to compare against.
#[cfg(not(feature = "tantivy-compare"))]
pub fn measure(_docs: &[String], _queries: &[String]) -> anyhow::Result<Option<(Micros, f64)>> {
    Ok(None)
}
