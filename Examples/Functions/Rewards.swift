import Foundation
import HearthCore
import HearthFunctions
import HearthWire
import Logging

/// The loyalty app (Examples/Rewards): users earn coins by shaking their phone in a context (a TV ad, an
/// article's quiz, a video, a product's barcode, a receipt, a stadium), spend them in a catalogue, move from an
/// anonymous trial to a signed and a pro tier without losing anything, and invite friends. The server mints and
/// spends every coin: clients can write only their profile (see Examples/Rewards/rules.json), and every change
/// of coins writes the wallet and a ledger entry in one atomic step, so the ledger always sums to the wallet.
///
/// The contract (paths, callables, errors) is Examples/Rewards/README.md.
enum Rewards {
    /// Coins both sides of an invite get.
    static let inviteReward: Int64 = 50
    /// The tier an invitee needs before an invite pays (an anonymous account costs nothing to make, a verified
    /// phone number does).
    static let inviteMinTier = Tier.signed

    enum Tier: String, Comparable, Sendable {
        case trial, signed, pro
        private var rank: Int { [Tier.trial, .signed, .pro].firstIndex(of: self)! }
        static func < (a: Tier, b: Tier) -> Bool { a.rank < b.rank }
    }

    enum Context: String, Sendable, CaseIterable {
        case tv, read, video, scan, receipt, stadium
    }

    /// Ledger entries' and redemptions' ids: chronological, unique.
    static let ids = PushIDGenerator()

    static func register(in functions: inout Functions) throws {
        // Every new account (anonymous trial users included) starts with an empty wallet and its tier. Only where
        // there is no wallet yet: a retried run cannot reset coins earned meanwhile.
        try functions.onUserCreated(name: "rewardsUserCreated") { event, context in
            let uid = event.uid
            try await context.database.atomically { data, writes in
                if try data.value("wallets/\(uid)") == .null {
                    writes["wallets/\(uid)"] = .object([JSONMember("coins", .int(0)), JSONMember("createdAt", .timestamp)])
                }
            }
            _ = try await refreshTier(of: uid, context)
        }

        // A deleted account's personal data goes with it. Its receipts and the invite it redeemed stay: a new account
        // must not be paid for them again.
        try functions.onUserDeleted(name: "rewardsUserDeleted") { event, context in
            let uid = event.uid
            var gone: [String: JSONValue] = [:]
            for root in ["wallets", "ledger", "redemptions", "profiles", "tiers", "shakes", "inviteLinks"] { gone["\(root)/\(uid)"] = .null }
            try await context.database.update("/", gone, idempotencyKey: event.id)
        }

        // A saved profile can change the tier (a gender makes a phone user signed; names and a birth date, pro).
        // The rules accept only real calendar dates but cannot tell today's date from a string: a birth date that
        // is not in the past is taken out again here (and never counts towards pro).
        try functions.onValueWritten("/profiles/{uid}") { event, context in
            guard let uid = event.params["uid"], event.after != .null else { return }
            if let birth = event.after["birthDate"]?.stringValue, !isPastDate(birth) {
                try await context.database.atomically { data, writes in
                    if try data.value("profiles/\(uid)/birthDate").stringValue == birth { writes["profiles/\(uid)/birthDate"] = .null }
                }
                context.logger.info("a birth date that is not in the past was removed", metadata: ["uid": "\(uid)"])
            }
            _ = try await refreshTier(of: uid, context)
        }

        try functions.callable("refreshTier") { (_: JSONValue, request, context) -> JSONValue in
            let uid = try signedIn(request)
            return .object([JSONMember("tier", .string(try await refreshTier(of: uid, context).rawValue))])
        }

        try registerShake(in: &functions)
        try registerWallet(in: &functions)
        try registerInvites(in: &functions)
        try registerAdmin(in: &functions)
    }

    // MARK: Shared

    static func signedIn(_ request: CallableRequest) throws -> String {
        guard let uid = request.auth?.uid else { throw CallableError(.unauthenticated, "Sign in first (anonymously is enough)") }
        return uid
    }

    /// `text` as one database key (it becomes a path segment), else `invalid-argument` naming `field`.
    static func key(_ text: String, _ field: String) throws -> String {
        guard !text.isEmpty, text.utf8.count <= 128, (try? Key.validated(text)) != nil else {
            throw CallableError(.invalidArgument, "\(field) must be an id of 1–128 bytes without . $ # [ ] / or control characters")
        }
        return text
    }

    static func refused(_ code: CallableError.Code, _ message: String, reason: String, _ more: [JSONMember] = []) -> CallableError {
        CallableError(code, message, details: .object([JSONMember("reason", .string(reason))] + more))
    }

    /// Records `amount` coins (negative: spent) in the wallet and the ledger, in the caller's atomic write.
    /// Refuses a balance below zero. Returns the new balance.
    static func move(
        _ amount: Int64, of uid: String, kind: String, ref: String, id: String, in data: AtomicSnapshot, _ writes: inout AtomicWrites
    ) throws -> Int64 {
        let balance = try data.value("wallets/\(uid)/coins").int64 ?? 0
        let next = balance + amount
        guard next >= 0 else {
            throw refused(.failedPrecondition, "Not enough coins: \(balance) of \(-amount)", reason: "insufficientCoins")
        }
        writes["wallets/\(uid)/coins"] = .int(next)
        writes["ledger/\(uid)/\(id)"] = .object([
            JSONMember("amount", .int(amount)), JSONMember("kind", .string(kind)), JSONMember("ref", .string(ref)),
            JSONMember("at", .int(data.now)),
        ])
        return next
    }

    /// Whether `code` is an EAN-13 whose check digit is right.
    static func isEAN13(_ code: String) -> Bool {
        let digits = code.utf8.map { Int($0) - 48 }
        guard digits.count == 13, digits.allSatisfy({ (0...9).contains($0) }) else { return false }
        let sum = digits.prefix(12).enumerated().reduce(0) { $0 + $1.element * ($1.offset.isMultiple(of: 2) ? 1 : 3) }
        return (10 - sum % 10) % 10 == digits[12]
    }
}
