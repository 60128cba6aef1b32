import Foundation
import GRDB
import HearthAuth
import HearthCore
import HearthSQLite
import HearthStore
import Testing

/// A provider identity (google.com and the user's id there) belongs to one account. The stores index identities, so
/// linking, importing and `federatedUserId` lookups find the holder without reading every account.
@Suite("Provider identity index")
struct ProviderIdentityIndexTests {
    static let key = try! SigningKey.generate()

    typealias Backing = AccountBacking

    func service(_ store: any AccountStore) -> AuthService {
        AuthService(projectID: "p1", store: store, key: Self.key, hasher: PasswordHasher(rounds: 1 << 4))
    }

    func store(_ backing: Backing, in folder: URL) async throws -> any AccountStore {
        try await backing.store(at: folder)
    }

    func body(_ text: String) -> JSONValue { try! JSONValue.parse(text) }

    func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("identity-index-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static let google1 = AccountIdentity(providerId: "google.com", rawId: "g-1")

    static func emptyRow(_ uid: String) -> AccountRow { AccountRow(uid: uid, email: nil, phoneNumber: nil, record: Data("{}".utf8)) }
    var google1: AccountIdentity { Self.google1 }

    func isComplete(_ store: any AccountStore) async throws -> Bool {
        try await store.read { try $0.identityIndexIsComplete() }
    }

    func uid(holding identity: AccountIdentity, in store: any AccountStore) async throws -> String? {
        try await store.read { try $0.account(identity: identity)?.uid }
    }

    /// The uid `federatedUserId` lookup finds for google.com `rawId`, or nil.
    func holder(of rawId: String, in auth: AuthService) async throws -> String? {
        let found = try await auth.lookup(
            body(#"{"federatedUserId":[{"providerId":"google.com","rawId":"\#(rawId)"}]}"#), privileged: true)
        return found["users"]?[0]?["localId"]?.stringValue
    }

    func link(_ rawId: String, to uid: String, in auth: AuthService) async throws {
        _ = try await auth.update(
            body(#"{"localId":"\#(uid)","linkProviderUserInfo":{"providerId":"google.com","rawId":"\#(rawId)"}}"#),
            privileged: true)
    }

    func linkError(_ rawId: String, to uid: String, in auth: AuthService) async -> String? {
        do {
            try await link(rawId, to: uid, in: auth)
            return nil
        } catch {
            return (error as? AuthError)?.code ?? "\(error)"
        }
    }

    @Test("an identity follows its account through link, relink, unlink and delete", arguments: Backing.allCases)
    func identityFollowsItsAccount(_ backing: Backing) async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let auth = service(try await store(backing, in: folder))
        _ = try await auth.batchCreate(body(#"{"users":[{"localId":"ann"},{"localId":"bob"}]}"#))

        try await link("g-1", to: "ann", in: auth)
        #expect(try await holder(of: "g-1", in: auth) == "ann")
        #expect(await linkError("g-1", to: "bob", in: auth) == "FEDERATED_USER_ID_ALREADY_LINKED")
        // Linking it again to its own account is not a conflict.
        #expect(await linkError("g-1", to: "ann", in: auth) == nil)

        // A new google.com id replaces the old one: the old id is free again.
        try await link("g-2", to: "ann", in: auth)
        #expect(try await holder(of: "g-1", in: auth) == nil)
        #expect(try await holder(of: "g-2", in: auth) == "ann")
        try await link("g-1", to: "bob", in: auth)
        #expect(try await holder(of: "g-1", in: auth) == "bob")

        _ = try await auth.update(body(#"{"localId":"bob","deleteProvider":["google.com"]}"#), privileged: true)
        #expect(try await holder(of: "g-1", in: auth) == nil)

        _ = try await auth.delete(body(#"{"localId":"ann"}"#), privileged: true)
        #expect(try await holder(of: "g-2", in: auth) == nil)
        #expect(await linkError("g-2", to: "bob", in: auth) == nil)
        #expect(try await holder(of: "g-2", in: auth) == "bob")
    }

    @Test("an import refuses an identity another account or an earlier user of the batch holds", arguments: Backing.allCases)
    func importRefusesHeldIdentities(_ backing: Backing) async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let auth = service(try await store(backing, in: folder))
        _ = try await auth.batchCreate(body(#"{"users":[{"localId":"ann","providerUserInfo":[{"providerId":"google.com","rawId":"g-1"}]}]}"#))
        let result = try await auth.batchCreate(body("""
            {"users":[{"localId":"bob","providerUserInfo":[{"providerId":"google.com","rawId":"g-1"}]},
            {"localId":"cat","providerUserInfo":[{"providerId":"google.com","rawId":"g-2"}]},
            {"localId":"dan","providerUserInfo":[{"providerId":"google.com","rawId":"g-2"}]},
            {"localId":"ann","providerUserInfo":[{"providerId":"google.com","rawId":"g-1"}]}]}
            """))
        #expect(result["error"]?[0]?["index"] == .int(0))
        #expect(result["error"]?[0]?["message"] == .string("raw id exists in other account in database"))
        #expect(result["error"]?[1]?["index"] == .int(2))
        #expect(result["error"]?[2] == nil, "re-importing ann with her own identity is fine")
        #expect(try await holder(of: "g-1", in: auth) == "ann")
        #expect(try await holder(of: "g-2", in: auth) == "cat")
    }

    @Test("an account file from before the index gets its identities indexed on first use")
    func filesFromBeforeTheIndexAreCompleted() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("accounts.sqlite").path
        do {
            let auth = service(try SQLiteAccountStore(path: path))
            _ = try await auth.batchCreate(body("""
                {"users":[{"localId":"ann","providerUserInfo":[{"providerId":"google.com","rawId":"g-1"}]},
                {"localId":"bob","email":"bob@x.io"}]}
                """))
        }
        // What a file written before the index looks like: the accounts, no index table, no completion mark.
        try await writeAsAnOlderBinary(path, "DROP TABLE account_identities; DROP TABLE account_meta")

        let store = try SQLiteAccountStore(path: path)
        #expect(try await isComplete(store) == false)
        #expect(try await uid(holding: google1, in: store) == nil)
        let auth = service(store)
        #expect(await linkError("g-1", to: "bob", in: auth) == "FEDERATED_USER_ID_ALREADY_LINKED")
        // The refused link rolled its transaction back, the indexing with it; the next one that commits keeps it.
        #expect(try await isComplete(store) == false)
        #expect(try await holder(of: "g-1", in: auth) == "ann")
        #expect(try await isComplete(store))
        #expect(try await uid(holding: google1, in: store) == "ann")
    }

    @Test("the store itself refuses an identity another account holds", arguments: Backing.allCases)
    func theStoreRefusesAHeldIdentity(_ backing: Backing) async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try await store(backing, in: folder)
        try await store.transaction { tx in try tx.save(Self.emptyRow("ann"), identities: [Self.google1], mustBeNew: true) }
        await #expect(throws: AccountConflict.identity) {
            try await store.transaction { tx in try tx.save(Self.emptyRow("bob"), identities: [Self.google1], mustBeNew: true) }
        }
        #expect(try await uid(holding: google1, in: store) == "ann")
        let bob = try await store.read { try $0.account(uid: "bob") }
        #expect(bob == nil, "the refused save wrote nothing")
    }

    @Test("two accounts an old import gave one identity both stay usable; the index names the first")
    func sharedIdentitiesFromBeforeTheIndexStaySavable() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("accounts.sqlite").path
        let store = try SQLiteAccountStore(path: path)
        // What an import before the index could leave: ann and bob both linked to google.com g-1, nothing indexed.
        let legacy = try ["ann", "bob"].map { ($0, try Self.record($0, google: ["g-1"])) }
        try await store.transaction { tx in
            for (uid, record) in legacy {
                try tx.save(AccountRow(uid: uid, email: nil, phoneNumber: nil, record: record), identities: [], mustBeNew: true)
            }
        }
        try await writeAsAnOlderBinary(path, "DELETE FROM account_meta")

        let auth = service(store)
        for uid in ["bob", "ann"] {
            let updated = try await auth.update(body(#"{"localId":"\#(uid)","displayName":"\#(uid)!"}"#), privileged: true)
            #expect(updated["displayName"] == .string("\(uid)!"))
        }
        #expect(try await holder(of: "g-1", in: auth) == "ann")
        let bob = try await auth.lookup(body(#"{"localId":["bob"]}"#), privileged: true)
        #expect(bob["users"]?[0]?["providerUserInfo"]?[0]?["rawId"] == .string("g-1"), "bob keeps the identity in his record")
    }

    /// A stored record for `uid` linked to google.com `rawIds`, as the auth service writes it.
    static func record(_ uid: String, google rawIds: [String]) throws -> Data {
        var user = UserRecord(localId: uid, createdAt: 1, validSince: 0)
        user.linkedProviders = try rawIds.map {
            try JSONDecoder().decode(ProviderInfo.self, from: Data(#"{"providerId":"google.com","rawId":"\#($0)"}"#.utf8))
        }
        return try JSONEncoder().encode(user)
    }

    /// Runs `sql` on the account file as a binary from before the index would: it knows nothing of the index.
    func writeAsAnOlderBinary(_ path: String, _ sql: String, _ arguments: StatementArguments = []) async throws {
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in try db.execute(sql: sql, arguments: arguments) }
        try queue.close()
    }

    func unindexed(_ store: any AccountStore) async throws -> Set<String> {
        Set(try await store.read { try $0.unindexedAccounts() })
    }

    @Test("accounts an older binary deleted, saved or changed after a rollback are indexed again from their records")
    func writesOfAnOlderBinaryAreReindexed() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("accounts.sqlite").path
        do {
            let auth = service(try SQLiteAccountStore(path: path))
            _ = try await auth.batchCreate(body("""
                {"users":[{"localId":"ann","providerUserInfo":[{"providerId":"google.com","rawId":"g-1"}]},
                {"localId":"bob","providerUserInfo":[{"providerId":"google.com","rawId":"g-2"}]},{"localId":"cat"}]}
                """))
            #expect(try await holder(of: "g-1", in: auth) == "ann")
        }

        // The older binary deletes ann; her identity is free again.
        try await writeAsAnOlderBinary(path, "DELETE FROM accounts WHERE uid = 'ann'")
        var store = try SQLiteAccountStore(path: path)
        #expect(try await unindexed(store) == ["ann"])
        var auth = service(store)
        #expect(try await holder(of: "g-1", in: auth) == nil)
        try await link("g-1", to: "cat", in: auth)
        #expect(try await holder(of: "g-1", in: auth) == "cat")
        #expect(try await unindexed(store).isEmpty)

        // It saves a new account, dan, with an identity of his own, and bob with cat's: the index finds dan, and
        // cat keeps hers (an identity indexed for an account stays with it).
        try await writeAsAnOlderBinary(
            path, "INSERT OR REPLACE INTO accounts(uid, email, phone, record) VALUES('dan', NULL, NULL, ?)",
            [try Self.record("dan", google: ["g-9"])])
        try await writeAsAnOlderBinary(
            path, "INSERT OR REPLACE INTO accounts(uid, email, phone, record) VALUES('bob', NULL, NULL, ?)",
            [try Self.record("bob", google: ["g-1", "g-2"])])
        store = try SQLiteAccountStore(path: path)
        #expect(try await unindexed(store) == ["dan", "bob"])
        #expect(try await isComplete(store), "the rest of the index stands")
        auth = service(store)
        #expect(try await holder(of: "g-9", in: auth) == "dan")
        #expect(await linkError("g-9", to: "cat", in: auth) == "FEDERATED_USER_ID_ALREADY_LINKED")
        #expect(try await holder(of: "g-1", in: auth) == "cat")
        #expect(try await holder(of: "g-2", in: auth) == "bob")

        // A record changed in place (by hand, say): bob no longer has g-2, so it is free for cat.
        try await writeAsAnOlderBinary(path, "UPDATE accounts SET record = ? WHERE uid = 'bob'", [try Self.record("bob", google: [])])
        store = try SQLiteAccountStore(path: path)
        #expect(try await unindexed(store) == ["bob"])
        auth = service(store)
        try await link("g-2", to: "cat", in: auth)
        #expect(try await holder(of: "g-2", in: auth) == "cat")

        // This binary's own saves and deletes, of accounts with identities too, leave nothing unindexed.
        _ = try await auth.update(
            body(#"{"localId":"cat","linkProviderUserInfo":{"providerId":"apple.com","rawId":"a-1"}}"#), privileged: true)
        _ = try await auth.update(body(#"{"localId":"cat","displayName":"Cat"}"#), privileged: true)
        _ = try await auth.delete(body(#"{"localId":"dan"}"#), privileged: true)
        #expect(try await unindexed(store).isEmpty)
        #expect(try await holder(of: "g-9", in: auth) == nil)
    }

    @Test("a new account file starts with a complete index, and an emptied one stays complete")
    func newFilesStartComplete() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("accounts.sqlite").path
        let store = try SQLiteAccountStore(path: path)
        #expect(try await isComplete(store))
        let apple = AccountIdentity(providerId: "apple.com", rawId: "a-1")
        try await store.transaction { tx in
            try tx.save(AccountRow(uid: "u", email: nil, phoneNumber: nil, record: Data("{}".utf8)), identities: [apple], mustBeNew: true)
        }
        #expect(try await uid(holding: apple, in: store) == "u")
        try await store.transaction { try $0.deleteAllAccounts() }
        let reopened = try SQLiteAccountStore(path: path)
        #expect(try await isComplete(reopened))
        #expect(try await uid(holding: apple, in: reopened) == nil)
        // The wipe freed the identity for a new account.
        try await reopened.transaction { tx in
            try tx.save(AccountRow(uid: "v", email: nil, phoneNumber: nil, record: Data("{}".utf8)), identities: [apple], mustBeNew: true)
        }
        #expect(try await uid(holding: apple, in: reopened) == "v")
    }
}
