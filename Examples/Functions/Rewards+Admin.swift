import Foundation
import HTTPTypes
import HearthCore
import HearthFunctions
import HearthWire

extension Rewards {
    static func registerAdmin(in functions: inout Functions) throws {
        // An admin publishes a campaign as one document, proof included; the proof goes where no client can read
        // it (`/campaignProofs`), the rest to `/campaigns`, in one atomic write. Its stats start at zero and are
        // kept when a campaign is edited.
        try functions.http(.put, "/rewards-admin/campaigns/{campaignId}") { request, context in
            guard context.isAdmin else { throw HTTPFunctionError(.forbidden, message: "Admin credentials required") }
            guard let id = context.params["campaignId"], (try? Key.validated(id)) != nil else {
                throw HTTPFunctionError(.badRequest, message: "The campaign id must be a database key")
            }
            let body: JSONValue
            do {
                body = try request.json()
            } catch {
                throw HTTPFunctionError(.badRequest, message: "The body must be JSON")
            }
            let (campaign, proof) = try validatedCampaign(body)
            try await context.function.database.atomically { data, writes in
                writes["campaigns/\(id)"] = campaign
                writes["campaignProofs/\(id)"] = proof
                if try data.value("campaignStats/\(id)") == .null {
                    writes["campaignStats/\(id)"] = .object([JSONMember("spent", .int(0)), JSONMember("awards", .int(0))])
                }
            }
            return .json(campaign)
        }

        // A support agent's correction: coins added or taken (never below zero), as an `adjust` ledger entry.
        try functions.http(.post, "/rewards-admin/adjust") { request, context in
            guard context.isAdmin else { throw HTTPFunctionError(.forbidden, message: "Admin credentials required") }
            guard let body = try? request.json(), let uid = body["uid"]?.stringValue, (try? Key.validated(uid)) != nil,
                let amount = body["amount"]?.int64, amount != 0, let reason = body["reason"]?.stringValue, !reason.isEmpty, reason.utf8.count <= 200
            else { throw HTTPFunctionError(.badRequest, message: "Send {uid, amount (non-zero integer), reason (1–200 bytes)}") }
            let id = ids.next(millis: Int64(Date().timeIntervalSince1970 * 1000))
            do {
                let balance = try await context.function.database.atomically { data, writes in
                    try move(amount, of: uid, kind: "adjust", ref: reason, id: id, in: data, &writes)
                }
                return .json(.object([JSONMember("entryId", .string(id)), JSONMember("balance", .int(balance))]))
            } catch let error as CallableError {
                throw HTTPFunctionError(.conflict, message: error.message)
            }
        }
    }

    /// A campaign document checked field by field: the public part and the proof, or `400` naming what is wrong.
    static func validatedCampaign(_ body: JSONValue) throws -> (campaign: JSONValue, proof: JSONValue) {
        func bad(_ message: String) -> HTTPFunctionError { HTTPFunctionError(.badRequest, message: "Invalid campaign: \(message)") }
        guard case .object(let members) = body else { throw bad("send an object") }
        let known: Set<String> = [
            "context", "title", "coins", "cooldownSeconds", "dailyLimitPerUser", "budget", "startsAt", "endsAt", "minTier", "proof",
        ]
        if let unknown = members.first(where: { !known.contains($0.key) }) { throw bad("unknown field \(unknown.key)") }
        guard let contextName = body["context"]?.stringValue, let context = Context(rawValue: contextName) else {
            throw bad("context must be one of \(Context.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let title = body["title"]?.stringValue, !title.isEmpty, title.count <= 200 else { throw bad("title must be 1–200 characters") }
        func integer(_ name: String, _ range: ClosedRange<Int64>) throws -> Int64 {
            guard let v = body[name]?.int64, range.contains(v) else { throw bad("\(name) must be an integer in \(range.lowerBound)…\(range.upperBound)") }
            return v
        }
        let coins = try integer("coins", 1...1_000_000)
        let cooldown = try integer("cooldownSeconds", 0...31_536_000)
        let daily = try integer("dailyLimitPerUser", 1...1_000_000)
        let budget = try integer("budget", 0...1_000_000_000_000)
        let startsAt = try integer("startsAt", 0...Int64(1) << 50)
        let endsAt = try integer("endsAt", 0...Int64(1) << 50)
        guard startsAt < endsAt else { throw bad("startsAt must be before endsAt") }
        guard let minTier = body["minTier"]?.stringValue, Tier(rawValue: minTier) != nil else { throw bad("minTier must be trial, signed or pro") }
        guard let proof = body["proof"], case .object = proof else { throw bad("proof must be an object") }
        func list(_ name: String, ean: Bool = false) throws -> JSONValue {
            guard case .array(let items)? = proof[name], !items.isEmpty, items.count <= 1000 else { throw bad("proof.\(name) must be a list of 1–1000 items") }
            let strings = items.compactMap(\.stringValue)
            guard strings.count == items.count, strings.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 256 }) else {
                throw bad("proof.\(name) must hold strings")
            }
            if ean, let wrong = strings.first(where: { !isEAN13($0) }) { throw bad("\(wrong) is not an EAN-13 with a correct check digit") }
            return .array(items)
        }
        let checkedProof: JSONValue
        switch context {
        case .tv, .stadium: checkedProof = .object([JSONMember("watermarks", try list("watermarks"))])
        case .read:
            guard case .object(let answers)? = proof["answers"], !answers.isEmpty, answers.count <= 50,
                answers.allSatisfy({ $0.value.stringValue != nil && (try? Key.validated($0.key)) != nil })
            else { throw bad("proof.answers must map 1–50 question ids to answers") }
            checkedProof = .object([JSONMember("answers", .object(answers))])
        case .video:
            guard let video = proof["videoId"]?.stringValue, !video.isEmpty, let seconds = proof["minSeconds"]?.doubleValue, seconds >= 0 else {
                throw bad("proof needs videoId and minSeconds ≥ 0")
            }
            checkedProof = .object([JSONMember("videoId", .string(video)), JSONMember("minSeconds", .double(seconds))])
        case .scan: checkedProof = .object([JSONMember("products", try list("products", ean: true))])
        case .receipt:
            checkedProof = .object([JSONMember("merchants", try list("merchants")), JSONMember("products", try list("products", ean: true))])
        }
        let campaign = JSONValue.object([
            JSONMember("context", .string(contextName)), JSONMember("title", .string(title)), JSONMember("coins", .int(coins)),
            JSONMember("cooldownSeconds", .int(cooldown)), JSONMember("dailyLimitPerUser", .int(daily)), JSONMember("budget", .int(budget)),
            JSONMember("startsAt", .int(startsAt)), JSONMember("endsAt", .int(endsAt)), JSONMember("minTier", .string(minTier)),
        ])
        return (campaign, checkedProof)
    }
}
