public import Foundation

/// One stored account: the unique lookup keys plus the record itself (encoded by the auth
/// service; the store does not interpret it).
public struct AccountRow: Sendable, Hashable {
    /// The account's user id, its primary key.
    public var uid: String
    /// Lower-cased email, unique when present.
    public var email: String?
    /// Phone number, unique when present.
    public var phoneNumber: String?
    /// The account as the auth service encoded it; opaque to the store.
    public var record: Data

    /// A row; `email` should already be lower-cased.
    public init(uid: String, email: String?, phoneNumber: String?, record: Data) {
        self.uid = uid
        self.email = email
        self.phoneNumber = phoneNumber
        self.record = record
    }
}

/// A refresh token, kept only as the SHA-256 of its value.
public struct RefreshTokenRow: Sendable, Hashable {
    /// SHA-256 of the token; the token itself is never stored.
    public var hash: Data
    /// The account the token signs in; "" once that account was deleted.
    public var uid: String
    /// Sign-in provider, developer claims, issue time (encoded by the auth service).
    public var data: Data

    /// A row for the token whose SHA-256 is `hash`.
    public init(hash: Data, uid: String, data: Data) {
        self.hash = hash
        self.uid = uid
        self.data = data
    }
}

/// A sign-in provider's account linked to a user (`google.com` and the user's id there). One
/// identity belongs to one account at most, so it is looked up and kept unique like an email.
public struct AccountIdentity: Sendable, Hashable {
    /// The provider (`google.com`, `apple.com`, …).
    public var providerId: String
    /// The user's id at that provider.
    public var rawId: String

    /// An identity: user `rawId` at provider `providerId`.
    public init(providerId: String, rawId: String) {
        self.providerId = providerId
        self.rawId = rawId
    }
}

/// A uniqueness rule that a write would break.
public enum AccountConflict: Error, Sendable, Hashable {
    /// The uid exists (a save with `mustBeNew`), or the email, the phone number or a provider identity belongs to another account.
    case uid, email, phoneNumber, identity
}

/// Reads and writes accounts inside one transaction.
public protocol AccountTransaction: OutboxReader, OutboxWriter {
    /// The account with this uid.
    func account(uid: String) throws -> AccountRow?
    /// The account with this email (compared exactly: pass it lower-cased).
    func account(email: String) throws -> AccountRow?
    /// The account with this phone number (compared exactly).
    func account(phoneNumber: String) throws -> AccountRow?
    /// Inserts or replaces the row with this uid, and replaces its provider identities with
    /// `identities`. Throws `AccountConflict` if another account has the email, the phone number
    /// or one of the identities, or (with `mustBeNew`) the uid exists.
    func save(_ row: AccountRow, identities: [AccountIdentity], mustBeNew: Bool) throws
    /// The account that has this provider identity. Complete only once `identityIndexIsComplete()`.
    func account(identity: AccountIdentity) throws -> AccountRow?
    /// False in a data folder whose accounts were saved before identities were indexed, until
    /// `completeIdentityIndex` has run: the store cannot read the identities out of the records.
    func identityIndexIsComplete() throws -> Bool
    /// Indexes the identities of accounts saved before the index existed (an identity already
    /// indexed keeps its account), and marks the index complete.
    func completeIdentityIndex(_ accounts: [(uid: String, identities: [AccountIdentity])]) throws
    /// Accounts that another binary (a rollback to an older one) saved or deleted since this store last indexed them.
    func unindexedAccounts() throws -> [String]
    /// Replaces what the index holds for `uids` with `accounts`' identities (those of the `uids` that still exist;
    /// an identity indexed for another account keeps it), and takes `uids` off the unindexed list.
    func reindex(_ uids: [String], identities accounts: [(uid: String, identities: [AccountIdentity])]) throws
    /// Removes the account and its identities; its refresh tokens stay, orphaned (uid ""), so they can be told apart
    /// from unknown ones. False if there was no account.
    func deleteAccount(uid: String) throws -> Bool
    /// Accounts with uid greater than `after`, in uid order.
    func accounts(after: String?, limit: Int) throws -> [AccountRow]
    /// Number of accounts.
    func accountCount() throws -> Int
    /// Inserts or replaces the refresh token with `row.hash`.
    func saveRefreshToken(_ row: RefreshTokenRow) throws
    /// The refresh token whose SHA-256 is `hash`, if stored (also when its account was deleted: uid "").
    func refreshToken(hash: Data) throws -> RefreshTokenRow?
    /// Removes every account, provider identity and refresh token (one-time codes stay).
    func deleteAllAccounts() throws
    /// One-time codes (email links, SMS sessions), keyed by the SHA-256 of the code.
    func saveCode(hash: Data, data: Data, created: Int64) throws
    /// The code whose SHA-256 is `hash`, with its creation time (milliseconds since 1970); expiry is the caller's.
    func code(hash: Data) throws -> (data: Data, created: Int64)?
    /// Removes one code (no error when absent).
    func deleteCode(hash: Data) throws
    /// Every stored code, oldest first.
    func codes() throws -> [(hash: Data, data: Data, created: Int64)]
    /// Removes codes created before `createdBefore` (milliseconds since 1970).
    func deleteCodes(createdBefore: Int64) throws
}

/// Where a project's accounts live.
public protocol AccountStore: Sendable {
    /// Runs `body` in one write transaction, committed durably before this returns; a throw rolls everything back.
    func transaction<R: Sendable>(_ body: @Sendable (any AccountTransaction) throws -> R) async throws -> R
    /// A read-only look (no commit, no fsync); writes inside it fail.
    func read<R: Sendable>(_ body: @Sendable (any AccountTransaction) throws -> R) async throws -> R
    /// A read-only look on the calling thread that never suspends or waits for a writer, for answers computed outside
    /// Swift concurrency (a thread-pool job); nil where the store cannot read that way (the caller then uses `read`).
    func readNow<R>(_ body: (any AccountTransaction) throws -> R) throws -> R?
}

extension AccountStore {
    /// By default a store cannot read on the calling thread: nil.
    public func readNow<R>(_ body: (any AccountTransaction) throws -> R) throws -> R? { nil }

    /// By default a read is a transaction that writes nothing.
    public func read<R: Sendable>(_ body: @Sendable (any AccountTransaction) throws -> R) async throws -> R {
        try await transaction(body)
    }
}
