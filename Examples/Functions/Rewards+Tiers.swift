import Foundation
import HearthAuth
import HearthCore
import HearthFunctions
import HearthWire

extension Rewards {
    static let genders: Set<String> = ["female", "male", "other", "unspecified"]

    /// The tier an account has: pro with a linked Google or Apple account, or with a verified phone (or email),
    /// a gender, first and last name and a birth date; signed with a verified phone (or email) and a gender;
    /// trial otherwise (an anonymous account).
    static func tier(providers: Set<String>, verified: Bool, profile: JSONValue) -> Tier {
        if !providers.isDisjoint(with: ["google.com", "apple.com"]) { return .pro }
        guard verified, let gender = profile["gender"]?.stringValue, genders.contains(gender) else { return .trial }
        let named = [profile["firstName"], profile["lastName"]].allSatisfy { !($0?.stringValue ?? "").trimmingCharacters(in: .whitespaces).isEmpty }
        if named, let birth = profile["birthDate"]?.stringValue, isPastDate(birth) { return .pro }
        return .signed
    }

    /// Whether `text` is a real calendar date `YYYY-MM-DD` before today (UTC), after 1900.
    static func isPastDate(_ text: String, now: Date = Date()) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]), y >= 1900
        else { return false }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard let date = calendar.date(from: DateComponents(year: y, month: m, day: d)),
            calendar.dateComponents([.year, .month, .day], from: date) == DateComponents(year: y, month: m, day: d)
        else { return false }
        return date < calendar.startOfDay(for: now)
    }

    /// Works out the caller's tier from their account and profile, and publishes it where it changed: at
    /// `/tiers/{uid}` and as the custom claim `tier` (in ID tokens issued from now on, so `auth.token.tier`
    /// in rules).
    static func refreshTier(of uid: String, _ context: FunctionContext) async throws -> Tier {
        guard let auth = context.auth else { throw CallableError(.failedPrecondition, "This server runs without accounts") }
        guard let user = try await auth.lookup(IdentityToolkit.GetAccountInfoRequest(localId: [uid]), privileged: true).users?.first else {
            throw CallableError(.notFound, "There is no account \(uid)")
        }
        let providers = Set((user.providerUserInfo ?? []).map(\.providerId))
        let verified = user.phoneNumber != nil || (user.email != nil && user.emailVerified == true)
        let profile = try await context.database.get("/profiles/\(uid)")
        let tier = tier(providers: providers, verified: verified, profile: profile)

        var claims: [JSONMember] = []
        if let text = user.customAttributes, case .object(let members)? = try? JSONValue.parse(Array(text.utf8)) { claims = members }
        if claims.first(where: { $0.key == "tier" })?.value.stringValue != tier.rawValue {
            claims.removeAll { $0.key == "tier" }
            claims.append(JSONMember("tier", .string(tier.rawValue)))
            let text = String(decoding: JSONValue.object(claims).jsonBytes, as: UTF8.self)
            _ = try await auth.update(IdentityToolkit.SetAccountInfoRequest(localId: uid, customAttributes: text), privileged: true)
        }
        try await context.database.atomically { data, writes in
            if try data.value("tiers/\(uid)/tier").stringValue != tier.rawValue {
                writes["tiers/\(uid)"] = .object([JSONMember("tier", .string(tier.rawValue)), JSONMember("at", .int(data.now))])
            }
        }
        return tier
    }

    /// The tier last published for `uid` (trial when none was).
    static func storedTier(_ uid: String, in data: AtomicSnapshot) throws -> Tier {
        try data.value("tiers/\(uid)/tier").stringValue.flatMap(Tier.init(rawValue:)) ?? .trial
    }
}
