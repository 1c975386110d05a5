"""A data-platform world (12 epics, long chains), in the interface of ../shared/brief-check/brief_world.py:
written for this project as a second check beside the shop world. Run it with
    PYTHONPATH=xtask/worlds python3 ../shared/brief-check/brief_recall.py --world data_platform \
        --bin target/release/warroom-memory --noise 0,5,20,60 --beat kinds,twins
"""
EPICS = [
    ("EPIC-01", "room-ingest", "Event ingestion gateway", [], ["ingest", "gateway", "collector", "http"]),
    ("EPIC-02", "room-schema", "Schema registry", ["EPIC-01"], ["schema", "registry", "avro", "compatibility"]),
    ("EPIC-03", "room-stream", "Stream processing", ["EPIC-02"], ["stream", "kafka", "windows", "operators"]),
    ("EPIC-04", "room-lake", "Data lake storage", ["EPIC-03"], ["lake", "parquet", "partitions", "object store"]),
    ("EPIC-05", "room-catalog", "Dataset catalog", ["EPIC-04", "EPIC-02"], ["catalog", "datasets", "lineage", "owners"]),
    ("EPIC-06", "room-quality", "Data quality checks", ["EPIC-05"], ["quality", "expectations", "checks", "alerts"]),
    ("EPIC-07", "room-warehouse", "Warehouse loads", ["EPIC-04", "EPIC-06"], ["warehouse", "loads", "tables", "merge"]),
    ("EPIC-08", "room-query", "Query service", ["EPIC-07"], ["query", "sql", "engine", "caching"]),
    ("EPIC-09", "room-access", "Access control", ["EPIC-05", "EPIC-08"], ["access", "grants", "policies", "roles"]),
    ("EPIC-10", "room-bi", "BI dashboards", ["EPIC-08", "EPIC-09"], ["dashboards", "charts", "bi", "sharing"]),
    ("EPIC-11", "room-ml", "Feature store", ["EPIC-07", "EPIC-09"], ["features", "training", "serving", "ml"]),
    ("EPIC-12", "room-billing", "Usage billing", ["EPIC-10", "EPIC-11"], ["billing", "usage", "invoices", "metering"]),
]
ALL = [e[0] for e in EPICS]
CONVENTIONS = [
    ("room-ingest", "architect", "Every record carries event_time and ingest_time as epoch microseconds in UTC; never wall-clock strings.", ["time"]),
    ("room-schema", "architect", "Dataset names are lower_snake_case domain.entity.version, for example sales.order.v3.", ["naming"]),
    ("room-stream", "architect", "Services expose Prometheus metrics on :9102/metrics with the service name as a label.", ["metrics"]),
]
EXPORTS = [
    ("room-ingest", "architect", "interface", "POST /v1/events takes a JSON array of at most 500 events and answers 202 with a batch id.", ["api"], ["EPIC-02", "EPIC-03"]),
    ("room-ingest", "qa", "warning", "Clients retry on 429 and the gateway does not deduplicate: consumers must drop repeated event_id values.", ["dedup"], ["EPIC-03", "EPIC-04", "EPIC-07"]),
    ("room-ingest", "architect", "decision", "Every event has a tenant_id; records without one are refused at the edge.", ["tenancy"], ["EPIC-05", "EPIC-09", "EPIC-12"]),
    ("room-schema", "architect", "interface", "GET /subjects/{name}/versions/latest returns {id, version, schema}; cache by id, ids never change.", ["api"], ["EPIC-03", "EPIC-05"]),
    ("room-schema", "architect", "decision", "Only backward-compatible changes are registered: new fields need defaults, no field is ever removed.", ["compat"], ["EPIC-03", "EPIC-04", "EPIC-07", "EPIC-11"]),
    ("room-schema", "qa", "warning", "Enum values added upstream break readers built on older schemas; treat unknown enum symbols as null.", ["enums"], ["EPIC-07", "EPIC-11"]),
    ("room-stream", "engineer", "interface", "Processed records land on topic clean.<dataset> keyed by tenant_id, with a header carrying the schema id.", ["topics"], ["EPIC-04", "EPIC-07"]),
    ("room-stream", "architect", "decision", "Windows close 10 minutes after event time; later records go to topic late.<dataset>.", ["windows"], ["EPIC-04", "EPIC-06", "EPIC-07"]),
    ("room-stream", "qa", "warning", "Ordering holds only within a tenant's partition; never assume global order across tenants.", ["ordering"], ["EPIC-07", "EPIC-11"]),
    ("room-lake", "architect", "interface", "Files are written to s3://lake/<dataset>/dt=YYYY-MM-DD/hour=HH/ as Parquet with zstd, 256 MB target size.", ["layout"], ["EPIC-05", "EPIC-07", "EPIC-11"]),
    ("room-lake", "architect", "decision", "A partition is complete only when its _SUCCESS marker exists; read nothing before it.", ["completeness"], ["EPIC-06", "EPIC-07", "EPIC-11"]),
    ("room-lake", "qa", "warning", "Object listings are eventually consistent for up to a minute after the marker; retry a missing file before failing.", ["s3"], ["EPIC-07"]),
    ("room-catalog", "architect", "interface", "GET /datasets/{name} returns {owner, schema_id, freshness_sla, classification, lineage}.", ["api"], ["EPIC-06", "EPIC-09", "EPIC-10"]),
    ("room-catalog", "architect", "decision", "Columns classified pii must be hashed with the tenant's salt before leaving the lake.", ["privacy"], ["EPIC-07", "EPIC-09", "EPIC-11", "EPIC-10"]),
    ("room-catalog", "engineer", "interface", "dataset.changed is published on the bus whenever an owner, schema or classification changes.", ["events"], ["EPIC-06", "EPIC-09"]),
    ("room-quality", "engineer", "interface", "A failed check writes a row to quality.results and sets the dataset's status to quarantined.", ["results"], ["EPIC-07", "EPIC-10"]),
    ("room-quality", "qa", "warning", "Checks run after loads start; a quarantined dataset can be half loaded, so check status before reading.", ["status"], ["EPIC-07", "EPIC-08"]),
    ("room-warehouse", "architect", "interface", "Warehouse tables are named wh.<domain>_<entity> and loaded by MERGE on (tenant_id, id), hourly.", ["tables"], ["EPIC-08", "EPIC-10", "EPIC-11"]),
    ("room-warehouse", "architect", "decision", "Deletes are soft: rows get deleted_at and stay 30 days; filter deleted_at IS NULL.", ["deletes"], ["EPIC-08", "EPIC-10", "EPIC-11", "EPIC-12"]),
    ("room-warehouse", "qa", "warning", "Late partitions are merged the next hour: yesterday's totals change until 02:00 UTC.", ["late"], ["EPIC-10", "EPIC-12"]),
    ("room-query", "architect", "interface", "POST /query {sql, tenant_id} returns a cursor; fetch pages with GET /query/{id}?page_token=.", ["api"], ["EPIC-09", "EPIC-10", "EPIC-11"]),
    ("room-query", "engineer", "decision", "Results are cached for 5 minutes per (tenant, normalised sql); pass no_cache for fresh reads.", ["cache"], ["EPIC-10", "EPIC-12"]),
    ("room-query", "qa", "warning", "Queries over 60 seconds are killed; split long scans by partition.", ["timeouts"], ["EPIC-10", "EPIC-11", "EPIC-12"]),
    ("room-access", "architect", "interface", "Policies are checked with authz.check(principal, action, dataset) which returns allow, deny or mask.", ["authz"], ["EPIC-10", "EPIC-11", "EPIC-12"]),
    ("room-access", "architect", "decision", "Masking is applied in the query service, never in clients; a masked column returns null.", ["masking"], ["EPIC-10", "EPIC-11"]),
    ("room-bi", "engineer", "interface", "Dashboards embed with a signed URL valid 10 minutes; the signature covers tenant and dashboard id.", ["embed"], ["EPIC-12"]),
    ("room-ml", "engineer", "interface", "Features are served by GET /features/{entity}/{id}?set=NAME within 20 ms p99.", ["serving"], ["EPIC-12"]),
    ("room-ml", "architect", "decision", "Training reads snapshots pinned by date, never the live warehouse tables.", ["training"], ["EPIC-12"]),
    ("room-ingest", "engineer", "code", "The shared client crate wr-ingest-client batches, compresses and retries; use it rather than raw HTTP.", ["client"], ["EPIC-03", "EPIC-11"]),
    ("room-lake", "engineer", "artifact", "The lake's Terraform module modules/lake creates buckets, lifecycle rules and the reader role.", ["infra"], ["EPIC-07", "EPIC-11"]),
]
SUPERSEDED = [
    ("room-schema", "architect", "decision", "Schemas are JSON Schema documents stored in the registry.", "Schemas are Avro; JSON Schema documents were converted and are no longer accepted.", ["format"], ["EPIC-03", "EPIC-05"]),
    ("room-warehouse", "architect", "decision", "Loads run nightly at 01:00 UTC.", "Loads run hourly at minute 15; the nightly load is gone.", ["schedule"], ["EPIC-08", "EPIC-10", "EPIC-12"]),
]
NOUNS = {
    "room-ingest": ["collector", "batch", "gateway", "payload", "retry queue"],
    "room-schema": ["subject", "schema", "compatibility check", "registry cache"],
    "room-stream": ["operator", "window", "topic", "consumer group", "watermark"],
    "room-lake": ["partition", "parquet writer", "compaction", "manifest"],
    "room-catalog": ["dataset", "lineage graph", "owner", "classification"],
    "room-quality": ["expectation", "check", "quarantine", "profile"],
    "room-warehouse": ["merge", "load", "staging table", "snapshot"],
    "room-query": ["planner", "cursor", "result cache", "sql parser"],
    "room-access": ["policy", "grant", "principal", "mask"],
    "room-bi": ["dashboard", "chart", "embed", "filter"],
    "room-ml": ["feature", "training set", "embedding", "model registry"],
    "room-billing": ["meter", "invoice", "usage record", "rate card"],
}
INTERNAL_TEMPLATES = [
    ("interface", "engineer", "Internal helper {u}_for_tests() in {m}/src/{f}.rs builds a {n} fixture; not for other services"),
    ("interface", "engineer", "Private trait {u}Store in {m}/src/{f}.rs hides the {n} backend from the handlers"),
    ("code", "engineer", "Rewrote {n} handling in {m}/src/{f}.rs to stream instead of buffering"),
    ("code", "engineer", "{n} code in {f}.rs now returns typed errors instead of strings"),
    ("warning", "qa", "The {n} suite times out on the shared runner; use the {f} profile locally"),
    ("warning", "engineer", "Never commit the {n} credentials file; {m}/secrets/{f}.env is gitignored for a reason"),
    ("decision", "engineer", "Chose a bounded channel of {k} slots between the {n} reader and the {f} writer"),
    ("decision", "architect", "The {n} tables stay private to {m}; other services go through its API"),
    ("artifact", "engineer", "Runbook for {n} incidents at {m}/runbooks/{f}.md"),
    ("artifact", "qa", "Captured {k} sample {n} payloads under {m}/testdata/{f}/"),
    ("code", "engineer", "Removed the unused {n} shim ({k} lines) from {f}.rs"),
    ("decision", "engineer", "Pinned the {n} dependency to avoid a regression in {f} handling"),
    ("warning", "engineer", "{n} metrics double count when the {f} worker restarts; fix pending"),
    ("code", "qa", "Added a regression test for {n} ordering in {m}/tests/{f}.rs"),
]
FILES = ["reader", "writer", "handlers", "config", "state", "pipeline", "client", "main", "schema", "io"]
OBJECTIVE = {}

def depends():
    return {ref: deps for ref, _room, _t, deps, _k in EPICS}

ROOM = {ref: room for ref, room, _t, _d, _k in EPICS}

def ancestors(ref):
    dep, out, stack = depends(), set(), list(depends()[ref])
    while stack:
        r = stack.pop()
        if r not in out:
            out.add(r)
            stack.extend(dep[r])
    return out
