//! The integration tests, one binary (one link for the whole suite): every test drives the
//! real `warroom-memory` binary — over stdio, HTTP, the Unix socket and the CLI — or reads
//! the repository (architecture rules, the code map). One module per area; `common` is
//! the harness they share. The semantic feature's tests are the `semantic` binary beside it.

mod common;

mod any_script;
mod architecture;
mod architecture_map;
mod audit;
mod audit_continued;
mod bounded_waits;
mod brief_selection;
mod budgets;
mod channel_bounds;
mod cold_start_snapshot;
mod console;
mod console_browser;
mod daemon;
mod epic_words;
mod hostile;
mod http_hardening;
mod ledger_model;
mod live;
mod live_bounds;
mod load_balanced;
mod mcp_ledger;
mod mcp_ledger_edges;
mod mcp_plans;
mod mcp_revisions;
mod mcp_rooms;
mod multiprocess;
mod ostwin;
mod overlaps;
mod overlaps_browser;
mod overlaps_kept;
mod plan_bounds;
mod pointers;
mod postgres;
mod postgres_outage;
mod postgres_transfer;
mod receipts;
mod reliability;
mod replay_horizon;
mod robustness;
mod scenarios;
mod search_pruning;
mod search_quality;
mod snapshots;
mod tamper;
mod tool_surface;
mod trust_authorship;
mod trust_secrets;
mod two_hosts;
mod verify_continue;
mod visibility;
