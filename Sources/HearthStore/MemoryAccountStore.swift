import Foundation
import Synchronization

/// Accounts in memory (tests, and the in-memory server used by router tests).
public final class MemoryAccountStore: AccountStore {
    struct State {
        var accounts: [String: AccountRow] = [:]
        var identities: [AccountIdentity: String] = [:]
        var refresh: [Data: RefreshTokenRow] = [:]
        var codes: [Data: (data: Data, created: Int64)] = [:]
        var outbox = MemoryOutbox()
    }

    private let state = Mutex(State())

    /// An empty store.
    public init() {}

    /// Runs `body` on a copy under the store's lock and keeps the copy only if `body` returns (all or nothing).
    public func transaction<R: Sendable>(_ body: @Sendable (any AccountTransaction) throws -> R) async throws -> R {
        try state.withLock { s in
            let tx = Transaction(state: s)
            let result = try body(tx)
            s = tx.state
            return result
        }
    }

    /// Reads a copy of the state: writes inside `body` change only the copy.
    public func readNow<R>(_ body: (any AccountTransaction) throws -> R) throws -> R? {
        try body(Transaction(state: state.withLock { $0 }))
    }

    final class Transaction: AccountTransaction, MemoryOutboxHost {
        var outbox: MemoryOutbox {
            get { state.outbox }
            set { state.outbox = newValue }
        }

        var state: State
        init(state: State) { self.state = state }

        func account(uid: String) throws -> AccountRow? { state.accounts[uid] }
        func account(email: String) throws -> AccountRow? { state.accounts.values.first { $0.email == email } }
        func account(phoneNumber: String) throws -> AccountRow? { state.accounts.values.first { $0.phoneNumber == phoneNumber } }

        func save(_ row: AccountRow, identities: [AccountIdentity], mustBeNew: Bool) throws {
            if mustBeNew, state.accounts[row.uid] != nil { throw AccountConflict.uid }
            if let e = row.email, let other = try account(email: e), other.uid != row.uid { throw AccountConflict.email }
            if let p = row.phoneNumber, let other = try account(phoneNumber: p), other.uid != row.uid { throw AccountConflict.phoneNumber }
            if identities.contains(where: { state.identities[$0].map { $0 != row.uid } ?? false }) { throw AccountConflict.identity }
            state.accounts[row.uid] = row
            state.identities = state.identities.filter { $0.value != row.uid }
            for identity in identities { state.identities[identity] = row.uid }
        }

        func account(identity: AccountIdentity) throws -> AccountRow? { state.identities[identity].flatMap { state.accounts[$0] } }
        func identityIndexIsComplete() throws -> Bool { true }
        func completeIdentityIndex(_ accounts: [(uid: String, identities: [AccountIdentity])]) throws {
            for (uid, identities) in accounts {
                for identity in identities where state.identities[identity] == nil { state.identities[identity] = uid }
            }
        }

        // Only this process writes a memory store: nothing is ever unindexed.
        func unindexedAccounts() throws -> [String] { [] }
        func reindex(_ uids: [String], identities accounts: [(uid: String, identities: [AccountIdentity])]) throws {}

        func deleteAccount(uid: String) throws -> Bool {
            for (hash, row) in state.refresh where row.uid == uid { state.refresh[hash]?.uid = "" }
            state.identities = state.identities.filter { $0.value != uid }
            return state.accounts.removeValue(forKey: uid) != nil
        }

        func accounts(after: String?, limit: Int) throws -> [AccountRow] {
            let sorted = state.accounts.values.filter { after == nil || $0.uid > after! }.sorted { $0.uid < $1.uid }
            return Array(sorted.prefix(limit))
        }

        func accountCount() throws -> Int { state.accounts.count }
        func saveRefreshToken(_ row: RefreshTokenRow) throws { state.refresh[row.hash] = row }
        func refreshToken(hash: Data) throws -> RefreshTokenRow? { state.refresh[hash] }

        func saveCode(hash: Data, data: Data, created: Int64) throws { state.codes[hash] = (data, created) }
        func code(hash: Data) throws -> (data: Data, created: Int64)? { state.codes[hash] }
        func deleteCode(hash: Data) throws { state.codes[hash] = nil }
        func codes() throws -> [(hash: Data, data: Data, created: Int64)] {
            state.codes.map { ($0.key, $0.value.data, $0.value.created) }.sorted { $0.created < $1.created }
        }
        func deleteCodes(createdBefore: Int64) throws { state.codes = state.codes.filter { $0.value.created >= createdBefore } }

        func deleteAllAccounts() throws {
            state.accounts = [:]
            state.identities = [:]
            state.refresh = [:]
        }
    }
}
