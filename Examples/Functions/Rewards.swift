import Foundation
import HearthCore
import HearthFunctions
import HearthWire
import HearthStore
import Logging

/// The loyalty app: users earn coins by shaking their phone in a context; the server mints the
/// coins (clients cannot write wallets, see the rules in README), and an invite rewards both sides
/// once.
enum Rewards {
    /// Seconds between two shakes that earn a coin.
    static let shakeInterval: Int64 = 5
    static let inviteReward: Int64 = 50

    struct ShakeInput: Decodable, Sendable {
        var context: String
    }

    struct ShakeResult: Encodable, Sendable {
        var coins: Int64
    }

    struct InviteInput: Decodable, Sendable {
        /// The inviter's uid: the `invitationId` that `POST /v1/reopenAttribution` returned for the
        /// invite link the app was opened with.
        var inviter: String
    }

    struct InviteResult: Encodable, Sendable {
        var invited: Bool
    }

    static func register(in functions: inout Functions) throws {
        // Every new account (anonymous trial users included) starts with an empty wallet. The
        // event id as idempotency key: a retried run cannot reset coins earned meanwhile.
        try functions.onUserCreated { event, context in
            try await context.database.set(
                "/wallets/\(event.uid)", .object([JSONMember("coins", .int(0)), JSONMember("createdAt", .timestamp)]),
                idempotencyKey: event.id)
        }

        try functions.onUserDeleted { event, context in
            try await context.database.remove("/wallets/\(event.uid)", idempotencyKey: event.id)
        }

        // One coin per shake, at most one every `shakeInterval` seconds per user.
        try functions.callable("shake") { (input: ShakeInput, request, context) -> ShakeResult in
            guard let uid = request.auth?.uid else { throw CallableError(.unauthenticated, "Sign in to earn coins") }
            let trimmed = input.context.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, trimmed.count <= 100 else {
                throw CallableError(.invalidArgument, "context must be 1–100 characters")
            }
            let now = Int64(Date().timeIntervalSince1970)
            let tooSoon = Flag()
            let committed = try await context.database.transaction("/wallets/\(uid)") { current in
                let coins = current["coins"]?.int64 ?? 0
                let last = current["lastShakeAt"]?.int64 ?? 0
                if now - last < shakeInterval {
                    tooSoon.set()
                    return nil
                }
                var members = current.members.filter { $0.key != "coins" && $0.key != "lastShakeAt" && $0.key != "lastContext" }
                members += [
                    JSONMember("coins", .int(coins + 1)), JSONMember("lastShakeAt", .int(now)), JSONMember("lastContext", .string(trimmed)),
                ]
                return .object(members)
            }
            if tooSoon.isSet || committed == nil {
                throw CallableError(.resourceExhausted, "Shake again in a few seconds", details: .object([JSONMember("retryAfterSeconds", .int(shakeInterval))]))
            }
            let coins = committed?["coins"]?.int64 ?? 0
            return ShakeResult(coins: coins)
        }

        // The invitee's app, after sign-up, redeems the invite it was opened with.
        try functions.callable("redeemInvite") { (input: InviteInput, request, context) -> InviteResult in
            guard let invitee = request.auth?.uid else { throw CallableError(.unauthenticated, "Sign in to redeem an invite") }
            // The inviter comes from the client and becomes a path segment: it must be exactly one key. ("V/coins"
            // would otherwise turn the reward into an overwrite of another user's balance, and "me/" an invite of
            // oneself that can never be rewarded.)
            guard (try? Key.validated(input.inviter)) != nil else {
                throw CallableError(.invalidArgument, "inviter must be a user id")
            }
            guard input.inviter != invitee else {
                throw CallableError(.invalidArgument, "You cannot invite yourself")
            }
            guard try await context.database.get("/wallets/\(input.inviter)") != .null else {
                throw CallableError(.notFound, "The invite's sender no longer exists")
            }
            let record = JSONValue.object([
                JSONMember("inviter", .string(input.inviter)), JSONMember("at", .timestamp),
            ])
            // Created once per invitee: a second redeem (another link, a retry) finds it there.
            let created = try await context.database.transaction("/invites/\(invitee)") { current in
                current == .null ? record : nil
            }
            guard created != nil else { throw CallableError(.alreadyExists, "An invite was already redeemed for this account") }
            return InviteResult(invited: true)
        }

        // Both sides get their reward once, however often this trigger runs.
        try functions.onValueCreated("/invites/{invitee}") { event, context in
            guard let invitee = event.params["invitee"], let inviter = event.after["inviter"]?.stringValue else { return }
            let increment = JSONValue.increment(inviteReward)
            try await context.database.update(
                "/",
                [
                    "wallets/\(inviter)/coins": increment, "wallets/\(invitee)/coins": increment,
                    "invites/\(invitee)/rewarded": .bool(true),
                ], idempotencyKey: event.id)
            context.logger.info("invite rewarded", metadata: ["invitee": "\(invitee)", "inviter": "\(inviter)"])
        }
    }
}

