import Foundation
import HearthAuth
import HearthCore
import HearthFunctions
import HearthWire
import Logging

extension Rewards {
    /// Where invite links open the app (its universal-link host); `REWARDS_APP_URL` overrides it.
    static var appURL: String { ProcessInfo.processInfo.environment["REWARDS_APP_URL"] ?? "https://rewards.example.com" }
    /// The link domain invites are made on; `REWARDS_LINK_DOMAIN` overrides the server's first `--link-domains` entry.
    static var linkDomain: String? { ProcessInfo.processInfo.environment["REWARDS_LINK_DOMAIN"] }

    struct InviteInput: Decodable, Sendable {
        /// The inviter's uid: the `invitationId` that `POST /v1/reopenAttribution` returned for the invite link
        /// the app was opened with (or the `inviter` of its deep link).
        var inviter: String
    }

    struct InviteResult: Encodable, Sendable {
        var awarded: Int64
        var balance: Int64
    }

    static func registerInvites(in functions: inout Functions) throws {
        // The caller's invite link: a short link whose deep link names them, and that carries them as its inviter.
        // The first one made is kept (with when it was made: only accounts created after it can redeem it).
        try functions.callable("createInvite") { (_: JSONValue, request, context) -> JSONValue in
            let uid = try signedIn(request)
            if let link = try await context.database.get("/inviteLinks/\(uid)/shortLink").stringValue {
                return .object([JSONMember("shortLink", .string(link))])
            }
            guard let links = context.links else { throw CallableError(.failedPrecondition, "This server does not make short links") }
            var deepLink = URLComponents(string: appURL + "/invite")!
            deepLink.queryItems = [URLQueryItem(name: "inviter", value: uid)]
            let made: String
            do {
                made = try await links.create(link: deepLink.string!, domain: linkDomain, inviter: uid)
            } catch {
                context.logger.error("invite link not made: \(error)")
                throw CallableError(.failedPrecondition, "Invite links are not set up on this server")
            }
            let kept = try await context.database.atomically { data, writes in
                if let existing = try data.value("inviteLinks/\(uid)/shortLink").stringValue { return existing }
                writes["inviteLinks/\(uid)"] = .object([JSONMember("shortLink", .string(made)), JSONMember("createdAt", .int(data.now))])
                return made
            }
            return .object([JSONMember("shortLink", .string(kept))])
        }

        // Pays the inviter and the invitee once per invitee: never to oneself, only to an account created after the
        // invite link was made, and only once the invitee's account is at least `inviteMinTier`.
        try functions.callable("redeemInvite") { (input: InviteInput, request, context) -> InviteResult in
            let invitee = try signedIn(request)
            // The inviter comes from the client and becomes a path segment: it must be exactly one key ("V/coins"
            // would otherwise name another location).
            let inviter = try key(input.inviter, "inviter")
            guard inviter != invitee else { throw CallableError(.invalidArgument, "You cannot invite yourself") }
            guard let made = try await context.database.get("/inviteLinks/\(inviter)/createdAt").int64 else {
                throw CallableError(.notFound, "There is no invite from \(inviter)")
            }
            guard let auth = context.auth,
                let account = try await auth.lookup(IdentityToolkit.GetAccountInfoRequest(localId: [invitee]), privileged: true).users?.first,
                let created = account.createdAt.flatMap({ Int64($0) })
            else { throw CallableError(.notFound, "There is no account \(invitee)") }
            guard created > made else {
                throw refused(.failedPrecondition, "Invites are for new accounts; this one is older than the invite", reason: "notNew")
            }
            var tier = try await context.database.get("/tiers/\(invitee)/tier").stringValue.flatMap(Tier.init(rawValue:)) ?? .trial
            if tier < inviteMinTier { tier = try await refreshTier(of: invitee, context) }
            guard tier >= inviteMinTier else {
                throw CallableError(
                    .permissionDenied, "Verify your phone number to redeem the invite",
                    details: .object([JSONMember("reason", .string("tierTooLow")), JSONMember("minTier", .string(inviteMinTier.rawValue))]))
            }
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let (forInviter, forInvitee) = (ids.next(millis: now), ids.next(millis: now))
            return try await context.database.atomically { data, writes in
                guard try data.value("invites/\(invitee)") == .null else {
                    throw refused(.failedPrecondition, "An invite was already redeemed for this account", reason: "alreadyRedeemed")
                }
                writes["invites/\(invitee)"] = .object([JSONMember("inviter", .string(inviter)), JSONMember("at", .int(data.now))])
                _ = try move(inviteReward, of: inviter, kind: "invite", ref: invitee, id: forInviter, in: data, &writes)
                let balance = try move(inviteReward, of: invitee, kind: "invite", ref: inviter, id: forInvitee, in: data, &writes)
                return InviteResult(awarded: inviteReward, balance: balance)
            }
        }
    }
}
