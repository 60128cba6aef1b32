import Foundation
import HearthStore
import PostgresNIO

/// An `AccountTransaction` over one project's `hearth_auth_…` rows, valid only inside the session's
/// transaction. Its outbox is the rows of box `auth:<project>`.
///
/// The identity index needs no completion here: every account in these tables was saved by a binary
/// that keeps the index (SQLite's files can predate it; these tables cannot), so the index is always
/// complete and nothing is ever unindexed.
final class PostgresAccountTransaction: AccountTransaction, PostgresOutboxHost {
    let session: PostgresSession
    let project: String
    var box: String { "auth:" + project }

    init(session: PostgresSession, project: String) {
        self.session = session
        self.project = project
    }

    private static func account(_ row: PostgresRow) throws -> AccountRow {
        let (uid, email, phone, record) = try row.decode((String, String?, String?, Data).self)
        return AccountRow(uid: uid, email: email, phoneNumber: phone, record: record)
    }

    func account(uid: String) throws -> AccountRow? {
        try session.query("SELECT uid, email, phone, record FROM hearth_auth_accounts WHERE project = \(project) AND uid = \(uid)")
            .first.map(Self.account)
    }

    func account(email: String) throws -> AccountRow? {
        try session.query("SELECT uid, email, phone, record FROM hearth_auth_accounts WHERE project = \(project) AND email = \(email)")
            .first.map(Self.account)
    }

    func account(phoneNumber: String) throws -> AccountRow? {
        try session.query(
            "SELECT uid, email, phone, record FROM hearth_auth_accounts WHERE project = \(project) AND phone = \(phoneNumber)"
        ).first.map(Self.account)
    }

    func save(_ row: AccountRow, identities: [AccountIdentity], mustBeNew: Bool) throws {
        if mustBeNew, try account(uid: row.uid) != nil { throw AccountConflict.uid }
        if let e = row.email, let other = try account(email: e), other.uid != row.uid { throw AccountConflict.email }
        if let p = row.phoneNumber, let other = try account(phoneNumber: p), other.uid != row.uid { throw AccountConflict.phoneNumber }
        for identity in identities {
            if let owner = try identityOwner(identity), owner != row.uid { throw AccountConflict.identity }
        }
        try session.execute("DELETE FROM hearth_auth_identities WHERE project = \(project) AND uid = \(row.uid)")
        // A new account is a plain INSERT, so a uid another node created meanwhile is refused rather than replaced.
        if mustBeNew {
            try insertUnique(
                """
                INSERT INTO hearth_auth_accounts(project, uid, email, phone, record)
                VALUES (\(project), \(row.uid), \(row.email), \(row.phoneNumber), \(row.record))
                """)
        } else {
            try insertUnique(
                """
                INSERT INTO hearth_auth_accounts(project, uid, email, phone, record)
                VALUES (\(project), \(row.uid), \(row.email), \(row.phoneNumber), \(row.record))
                ON CONFLICT (project, uid) DO UPDATE SET email = excluded.email, phone = excluded.phone, record = excluded.record
                """)
        }
        let unique = Array(Set(identities))
        guard !unique.isEmpty else { return }
        // A plain INSERT: the primary key refuses an identity another account holds even if the check above raced.
        try insertUnique(
            """
            INSERT INTO hearth_auth_identities(project, provider, raw_id, uid)
            SELECT \(project), provider, raw_id, \(row.uid)
            FROM unnest(\(unique.map(\.providerId))::text[], \(unique.map(\.rawId))::text[]) AS i(provider, raw_id)
            """)
    }

    /// Runs an insert that a unique index may refuse. A refusal means another node committed the same email,
    /// phone number, identity or uid after this transaction's check read it free: the check is stale, so the
    /// refusal is reported as a serialization failure and the transaction runs again, where the check sees the
    /// other node's row and throws the right ``AccountConflict``.
    private func insertUnique(_ query: PostgresQuery) throws {
        do {
            try session.execute(query)
        } catch let error as PostgresStoreError where error.sqlState == "23505" {
            throw PostgresStoreError(sqlState: "40001", message: "a concurrent save took a unique key (\(error.message))")
        }
    }

    private func identityOwner(_ identity: AccountIdentity) throws -> String? {
        try session.query(
            """
            SELECT uid FROM hearth_auth_identities
            WHERE project = \(project) AND provider = \(identity.providerId) AND raw_id = \(identity.rawId)
            """
        ).first?.decode(String.self)
    }

    func account(identity: AccountIdentity) throws -> AccountRow? {
        try identityOwner(identity).flatMap { try account(uid: $0) }
    }

    func identityIndexIsComplete() throws -> Bool { true }

    func completeIdentityIndex(_ accounts: [(uid: String, identities: [AccountIdentity])]) throws {
        try indexIdentities(accounts)
    }

    func unindexedAccounts() throws -> [String] { [] }

    func reindex(_ uids: [String], identities accounts: [(uid: String, identities: [AccountIdentity])]) throws {
        if !uids.isEmpty {
            try session.execute("DELETE FROM hearth_auth_identities WHERE project = \(project) AND uid = ANY(\(uids)::text[])")
        }
        try indexIdentities(accounts)
    }

    /// Adds `accounts`' identities; one already indexed keeps its account.
    private func indexIdentities(_ accounts: [(uid: String, identities: [AccountIdentity])]) throws {
        var providers: [String] = []
        var rawIDs: [String] = []
        var uids: [String] = []
        for (uid, identities) in accounts {
            for identity in identities {
                providers.append(identity.providerId)
                rawIDs.append(identity.rawId)
                uids.append(uid)
            }
        }
        guard !uids.isEmpty else { return }
        // WITH ORDINALITY and ORDER BY: when two accounts of the list share an identity, the first keeps it.
        try session.execute(
            """
            INSERT INTO hearth_auth_identities(project, provider, raw_id, uid)
            SELECT \(project), provider, raw_id, uid
            FROM unnest(\(providers)::text[], \(rawIDs)::text[], \(uids)::text[]) WITH ORDINALITY AS i(provider, raw_id, uid, n)
            ORDER BY n ON CONFLICT DO NOTHING
            """)
    }

    func deleteAccount(uid: String) throws -> Bool {
        try session.execute("DELETE FROM hearth_auth_identities WHERE project = \(project) AND uid = \(uid)")
        try session.execute("UPDATE hearth_auth_refresh_tokens SET uid = '' WHERE project = \(project) AND uid = \(uid)")
        return try session.execute("DELETE FROM hearth_auth_accounts WHERE project = \(project) AND uid = \(uid)") > 0
    }

    func accounts(after: String?, limit: Int) throws -> [AccountRow] {
        let rows: [PostgresRow]
        if let after {
            rows = try session.query(
                """
                SELECT uid, email, phone, record FROM hearth_auth_accounts
                WHERE project = \(project) AND uid > \(after) ORDER BY uid LIMIT \(max(0, limit))
                """)
        } else {
            rows = try session.query(
                "SELECT uid, email, phone, record FROM hearth_auth_accounts WHERE project = \(project) ORDER BY uid LIMIT \(max(0, limit))")
        }
        return try rows.map(Self.account)
    }

    func accountCount() throws -> Int {
        try session.query("SELECT count(*) FROM hearth_auth_accounts WHERE project = \(project)").first?.decode(Int.self) ?? 0
    }

    func saveRefreshToken(_ row: RefreshTokenRow) throws {
        try session.execute(
            """
            INSERT INTO hearth_auth_refresh_tokens(project, hash, uid, data) VALUES (\(project), \(row.hash), \(row.uid), \(row.data))
            ON CONFLICT (project, hash) DO UPDATE SET uid = excluded.uid, data = excluded.data
            """)
    }

    func refreshToken(hash: Data) throws -> RefreshTokenRow? {
        try session.query("SELECT uid, data FROM hearth_auth_refresh_tokens WHERE project = \(project) AND hash = \(hash)").first.map {
            let (uid, data) = try $0.decode((String, Data).self)
            return RefreshTokenRow(hash: hash, uid: uid, data: data)
        }
    }

    func deleteAllAccounts() throws {
        for table in ["hearth_auth_refresh_tokens", "hearth_auth_identities", "hearth_auth_accounts"] {
            try session.execute("DELETE FROM \(unescaped: table) WHERE project = \(project)")
        }
    }

    func saveCode(hash: Data, data: Data, created: Int64) throws {
        try session.execute(
            """
            INSERT INTO hearth_auth_codes(project, hash, data, created) VALUES (\(project), \(hash), \(data), \(created))
            ON CONFLICT (project, hash) DO UPDATE SET data = excluded.data, created = excluded.created
            """)
    }

    func code(hash: Data) throws -> (data: Data, created: Int64)? {
        try session.query("SELECT data, created FROM hearth_auth_codes WHERE project = \(project) AND hash = \(hash)").first.map {
            try $0.decode((Data, Int64).self)
        }
    }

    func deleteCode(hash: Data) throws {
        try session.execute("DELETE FROM hearth_auth_codes WHERE project = \(project) AND hash = \(hash)")
    }

    func codes() throws -> [(hash: Data, data: Data, created: Int64)] {
        try session.query("SELECT hash, data, created FROM hearth_auth_codes WHERE project = \(project) ORDER BY created, hash").map {
            try $0.decode((Data, Data, Int64).self)
        }
    }

    func deleteCodes(createdBefore: Int64) throws {
        try session.execute("DELETE FROM hearth_auth_codes WHERE project = \(project) AND created < \(createdBefore)")
    }
}
