//! The database schema and its versioned migrations, applied by the binary itself
//! (`warroom-memory db migrate`, and on first use).
//!
//! Append-only is enforced by the database, not by our code: triggers refuse every
//! `UPDATE`, `DELETE` and `TRUNCATE` of `ledger_lines`, `channel_lines` and `plan_lines`
//! (version 2: every registration of a plan, newest wins), whoever sends
//! it — a buggy or hostile client holding the application's credentials included. Only
//! the tables' owner can drop those triggers; README § PostgreSQL says how to run the
//! application as a role that does not own them. A unique index on `supersedes` makes a
//! second supersede of one entry fail even if two hosts raced past every other check;
//! a unique `entry_id` makes a retried commit of one entry impossible to store twice.

use std::io;

use postgres::Client;

/// Advisory-lock namespace (first key) of schema migrations.
pub const LOCK_MIGRATE: i32 = 0x5752_0000;
/// Advisory-lock namespace of the ledger.
pub const LOCK_LEDGER: i32 = 0x5752_0001;
/// Advisory-lock namespace of channels (second key: `hashtext(room)`).
pub const LOCK_CHANNEL: i32 = 0x5752_0002;

/// Advisory-lock namespace of registered plans.
pub const LOCK_PLANS: i32 = 0x5752_0003;
/// Advisory lock of the context receipts' stream.
pub const LOCK_RECEIPTS: i32 = 0x5752_0004;

/// The schema version this binary writes and understands.
pub const VERSION: i32 = 3;

/// Migration `n` (1-based) brings the schema from version `n − 1` to `n`.
const MIGRATIONS: [&str; 3] = [
    r#"
CREATE TABLE ledger_lines (
    seq        bigserial PRIMARY KEY,
    line       bytea NOT NULL,
    entry_id   text UNIQUE,
    supersedes text UNIQUE,
    stored_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE channel_lines (
    seq        bigserial PRIMARY KEY,
    room       text NOT NULL,
    line       bytea NOT NULL,
    msg_id     text,
    stored_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (room, msg_id)
);
CREATE INDEX channel_lines_room_seq ON channel_lines (room, seq);

CREATE FUNCTION warroom_refuse_rewrite() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'warroom-memory: % of % is refused: this table is append-only', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER ledger_lines_append_only BEFORE UPDATE OR DELETE ON ledger_lines
    FOR EACH ROW EXECUTE FUNCTION warroom_refuse_rewrite();
CREATE TRIGGER ledger_lines_no_truncate BEFORE TRUNCATE ON ledger_lines
    FOR EACH STATEMENT EXECUTE FUNCTION warroom_refuse_rewrite();
CREATE TRIGGER channel_lines_append_only BEFORE UPDATE OR DELETE ON channel_lines
    FOR EACH ROW EXECUTE FUNCTION warroom_refuse_rewrite();
CREATE TRIGGER channel_lines_no_truncate BEFORE TRUNCATE ON channel_lines
    FOR EACH STATEMENT EXECUTE FUNCTION warroom_refuse_rewrite();

CREATE FUNCTION warroom_notify_ledger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('warroom', 'ledger:' || (SELECT max(seq) FROM new_rows));
    RETURN NULL;
END $$;
CREATE TRIGGER ledger_lines_notify AFTER INSERT ON ledger_lines
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION warroom_notify_ledger();
CREATE FUNCTION warroom_notify_channel() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
    FOR r IN SELECT DISTINCT room FROM new_rows LOOP
        PERFORM pg_notify('warroom', 'channel:' || r.room);
    END LOOP;
    RETURN NULL;
END $$;
CREATE TRIGGER channel_lines_notify AFTER INSERT ON channel_lines
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION warroom_notify_channel();

INSERT INTO warroom_meta (key, value) VALUES ('ledger_id', md5(random()::text || clock_timestamp()::text));
"#,
    r#"
-- Version 2: registered plans, so that every host sees the same epic DAG. Each
-- registration is one row (the plan as one JSON line); the newest row of a plan_id wins.
CREATE TABLE plan_lines (
    seq        bigserial PRIMARY KEY,
    plan_id    text NOT NULL,
    line       bytea NOT NULL,
    stored_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TRIGGER plan_lines_append_only BEFORE UPDATE OR DELETE ON plan_lines
    FOR EACH ROW EXECUTE FUNCTION warroom_refuse_rewrite();
CREATE TRIGGER plan_lines_no_truncate BEFORE TRUNCATE ON plan_lines
    FOR EACH STATEMENT EXECUTE FUNCTION warroom_refuse_rewrite();
CREATE FUNCTION warroom_notify_plans() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('warroom', 'plans:' || (SELECT max(seq) FROM new_rows));
    RETURN NULL;
END $$;
CREATE TRIGGER plan_lines_notify AFTER INSERT ON plan_lines
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION warroom_notify_plans();
"#,
    r#"
-- Version 3: context receipts, one hash-chained line per brief served, append-only.
CREATE TABLE receipt_lines (
    seq        bigserial PRIMARY KEY,
    line       bytea NOT NULL,
    receipt_id text UNIQUE,
    stored_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TRIGGER receipt_lines_append_only BEFORE UPDATE OR DELETE ON receipt_lines
    FOR EACH ROW EXECUTE FUNCTION warroom_refuse_rewrite();
CREATE TRIGGER receipt_lines_no_truncate BEFORE TRUNCATE ON receipt_lines
    FOR EACH STATEMENT EXECUTE FUNCTION warroom_refuse_rewrite();
"#,
];

/// What [`migrate`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Migrated {
    /// The schema version found.
    pub from: i32,
    /// The schema version now.
    pub to: i32,
}

/// Brings the schema to [`VERSION`] in one transaction, serialised with every other
/// process doing the same; refuses a database whose schema is newer than this binary.
pub fn migrate(c: &mut Client) -> io::Result<Migrated> {
    let run = |c: &mut Client| -> Result<Result<Migrated, String>, postgres::Error> {
        // A current schema needs nothing: read its version without DDL or a write, so a
        // server running as the restricted application role (SELECT, INSERT only) starts.
        let current: Option<i32> = c
            .query_one("SELECT to_regclass('warroom_meta') IS NOT NULL", &[])?
            .get::<_, bool>(0)
            .then(|| {
                c.query_opt(
                    "SELECT value FROM warroom_meta WHERE key = 'schema_version'",
                    &[],
                )
            })
            .transpose()?
            .flatten()
            .and_then(|r| r.get::<_, String>(0).parse().ok());
        if current == Some(VERSION) {
            return Ok(Ok(Migrated {
                from: VERSION,
                to: VERSION,
            }));
        }
        let mut tx = c.transaction()?;
        tx.execute("SELECT pg_advisory_xact_lock($1, 0)", &[&LOCK_MIGRATE])?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS warroom_meta (key text PRIMARY KEY, value text NOT NULL)",
        )?;
        let from: i32 = tx
            .query_opt(
                "SELECT value FROM warroom_meta WHERE key = 'schema_version'",
                &[],
            )?
            .and_then(|r| r.get::<_, String>(0).parse().ok())
            .unwrap_or(0);
        if from > VERSION {
            return Ok(Err(format!(
                "the database's schema is version {from}, newer than this binary knows \
                 ({VERSION}); nothing was changed. Fix: upgrade warroom-memory on this host"
            )));
        }
        for sql in &MIGRATIONS[from as usize..] {
            tx.batch_execute(sql)?;
        }
        tx.execute(
            "INSERT INTO warroom_meta (key, value) VALUES ('schema_version', $1)
             ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            &[&VERSION.to_string()],
        )?;
        tx.commit()?;
        Ok(Ok(Migrated { from, to: VERSION }))
    };
    match run(c) {
        Ok(Ok(m)) => {
            if m.from != m.to {
                tracing::info!(from = m.from, to = m.to, "database schema migrated");
            }
            Ok(m)
        }
        Ok(Err(newer)) => Err(io::Error::other(newer)),
        Err(e) => Err(super::error("migrating the database schema", &e)),
    }
}
