import Foundation
import HearthCore
import HearthFunctions
import HearthWire

extension Rewards {
    /// What a client sends as proof of having been in the campaign's context.
    enum ClientProof: Sendable {
        case watermark(String)
        case answers([String: String])
        case video(id: String, watchedSeconds: Double)
        case barcode(String)
        case receipt(id: String, merchant: String, products: [String])

        /// The proof's shape for `context`; `invalid-argument` when it does not have it.
        init(_ json: JSONValue?, for context: Context) throws {
            func bad(_ message: String) -> CallableError { CallableError(.invalidArgument, "Invalid proof: \(message)") }
            guard let json, case .object = json else { throw bad("send an object") }
            func text(_ name: String, max: Int = 256) throws -> String {
                guard let s = json[name]?.stringValue, !s.isEmpty, s.utf8.count <= max else { throw bad("\(name) must be a string of 1–\(max) bytes") }
                return s
            }
            switch context {
            case .tv, .stadium:
                self = .watermark(try text("watermark"))
            case .read:
                guard case .object(let members)? = json["answers"], !members.isEmpty, members.count <= 50 else {
                    throw bad("answers must be an object of 1–50 answers")
                }
                var answers: [String: String] = [:]
                for m in members {
                    guard let a = m.value.stringValue, a.utf8.count <= 256 else { throw bad("answer \(m.key) must be a string") }
                    answers[m.key] = a
                }
                self = .answers(answers)
            case .video:
                guard let seconds = json["watchedSeconds"]?.doubleValue, seconds >= 0, seconds.isFinite else {
                    throw bad("watchedSeconds must be a number ≥ 0")
                }
                self = .video(id: try text("videoId"), watchedSeconds: seconds)
            case .scan:
                let code = try text("barcode", max: 13)
                guard isEAN13(code) else { throw bad("barcode must be an EAN-13 with a correct check digit") }
                self = .barcode(code)
            case .receipt:
                let id = try text("receiptId", max: 128)
                guard (try? Key.validated(id)) != nil else { throw bad("receiptId must not contain . $ # [ ] / or control characters") }
                guard case .array(let items)? = json["products"], !items.isEmpty, items.count <= 200 else {
                    throw bad("products must be a list of 1–200 EAN-13 codes")
                }
                let products = items.compactMap(\.stringValue)
                guard products.count == items.count, products.allSatisfy(isEAN13) else {
                    throw bad("every product must be an EAN-13 with a correct check digit")
                }
                self = .receipt(id: id, merchant: try text("merchant", max: 128), products: products)
            }
        }

        /// Whether this proof meets the campaign's (`proof` as an admin stored it); nil when it does, else why not.
        func failure(against proof: JSONValue) -> String? {
            switch self {
            case .watermark(let code):
                return strings(proof["watermarks"]).contains(code) ? nil : "the watermark is not this campaign's"
            case .answers(let given):
                guard case .object(let expected)? = proof["answers"], !expected.isEmpty else { return "the campaign has no quiz" }
                for m in expected {
                    guard let answer = given[m.key], let right = m.value.stringValue,
                        normalized(answer) == normalized(right)
                    else { return "not every answer is right" }
                }
                return nil
            case .video(let id, let watched):
                guard proof["videoId"]?.stringValue == id else { return "the video is not this campaign's" }
                let needed = proof["minSeconds"]?.doubleValue ?? 0
                return watched >= needed ? nil : "watch at least \(Int(needed.rounded(.up))) seconds"
            case .barcode(let code):
                return strings(proof["products"]).contains(code) ? nil : "the product is not part of this campaign"
            case .receipt(_, let merchant, let products):
                guard strings(proof["merchants"]).contains(merchant) else { return "the merchant is not part of this campaign" }
                let wanted = Set(strings(proof["products"]))
                return products.contains(where: wanted.contains) ? nil : "the receipt has none of the campaign's products"
            }
        }

        private func normalized(_ s: String) -> String { s.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() }
    }

    /// The strings of a list, stored either as a JSON array or (as the database may keep one) an object with
    /// index keys.
    static func strings(_ value: JSONValue?) -> [String] {
        switch value {
        case .array(let items)?: items.compactMap(\.stringValue)
        case .object(let members)?: members.compactMap(\.value.stringValue)
        default: []
        }
    }

    struct Campaign: Decodable, Sendable {
        var context: String
        var title: String
        var coins: Int64
        var cooldownSeconds: Int64
        var dailyLimitPerUser: Int64
        var budget: Int64
        var startsAt: Int64
        var endsAt: Int64
        var minTier: String
    }

    static func registerShake(in functions: inout Functions) throws {
        // One shake pays the campaign's coins when everything holds at the moment of the write: the campaign runs
        // and has budget left, the caller's tier is high enough, the cooldown has passed, the daily limit is not
        // reached and (for receipts) the receipt never paid. All of it is read and written in one atomic step, so
        // two shakes at once pay at most once within the cooldown and a thousand users cannot overspend a budget.
        try functions.callable("shake") { (data: JSONValue, request, context) -> JSONValue in
            let uid = try signedIn(request)
            guard case .object = data, let id = data["campaignId"]?.stringValue else {
                throw CallableError(.invalidArgument, "Send {campaignId, proof}")
            }
            let campaignId = try key(id, "campaignId")
            let proof = data["proof"]
            do {
                return try await shake(uid: uid, campaignId: campaignId, proof: proof, context)
            } catch let error as CallableError where error.code == .permissionDenied {
                // The stored tier may predate an upgrade the client did not report: work it out again before refusing.
                let before = try await context.database.get("/tiers/\(uid)/tier").stringValue
                guard try await refreshTier(of: uid, context).rawValue != before else { throw error }
                return try await shake(uid: uid, campaignId: campaignId, proof: proof, context)
            }
        }
    }

    /// The shake itself; `proofJSON` is what the client sent, read against the campaign's context (a quick parse,
    /// done inside the step so that the campaign is read once, as it is at the moment of the write).
    private static func shake(uid: String, campaignId: String, proof proofJSON: JSONValue?, _ context: FunctionContext) async throws -> JSONValue {
        let entry = ids.next(millis: Int64(Date().timeIntervalSince1970 * 1000))
        return try await context.database.atomically { data, writes in
            guard let campaign = try data.value("campaigns/\(campaignId)", as: Campaign.self) else {
                throw CallableError(.notFound, "There is no campaign \(campaignId)")
            }
            guard let campaignContext = Context(rawValue: campaign.context) else {
                throw CallableError(.failedPrecondition, "The campaign's context is not one this server knows")
            }
            let proof = try ClientProof(proofJSON, for: campaignContext)
            let now = data.now
            guard now >= campaign.startsAt, now < campaign.endsAt else {
                throw refused(.failedPrecondition, "The campaign is not running", reason: "notRunning")
            }
            let minTier = Tier(rawValue: campaign.minTier) ?? .pro
            guard try storedTier(uid, in: data) >= minTier else {
                throw CallableError(
                    .permissionDenied, "This campaign is for \(minTier.rawValue) accounts",
                    details: .object([JSONMember("reason", .string("tierTooLow")), JSONMember("minTier", .string(minTier.rawValue))]))
            }
            if let failure = proof.failure(against: try data.value("campaignProofs/\(campaignId)")) {
                throw CallableError(.invalidArgument, "Invalid proof: \(failure)")
            }
            let state = try data.value("shakes/\(uid)/\(campaignId)")
            let last = state["lastAt"]?.int64
            if let last, now - last < campaign.cooldownSeconds * 1000 {
                let wait = (campaign.cooldownSeconds * 1000 - (now - last) + 999) / 1000
                throw refused(
                    .failedPrecondition, "Shake again in \(wait) s", reason: "cooldown", [JSONMember("retryAfterSeconds", .int(wait))])
            }
            let day = now / 86_400_000
            let count = state["day"]?.int64 == day ? state["count"]?.int64 ?? 0 : 0
            guard count < campaign.dailyLimitPerUser else {
                throw refused(.failedPrecondition, "Come back tomorrow: the daily limit is reached", reason: "dailyLimit")
            }
            let stats = try data.value("campaignStats/\(campaignId)")
            let spent = stats["spent"]?.int64 ?? 0
            guard spent + campaign.coins <= campaign.budget else {
                throw refused(.failedPrecondition, "The campaign's budget is spent", reason: "budgetSpent")
            }
            if case .receipt(let receiptId, _, _) = proof {
                guard try data.value("receipts/\(receiptId)") == .null else {
                    throw refused(.failedPrecondition, "This receipt has already paid", reason: "receiptUsed")
                }
                writes["receipts/\(receiptId)"] = .object([
                    JSONMember("uid", .string(uid)), JSONMember("campaignId", .string(campaignId)), JSONMember("at", .int(now)),
                ])
            }
            writes["shakes/\(uid)/\(campaignId)"] = .object([
                JSONMember("lastAt", .int(now)), JSONMember("day", .int(day)), JSONMember("count", .int(count + 1)),
            ])
            writes["campaignStats/\(campaignId)"] = .object([
                JSONMember("spent", .int(spent + campaign.coins)), JSONMember("awards", .int((stats["awards"]?.int64 ?? 0) + 1)),
            ])
            let balance = try move(campaign.coins, of: uid, kind: "shake", ref: campaignId, id: entry, in: data, &writes)
            return .object([JSONMember("awarded", .int(campaign.coins)), JSONMember("balance", .int(balance))])
        }
    }
}
