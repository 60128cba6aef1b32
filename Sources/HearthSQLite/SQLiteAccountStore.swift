import Foundation
import GRDB
public import HearthStore

/// Accounts and refresh tokens in their own SQLite file (never inside the JSON tree).
public final class SQLiteAccountStore: AccountStore {
    private let queue: DatabaseQueue
    /// Reads (every refresh and sign-in starts with one) run on the calling thread on read-only
    /// connections, as the database's reads do, instead of queueing behind writes on `queue`.
    private let readers: ReaderConnections

    /// Opens (creating when absent) the accounts file at `path`, in WAL mode with a sync on every commit, and creates or upgrades its tables.
    public init(path: String) throws {
        var config = Configuration()
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        queue = try DatabaseQueue(path: path, configuration: config)
        readers = ReaderConnections(path: path, configuration: Configuration())
        try queue.write { db in
            let identitiesExisted = try db.tableExists("account_identities")
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS accounts(
                    uid TEXT PRIMARY KEY NOT NULL, email TEXT UNIQUE, phone TEXT UNIQUE, record BLOB NOT NULL);
                CREATE TABLE IF NOT EXISTS refresh_tokens(
                    hash BLOB PRIMARY KEY NOT NULL, uid TEXT NOT NULL, data BLOB NOT NULL) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS refresh_by_uid ON refresh_tokens(uid);
                CREATE TABLE IF NOT EXISTS one_time_codes(
                    hash BLOB PRIMARY KEY NOT NULL, data BLOB NOT NULL, created INTEGER NOT NULL) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS account_identities(
                    provider TEXT NOT NULL, raw_id TEXT NOT NULL, uid TEXT NOT NULL, PRIMARY KEY(provider, raw_id)) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS identities_by_uid ON account_identities(uid);
                CREATE TABLE IF NOT EXISTS account_meta(k TEXT PRIMARY KEY NOT NULL, v) WITHOUT ROWID;
                """)
            // A binary from before this one (a rollback) saves and deletes accounts without keeping the index, or
            // keeps it without knowing of this list. The file itself notices: this store marks the rows it saves
            // (`indexed = 1`) and removes an account's identities before the account, so an insert without the mark,
            // any update, or a delete that leaves identities behind comes from elsewhere and puts the uid on the
            // `accounts_unindexed` list. The auth service indexes those accounts again from their records before it
            // next relies on the index. (The mark costs this store's own saves nothing; listing and unlisting every
            // save made a 40,000-user import 10-15 % slower.)
            if try !db.columns(in: "accounts").contains(where: { $0.name == "indexed" }) {
                try db.execute(sql: "ALTER TABLE accounts ADD COLUMN indexed INTEGER")
            }
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS accounts_unindexed(uid TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID;
                CREATE TRIGGER IF NOT EXISTS unindexed_insert AFTER INSERT ON accounts WHEN NEW.indexed IS NOT 1
                BEGIN INSERT OR IGNORE INTO accounts_unindexed(uid) VALUES(NEW.uid); END;
                CREATE TRIGGER IF NOT EXISTS unindexed_update AFTER UPDATE ON accounts
                BEGIN
                    INSERT OR IGNORE INTO accounts_unindexed(uid) VALUES(OLD.uid);
                    INSERT OR IGNORE INTO accounts_unindexed(uid) VALUES(NEW.uid);
                END;
                CREATE TRIGGER IF NOT EXISTS unindexed_delete AFTER DELETE ON accounts
                WHEN EXISTS (SELECT 1 FROM account_identities WHERE uid = OLD.uid)
                BEGIN INSERT OR IGNORE INTO accounts_unindexed(uid) VALUES(OLD.uid); END;
                """)
            // A new file's index is complete from the start; one whose accounts predate the index
            // is completed by the auth service, which can read the identities out of the records.
            if !identitiesExisted, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM accounts") == 0 {
                try db.execute(sql: "INSERT OR REPLACE INTO account_meta(k, v) VALUES('identity_index', 1)")
            }
            try db.execute(sql: SQLiteOutbox.schema)
        }
    }

    /// Runs `body` in one write transaction on the store's serial queue, synced to disk before this returns.
    public func transaction<R: Sendable>(_ body: @Sendable (any AccountTransaction) throws -> R) async throws -> R {
        try await SQLiteFull.mapping { try await queue.write { db in try body(Transaction(db: db)) } }
    }

    /// Runs `body` on a read-only connection on the calling thread; it never waits for the writer, and writes in it fail.
    public func read<R: Sendable>(_ body: @Sendable (any AccountTransaction) throws -> R) async throws -> R {
        try readHere(body)
    }

    /// The same read as ``read(_:)``, for callers outside Swift concurrency; never nil.
    public func readNow<R>(_ body: (any AccountTransaction) throws -> R) throws -> R? {
        try readHere(body)
    }

    /// On the read-only connections, on the calling thread; a connection is opened when none is free, never waited for.
    private func readHere<R>(_ body: (any AccountTransaction) throws -> R) throws -> R {
        try readers.read { db in try body(Transaction(db: db)) }
    }

    struct Transaction: AccountTransaction, SQLiteOutboxHost {
        let db: GRDB.Database
        /// What this transaction found out about the identity index. Only another binary's writes leave it
        /// incomplete, and they cannot happen inside this transaction, so a save or lookup asks the file once per
        /// transaction, not once per account (an import of 1,000 users asked 2,000 times, ~8 % of the import).
        private let index = IndexCheck()

        final class IndexCheck {
            var complete = false
            var nothingUnindexed = false
        }

        private func row(_ sql: String, _ argument: String) throws -> AccountRow? {
            // Cached statements: every refresh and sign-in looks an account up, and parsing the SQL each time showed
            // in a profile of refreshes.
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT uid, email, phone, record FROM accounts WHERE \(sql) = ?"), arguments: [argument]
            ).map(Self.account)
        }

        static func account(_ r: Row) -> AccountRow {
            AccountRow(uid: r[0], email: r[1], phoneNumber: r[2], record: r[3])
        }

        func account(uid: String) throws -> AccountRow? { try row("uid", uid) }
        func account(email: String) throws -> AccountRow? { try row("email", email) }
        func account(phoneNumber: String) throws -> AccountRow? { try row("phone", phoneNumber) }

        func save(_ row: AccountRow, identities: [AccountIdentity], mustBeNew: Bool) throws {
            if mustBeNew, try account(uid: row.uid) != nil { throw AccountConflict.uid }
            if let e = row.email, let other = try account(email: e), other.uid != row.uid { throw AccountConflict.email }
            if let p = row.phoneNumber, let other = try account(phoneNumber: p), other.uid != row.uid { throw AccountConflict.phoneNumber }
            for identity in identities {
                if let owner = try identityOwner(identity), owner != row.uid { throw AccountConflict.identity }
            }
            // The account's identities go first, so that the row's replacement never looks like a delete that left
            // them behind (should recursive triggers be on).
            try db.cachedStatement(sql: "DELETE FROM account_identities WHERE uid = ?").execute(arguments: [row.uid])
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO accounts(uid, email, phone, record, indexed) VALUES(?, ?, ?, ?, 1)")
                .execute(arguments: [row.uid, row.email, row.phoneNumber, row.record])
            // A plain INSERT: the primary key refuses a duplicate even if the check above were bypassed.
            let insert = try db.cachedStatement(sql: "INSERT INTO account_identities(provider, raw_id, uid) VALUES(?, ?, ?)")
            for identity in Set(identities) { try insert.execute(arguments: [identity.providerId, identity.rawId, row.uid]) }
        }

        private func identityOwner(_ identity: AccountIdentity) throws -> String? {
            try String.fetchOne(
                db.cachedStatement(sql: "SELECT uid FROM account_identities WHERE provider = ? AND raw_id = ?"),
                arguments: [identity.providerId, identity.rawId])
        }

        func account(identity: AccountIdentity) throws -> AccountRow? {
            try identityOwner(identity).flatMap { try account(uid: $0) }
        }

        func identityIndexIsComplete() throws -> Bool {
            if index.complete { return true }
            index.complete = try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM account_meta WHERE k = 'identity_index'")) != nil
            return index.complete
        }

        func completeIdentityIndex(_ accounts: [(uid: String, identities: [AccountIdentity])]) throws {
            // Rows of accounts another binary wrote since are stale; `accounts` has what their records say now.
            try db.execute(sql: "DELETE FROM account_identities WHERE uid IN (SELECT uid FROM accounts_unindexed)")
            // An identity two old accounts share (imports did not check before the index) stays with the first.
            let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO account_identities(provider, raw_id, uid) VALUES(?, ?, ?)")
            for (uid, identities) in accounts {
                for identity in identities { try insert.execute(arguments: [identity.providerId, identity.rawId, uid]) }
            }
            try db.execute(sql: "INSERT OR REPLACE INTO account_meta(k, v) VALUES('identity_index', 1); DELETE FROM accounts_unindexed;")
            (index.complete, index.nothingUnindexed) = (true, true)
        }

        func unindexedAccounts() throws -> [String] {
            if index.nothingUnindexed { return [] }
            let uids = try String.fetchAll(db.cachedStatement(sql: "SELECT uid FROM accounts_unindexed"))
            index.nothingUnindexed = uids.isEmpty
            return uids
        }

        func reindex(_ uids: [String], identities accounts: [(uid: String, identities: [AccountIdentity])]) throws {
            let forget = try db.cachedStatement(sql: "DELETE FROM account_identities WHERE uid = ?")
            for uid in uids { try forget.execute(arguments: [uid]) }
            // An identity the index gives to another account stays with it, as in `completeIdentityIndex`.
            let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO account_identities(provider, raw_id, uid) VALUES(?, ?, ?)")
            for (uid, identities) in accounts {
                for identity in identities { try insert.execute(arguments: [identity.providerId, identity.rawId, uid]) }
            }
            let done = try db.cachedStatement(sql: "DELETE FROM accounts_unindexed WHERE uid = ?")
            for uid in uids { try done.execute(arguments: [uid]) }
            index.nothingUnindexed = try String.fetchOne(db.cachedStatement(sql: "SELECT uid FROM accounts_unindexed LIMIT 1")) == nil
        }

        func deleteAccount(uid: String) throws -> Bool {
            try db.execute(sql: "DELETE FROM account_identities WHERE uid = ?", arguments: [uid])
            try db.execute(sql: "UPDATE refresh_tokens SET uid = '' WHERE uid = ?", arguments: [uid])
            try db.execute(sql: "DELETE FROM accounts WHERE uid = ?", arguments: [uid])
            return db.changesCount > 0
        }

        func accounts(after: String?, limit: Int) throws -> [AccountRow] {
            let rows: [Row]
            if let after {
                rows = try Row.fetchAll(db, sql: "SELECT uid, email, phone, record FROM accounts WHERE uid > ? ORDER BY uid LIMIT ?", arguments: [after, limit])
            } else {
                rows = try Row.fetchAll(db, sql: "SELECT uid, email, phone, record FROM accounts ORDER BY uid LIMIT ?", arguments: [limit])
            }
            return rows.map(Self.account)
        }

        func accountCount() throws -> Int { try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM accounts") ?? 0 }

        func saveRefreshToken(_ row: RefreshTokenRow) throws {
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO refresh_tokens(hash, uid, data) VALUES(?, ?, ?)")
                .execute(arguments: [row.hash, row.uid, row.data])
        }

        func refreshToken(hash: Data) throws -> RefreshTokenRow? {
            try Row.fetchOne(db.cachedStatement(sql: "SELECT hash, uid, data FROM refresh_tokens WHERE hash = ?"), arguments: [hash]).map {
                RefreshTokenRow(hash: $0[0], uid: $0[1], data: $0[2])
            }
        }

        func saveCode(hash: Data, data: Data, created: Int64) throws {
            try db.execute(sql: "INSERT OR REPLACE INTO one_time_codes(hash, data, created) VALUES(?, ?, ?)", arguments: [hash, data, created])
        }

        func code(hash: Data) throws -> (data: Data, created: Int64)? {
            try Row.fetchOne(db, sql: "SELECT data, created FROM one_time_codes WHERE hash = ?", arguments: [hash]).map { ($0[0], $0[1]) }
        }

        func deleteCode(hash: Data) throws {
            try db.execute(sql: "DELETE FROM one_time_codes WHERE hash = ?", arguments: [hash])
        }

        func codes() throws -> [(hash: Data, data: Data, created: Int64)] {
            try Row.fetchAll(db, sql: "SELECT hash, data, created FROM one_time_codes ORDER BY created").map { ($0[0], $0[1], $0[2]) }
        }

        func deleteCodes(createdBefore: Int64) throws {
            try db.execute(sql: "DELETE FROM one_time_codes WHERE created < ?", arguments: [createdBefore])
        }

        func deleteAllAccounts() throws {
            try db.execute(sql: "DELETE FROM refresh_tokens; DELETE FROM account_identities; DELETE FROM accounts; DELETE FROM accounts_unindexed;")
        }
    }
}
