import PostgresNIO

/// The tables Hearth keeps in PostgreSQL, created and migrated when a node starts.
///
/// Migrations are numbered and applied in order inside one transaction that holds an advisory
/// lock, so two nodes starting at once never run one twice: the second waits, then finds the
/// version already current. A database whose version is newer than this build knows is refused
/// (an older node must not write to a layout it does not understand).
enum PostgresSchema {
    /// `pg_advisory_xact_lock` key for migrations (an arbitrary constant: "hearth" in ASCII).
    static let lockKey: Int64 = 0x6865_6172_7468

    /// Each entry moves the schema from version `index` to `index + 1`: statements separated by `;`
    /// (the extended protocol runs one statement at a time).
    static let migrations: [String] = [
        // 1: the database tree, its settings, change log and outbox.
        """
        CREATE TABLE hearth_namespaces(
            ns text PRIMARY KEY, seq bigint NOT NULL DEFAULT 0, created_at timestamptz NOT NULL DEFAULT now());
        CREATE TABLE hearth_tree(
            ns text NOT NULL, p bytea NOT NULL, v bytea, pr bytea, PRIMARY KEY(ns, p));
        CREATE TABLE hearth_settings(ns text NOT NULL, k text NOT NULL, v text NOT NULL, PRIMARY KEY(ns, k));
        CREATE TABLE hearth_index_specs(
            ns text NOT NULL, id bigint NOT NULL, pattern text NOT NULL, spec text NOT NULL, PRIMARY KEY(ns, id));
        CREATE TABLE hearth_changes(
            ns text NOT NULL, seq bigint NOT NULL, body bytea NOT NULL, committed_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY(ns, seq));
        CREATE TABLE hearth_outbox(
            box text NOT NULL, id bigserial PRIMARY KEY, fn text NOT NULL, payload bytea NOT NULL, created bigint NOT NULL,
            attempts integer NOT NULL DEFAULT 0, next_at bigint NOT NULL, error text, dead boolean NOT NULL DEFAULT false);
        CREATE INDEX hearth_outbox_due ON hearth_outbox(box, dead, next_at);
        CREATE TABLE hearth_claimed_keys(box text NOT NULL, k text NOT NULL, at bigint NOT NULL, PRIMARY KEY(box, k));
        """,
        // 2: accounts, the object catalog and short links, each row scoped by its project. Names that are
        // listed in order use the "C" collation: UTF-8 byte order, as SQLite's BINARY and Cloud Storage.
        """
        CREATE TABLE hearth_auth_accounts(
            project text NOT NULL, uid text COLLATE "C" NOT NULL, email text, phone text, record bytea NOT NULL,
            PRIMARY KEY(project, uid));
        CREATE UNIQUE INDEX hearth_auth_accounts_email ON hearth_auth_accounts(project, email);
        CREATE UNIQUE INDEX hearth_auth_accounts_phone ON hearth_auth_accounts(project, phone);
        CREATE TABLE hearth_auth_identities(
            project text NOT NULL, provider text NOT NULL, raw_id text NOT NULL, uid text NOT NULL,
            PRIMARY KEY(project, provider, raw_id));
        CREATE INDEX hearth_auth_identities_by_uid ON hearth_auth_identities(project, uid);
        CREATE TABLE hearth_auth_refresh_tokens(
            project text NOT NULL, hash bytea NOT NULL, uid text NOT NULL, data bytea NOT NULL, PRIMARY KEY(project, hash));
        CREATE INDEX hearth_auth_refresh_tokens_by_uid ON hearth_auth_refresh_tokens(project, uid);
        CREATE TABLE hearth_auth_codes(
            project text NOT NULL, hash bytea NOT NULL, data bytea NOT NULL, created bigint NOT NULL, PRIMARY KEY(project, hash));
        CREATE TABLE hearth_storage_buckets(
            project text NOT NULL, name text COLLATE "C" NOT NULL, record bytea NOT NULL, PRIMARY KEY(project, name));
        CREATE TABLE hearth_storage_objects(
            project text NOT NULL, bucket text COLLATE "C" NOT NULL, name text COLLATE "C" NOT NULL, record bytea NOT NULL,
            PRIMARY KEY(project, bucket, name));
        CREATE TABLE hearth_storage_uploads(
            project text NOT NULL, id text NOT NULL, data bytea NOT NULL, created bigint NOT NULL, PRIMARY KEY(project, id));
        CREATE TABLE hearth_links(
            project text NOT NULL, suffix text COLLATE "C" NOT NULL, prefix text NOT NULL, long_link text NOT NULL,
            option text NOT NULL, inviter text NOT NULL, created bigint NOT NULL, PRIMARY KEY(project, suffix));
        CREATE UNIQUE INDEX hearth_links_by_long_link ON hearth_links(project, md5(long_link), option, inviter);
        CREATE TABLE hearth_link_counts(
            project text NOT NULL, suffix text COLLATE "C" NOT NULL, day bigint NOT NULL, platform text COLLATE "C" NOT NULL,
            event text COLLATE "C" NOT NULL, n bigint NOT NULL, PRIMARY KEY(project, suffix, day, platform, event));
        """,
        // 3: attempt counts for rate limits (password sign-ins, messages per recipient), shared by the nodes: one row
        // per key with the times of its attempts and when the last of them expires. Unlogged: the counts are
        // short-lived and a sign-in attempt should not wait for a WAL flush (a crash forgets them, as a node's
        // restart did when each node counted in memory).
        """
        CREATE UNLOGGED TABLE hearth_attempts(
            project text NOT NULL, scope text NOT NULL, k text NOT NULL, times bigint[] NOT NULL, expires bigint NOT NULL,
            PRIMARY KEY(project, scope, k));
        CREATE INDEX hearth_attempts_expiry ON hearth_attempts(project, expires);
        """,
        // 4: `.indexOn` index rows. One row per child of each indexed location: `parent` is the location's
        // `PathEncoding`, `v` the child's value under the index (`IndexValueEncoding`), `k` the child's key
        // (`PathEncoding`); the primary key orders a location's children as a query on the index does
        // (bytea compares bytewise). `built` is false for a declaration stored before this version (it had
        // no rows); a node builds those when it opens the namespace.
        """
        ALTER TABLE hearth_index_specs ADD COLUMN built boolean NOT NULL DEFAULT false;
        CREATE TABLE hearth_index_rows(
            ns text NOT NULL, ix bigint NOT NULL, parent bytea NOT NULL, v bytea NOT NULL, k bytea NOT NULL,
            PRIMARY KEY(ns, ix, parent, v, k));
        CREATE INDEX hearth_index_rows_by_child ON hearth_index_rows(ns, ix, parent, k);
        """,
        // 5: the change log is trimmed by age every minute on every node. Its rows arrive in time order, so a BRIN
        // index (a few pages, next to nothing per insert) lets that delete skip the rows it keeps.
        """
        CREATE INDEX hearth_changes_by_age ON hearth_changes USING brin(committed_at);
        """,
        // 6: push devices and their topic subscriptions. A topic's subscribers are read in token order (the "C"
        // collation), a page at a time, along the (project, topic, token) key.
        """
        CREATE TABLE hearth_devices(
            project text NOT NULL, token text COLLATE "C" NOT NULL, uid text NOT NULL, service text NOT NULL,
            sandbox boolean NOT NULL, updated bigint NOT NULL, PRIMARY KEY(project, token));
        CREATE INDEX hearth_devices_by_uid ON hearth_devices(project, uid, updated);
        CREATE TABLE hearth_device_topics(
            project text NOT NULL, topic text COLLATE "C" NOT NULL, token text COLLATE "C" NOT NULL, PRIMARY KEY(project, topic, token));
        CREATE INDEX hearth_device_topics_by_token ON hearth_device_topics(project, token);
        """,
    ]

    /// The version this build writes.
    static var current: Int { migrations.count }

    static func migrate(_ session: PostgresSession) throws {
        try session.transaction(.readCommitted, retries: 0) {
            try session.execute("SELECT pg_advisory_xact_lock(\(lockKey))")
            try session.execute("CREATE TABLE IF NOT EXISTS hearth_schema(version integer NOT NULL)")
            let rows = try session.query("SELECT version FROM hearth_schema")
            var version = try rows.first?.decode(Int.self) ?? 0
            if rows.isEmpty { try session.execute("INSERT INTO hearth_schema(version) VALUES (0)") }
            guard version <= current else {
                throw PostgresStoreError(
                    sqlState: nil,
                    message: "the database's schema is version \(version), newer than this Hearth (\(current)); upgrade this node")
            }
            while version < current {
                for statement in migrations[version].split(separator: ";") where !statement.allSatisfy(\.isWhitespace) {
                    try session.execute(PostgresQuery(unsafeSQL: String(statement)))
                }
                version += 1
                try session.execute("UPDATE hearth_schema SET version = \(version)")
            }
        }
    }
}
