//! tantivy on the same texts, for the side-by-side column of `bench`: what a Rust engineer
//! would pick instead of our index. Compiled only with `--features tantivy-compare`.

use super::measure::Micros;

/// Builds an in-RAM tantivy index (English stemming, like our tokenizer) over `docs` and
/// times `queries` as OR-queries ranked by BM25, 10 hits each. Returns the latencies and
/// the build time in ms, or `None` when the feature is off.
#[cfg(feature = "tantivy-compare")]
pub fn measure(docs: &[String], queries: &[String]) -> anyhow::Result<Option<(Micros, f64)>> {
    use std::time::Instant;
    use tantivy::collector::TopDocs;
    use tantivy::query::QueryParser;
    use tantivy::schema::{IndexRecordOption, Schema, TextFieldIndexing, TextOptions};
    use tantivy::{Index, TantivyDocument, doc};

    let mut builder = Schema::builder();
    let indexing = TextFieldIndexing::default()
        .set_tokenizer("en_stem")
        .set_index_option(IndexRecordOption::WithFreqs);
    let body = builder.add_text_field(
        "body",
        TextOptions::default().set_indexing_options(indexing),
    );
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
    for q in queries.iter().take(20) {
        run(q)?; // warm-up
    }
    let mut samples = Vec::with_capacity(queries.len());
    for q in queries {
        let t = Instant::now();
        std::hint::black_box(run(q)?);
        samples.push(t.elapsed());
    }
    Ok(Some((Micros::of(samples), build_ms)))
}

/// Without the `tantivy-compare` feature there is nothing to compare against.
#[cfg(not(feature = "tantivy-compare"))]
pub fn measure(_docs: &[String], _queries: &[String]) -> anyhow::Result<Option<(Micros, f64)>> {
    Ok(None)
}
