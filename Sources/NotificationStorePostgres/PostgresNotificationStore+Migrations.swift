import Logging
import PostgresNIO

extension PostgresNotificationStore {
    /// One step of the schema: applied once, in order, and recorded in `schema_version`. Once shipped, a step is
    /// frozen: changes go into a new step with the next version.
    struct Migration: Sendable {
        var version: Int
        var name: String
        var statements: [String]
    }

    /// The schema's steps, in order.
    ///
    /// The tables are the SQLite store's (`SQLiteNotificationStore+Migrations.swift`) with snake_case names: instants
    /// are seconds since 1970 in `double precision`, exactly the `Date` values the engine computed (no rounding to
    /// microseconds), and specs and payloads the same JSON the SQLite store writes, in `bytea`.
    static let migrations: [Migration] = [
        Migration(
            version: 1, name: "initial",
            statements: [
                // `id` doubles as the request's revision: an identity column never reuses one, so a delivery that
                // raced a replacement never touches the new request. `claim_owner` names the store instance (a
                // worker) holding the claim.
                """
                CREATE TABLE pending (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    app text NOT NULL,
                    identifier text NOT NULL,
                    spec bytea NOT NULL,
                    added_at double precision NOT NULL,
                    next_fire double precision,
                    floating boolean NOT NULL,
                    claim_until double precision,
                    claim_owner text,
                    calendar_key text,
                    fired_for double precision,
                    region_state text,
                    UNIQUE (app, identifier)
                )
                """,
                "CREATE INDEX pending_due ON pending (next_fire) WHERE claim_until IS NULL",
                "CREATE INDEX pending_claim ON pending (claim_until) WHERE claim_until IS NOT NULL",
                "CREATE INDEX pending_app_fire ON pending (app, next_fire)",
                "CREATE INDEX pending_calendar ON pending (calendar_key) WHERE calendar_key IS NOT NULL",
                "CREATE INDEX pending_region ON pending (app) WHERE region_state IS NOT NULL",
                // Floating calendar triggers follow a shared plan (docs/proposals/0001-floating-plan-table.md).
                """
                CREATE TABLE floating_plan (
                    key text PRIMARY KEY,
                    app text NOT NULL,
                    trigger bytea NOT NULL,
                    next_fire double precision
                )
                """,
                "CREATE INDEX floating_plan_trigger ON floating_plan (trigger)",
                "CREATE INDEX floating_plan_due ON floating_plan (next_fire)",
                """
                CREATE TABLE delivered (
                    app text NOT NULL,
                    identifier text NOT NULL,
                    payload bytea NOT NULL,
                    date double precision NOT NULL,
                    history_id bigint,
                    PRIMARY KEY (app, identifier)
                )
                """,
                "CREATE TABLE category (app text PRIMARY KEY, payload bytea NOT NULL)",
                // `authorization` is a reserved word in PostgreSQL.
                """
                CREATE TABLE app (
                    id text PRIMARY KEY,
                    authorization_status integer NOT NULL,
                    granted_options bigint NOT NULL,
                    badge integer NOT NULL
                )
                """,
                """
                CREATE TABLE history (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    app text NOT NULL,
                    request_identifier text NOT NULL,
                    title text NOT NULL,
                    due double precision,
                    acted_at double precision NOT NULL,
                    presenter text NOT NULL,
                    presentation bigint NOT NULL,
                    outcome text NOT NULL,
                    detail text
                )
                """,
                "CREATE INDEX history_app ON history (app, id)",
                """
                CREATE TABLE response (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    app text NOT NULL,
                    payload bytea NOT NULL
                )
                """,
                "CREATE TABLE metadata (key text PRIMARY KEY, value text NOT NULL)",
                // The APNs endpoint's request log: a ring of the newest requests, each an APNsLogEntry as JSON.
                "CREATE TABLE apns_log (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, entry bytea NOT NULL)",
            ]),
        // Server mode's device registry (issue 12). A device's requests are the pending rows of the app
        // `Device.appID(forDevice:)`; `device_floating` names those scheduled with floating calendar components,
        // which are stored pinned to the device's zone and re-pinned when it changes (docs/server-mode.md).
        Migration(
            version: 2, name: "devices",
            statements: [
                """
                CREATE TABLE device (
                    id text PRIMARY KEY,
                    token text NOT NULL,
                    topic text NOT NULL,
                    environment text NOT NULL CHECK (environment IN ('development', 'production')),
                    time_zone text NOT NULL,
                    locale text NOT NULL,
                    active boolean NOT NULL,
                    created_at double precision NOT NULL,
                    updated_at double precision NOT NULL
                )
                """,
                "CREATE INDEX device_token ON device (token)",
                """
                CREATE TABLE device_floating (
                    device_id text NOT NULL REFERENCES device (id) ON DELETE CASCADE,
                    identifier text NOT NULL,
                    PRIMARY KEY (device_id, identifier)
                )
                """,
            ]),
        // Notifications APNs refused for good (a 4xx other than 410): kept for people to look at, never retried.
        Migration(
            version: 3, name: "dead letters",
            statements: [
                """
                CREATE TABLE dead_letter (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    device_id text NOT NULL,
                    request_identifier text NOT NULL,
                    apns_id text NOT NULL,
                    status integer,
                    reason text NOT NULL,
                    at double precision NOT NULL
                )
                """,
                "CREATE INDEX dead_letter_device ON dead_letter (device_id, id)",
            ]),
        // Wake-ups: a statement that adds pending requests notifies `unotify_pending` when its transaction commits,
        // whoever ran it (a worker, the Swift API, a script), so sleeping workers read the store again
        // (`PostgresNotificationStore.listenForPendingInserts`). A statement-level trigger: a batch notifies once.
        Migration(
            version: 4, name: "wake-ups",
            statements: [
                """
                CREATE FUNCTION unotify_pending_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    PERFORM pg_notify('unotify_pending', '');
                    RETURN NULL;
                END
                $$
                """,
                """
                CREATE TRIGGER pending_inserted AFTER INSERT ON pending
                FOR EACH STATEMENT EXECUTE FUNCTION unotify_pending_inserted()
                """,
            ]),
        // The push service's audiences (issue 20, docs/push-service.md): a device's account (at most one), aliases
        // and tags, removed with the device. The second indexes serve pushes to an account, an alias or a tag.
        Migration(
            version: 5, name: "audiences",
            statements: [
                """
                CREATE TABLE device_account (
                    device_id text PRIMARY KEY REFERENCES device (id) ON DELETE CASCADE,
                    account text NOT NULL
                )
                """,
                "CREATE INDEX device_account_account ON device_account (account, device_id)",
                """
                CREATE TABLE device_alias (
                    device_id text NOT NULL REFERENCES device (id) ON DELETE CASCADE,
                    alias text NOT NULL,
                    PRIMARY KEY (device_id, alias)
                )
                """,
                "CREATE INDEX device_alias_alias ON device_alias (alias, device_id)",
                """
                CREATE TABLE device_tag (
                    device_id text NOT NULL REFERENCES device (id) ON DELETE CASCADE,
                    tag text NOT NULL,
                    PRIMARY KEY (device_id, tag)
                )
                """,
                "CREATE INDEX device_tag_tag ON device_tag (tag, device_id)",
            ]),
        // The push service's pushes (issue 20): one row per accepted push; workers fan it out page by page into
        // pending requests `push:<id>`, advancing `cursor` (the last device identifier enqueued) in the transaction
        // that enqueues the page. Inserting a push notifies `unotify_push`, which wakes the workers' fan-out loops.
        // Statistics are read from `history` by request identifier.
        Migration(
            version: 6, name: "pushes",
            statements: [
                """
                CREATE TABLE push (
                    id text PRIMARY KEY,
                    target_kind text NOT NULL CHECK (target_kind IN ('devices', 'account', 'alias', 'tag', 'all')),
                    target_name text,
                    target_devices text[],
                    target_tag bytea,
                    content bytea NOT NULL,
                    send_kind text NOT NULL CHECK (send_kind IN ('now', 'at', 'local')),
                    send_at double precision,
                    local_time bytea,
                    expires_at double precision,
                    created_at double precision NOT NULL,
                    ready_at double precision NOT NULL,
                    state text NOT NULL
                        CHECK (state IN ('scheduled', 'fanning', 'done', 'cancelled', 'expired')),
                    cursor text,
                    targeted bigint NOT NULL DEFAULT 0,
                    cancelled bigint NOT NULL DEFAULT 0
                )
                """,
                "CREATE INDEX push_ready ON push (ready_at) WHERE state IN ('scheduled', 'fanning')",
                "CREATE INDEX history_request ON history (request_identifier)",
                """
                CREATE FUNCTION unotify_push_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    PERFORM pg_notify('unotify_push', '');
                    RETURN NULL;
                END
                $$
                """,
                """
                CREATE TRIGGER push_inserted AFTER INSERT ON push
                FOR EACH STATEMENT EXECUTE FUNCTION unotify_push_inserted()
                """,
            ]),
        // The push service's receipts (issue 20): what a device reported of a push, once per device, message and kind
        // (a repeat is ignored), with the action's identifier for `action`.
        Migration(
            version: 7, name: "receipts",
            statements: [
                """
                CREATE TABLE push_receipt (
                    message_id text NOT NULL,
                    device_id text NOT NULL,
                    kind text NOT NULL CHECK (kind IN ('received', 'opened', 'dismissed', 'action')),
                    action text,
                    at double precision NOT NULL,
                    PRIMARY KEY (message_id, device_id, kind)
                )
                """
            ]),
        // A push's `apns-collapse-id` (issue 20, round 2); `NULL` sends `push:<id>`.
        Migration(
            version: 8, name: "push collapse id",
            statements: ["ALTER TABLE push ADD COLUMN collapse_id text"]),
        // A push's `mutable-content` and `content-available` flags (issue 20, background and rich pushes).
        Migration(
            version: 9, name: "push aps flags",
            statements: [
                "ALTER TABLE push ADD COLUMN mutable_content boolean NOT NULL DEFAULT false",
                "ALTER TABLE push ADD COLUMN content_available boolean NOT NULL DEFAULT false",
            ]),
    ]

    /// The advisory lock key that serializes migrations of one database (several workers starting together).
    static let migrationLock: Int64 = 0x4F55_4E5F_4D49_4752

    /// Applies the steps the database does not have yet, in one transaction, under an advisory lock so that
    /// workers starting at the same time migrate once.
    ///
    /// - Throws: ``PostgresNotificationStore/SchemaError`` when the database has a newer schema than this version
    ///   knows; what the server answers otherwise (then nothing has changed).
    static func applyMigrations(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS schema_version (
                version integer PRIMARY KEY,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """, logger: logger)
        var current = 0
        for try await version in try await connection.query(
            "SELECT COALESCE(MAX(version), 0)::integer FROM schema_version", logger: logger
        ).decode(Int.self) {
            current = version
        }
        let latest = migrations.last?.version ?? 0
        guard current <= latest else { throw SchemaError(found: current, known: latest) }
        for migration in migrations where migration.version > current {
            for statement in migration.statements {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            try await connection.query(
                "INSERT INTO schema_version (version, name) VALUES (\(migration.version), \(migration.name))",
                logger: logger)
        }
    }

    /// The database's schema is newer than this version of the store knows: it was migrated by a newer version.
    public struct SchemaError: Error, CustomStringConvertible, Sendable {
        /// The database's schema version.
        public var found: Int
        /// The newest version this store knows.
        public var known: Int

        /// For example `the database has schema version 3; this version of the store knows versions up to 1`.
        public var description: String {
            "the database has schema version \(found); this version of the store knows versions up to \(known)"
        }
    }
}
