import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hearth
import HearthCore

extension Repositories {
    /// The repositories over a Hearth server: its accounts, realtime database and callable functions.
    ///
    /// ```swift
    /// let app = HearthApp(options: HearthOptions(serverURL: url, projectID: "rewards"))
    /// let useCases = UseCases(.hearth(app))
    /// ```
    ///
    /// The queries need these indexes in the rules: `/campaigns` on `context`, `/ledger/$uid` on `at`.
    public static func hearth(_ app: HearthApp) -> Repositories {
        Repositories(
            session: HearthSession(auth: app.auth), campaigns: HearthCampaigns(database: app.database), pages: HearthPages(database: app.database),
            wallets: HearthWallets(database: app.database), rewards: HearthRewards(functions: app.functions, options: app.options),
            catalog: HearthCatalog(database: app.database), profiles: HearthProfiles(database: app.database))
    }
}

/// Runs `body`, turning any error into an `AppError`.
func mapped<T>(_ body: () async throws -> T) async throws(AppError) -> T {
    do {
        return try await body()
    } catch {
        throw ErrorMapping.app(error)
    }
}

/// Whether `id` can name one child (a client-given id must not reach into another path).
func isKey(_ id: String) -> Bool { (try? Key.validated(id)) != nil }

/// A query's snapshots, each turned into `T`, with errors as `AppError`s; ends when the consumer stops.
func liveValues<T: Sendable>(of query: DatabaseQuery, _ transform: @escaping @Sendable (DataSnapshot) throws -> T)
    -> AsyncThrowingStream<T, any Error>
{
    AsyncThrowingStream { continuation in
        let task = Task {
            do {
                for try await snapshot in query.snapshots() { continuation.yield(try transform(snapshot)) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: ErrorMapping.app(error))
            }
        }
        continuation.onTermination = { _ in task.cancel() }
    }
}

/// The children of a snapshot decoded as `T`, each given its key.
func decodedChildren<T: Decodable>(_ snapshot: DataSnapshot, _ type: T.Type, id: WritableKeyPath<T, String>) throws -> [T] {
    try snapshot.children.map { child in
        var value = try child.value(as: T.self)
        value[keyPath: id] = child.key ?? ""
        return value
    }
}

struct HearthSession: SessionRepository {
    let auth: Auth

    func currentUserID() async -> String? { auth.currentUser?.uid }

    func startTrial() async throws(AppError) -> String {
        if let uid = auth.currentUser?.uid { return uid }
        return try await mapped { try await auth.signInAnonymously().uid }
    }

    func sendPhoneCode(to phoneNumber: String) async throws(AppError) -> String {
        try await mapped { try await auth.sendPhoneVerificationCode(phoneNumber: phoneNumber) }
    }

    func linkPhone(verificationID: String, code: String) async throws(AppError) -> String {
        try await mapped { try await auth.link(verificationID: verificationID, code: code).uid }
    }

    func sendEmailLink(to email: String, continueURL: URL) async throws(AppError) {
        try await mapped { try await auth.sendSignInLink(toEmail: email, continueURL: continueURL) }
    }

    func linkEmail(_ email: String, link: URL) async throws(AppError) -> String {
        try await mapped { try await auth.link(email: email, link: link).uid }
    }

    func link(_ token: IdentityToken) async throws(AppError) -> String {
        guard let user = auth.currentUser else { throw .notSignedIn }
        if user.providerIDs.contains(token.provider.rawValue) { return user.uid }
        let credential = ProviderCredential(providerID: token.provider.rawValue, idToken: token.idToken, rawNonce: token.rawNonce)
        return try await mapped { try await auth.link(with: credential).uid }
    }

    func refreshToken() async throws(AppError) -> Tier {
        guard let result = try await mapped({ try await auth.idTokenResult(forceRefresh: true) }) else { throw .notSignedIn }
        return Self.tier(of: result)
    }

    func currentTier() async -> Tier {
        guard let result = try? await auth.idTokenResult() else { return .trial }
        return Self.tier(of: result)
    }

    func signOut() async { try? auth.signOut() }

    static func tier(of token: IDTokenResult) -> Tier {
        ((try? token.claim("tier", as: String.self)) ?? nil).flatMap(Tier.init(rawValue:)) ?? .trial
    }
}

struct HearthCampaigns: CampaignRepository {
    let database: Database

    func campaigns(in context: Context) async throws(AppError) -> [Campaign] {
        try await mapped {
            let query = database.reference("campaigns").queryOrdered(byChild: "context").queryEqual(toValue: .string(context.rawValue))
            return try decodedChildren(try await query.getSnapshot(), Campaign.self, id: \.id).sorted { ($0.endsAt, $0.id) < ($1.endsAt, $1.id) }
        }
    }

    func campaign(_ id: String) async throws(AppError) -> Campaign? {
        guard isKey(id) else { return nil }
        return try await mapped {
            let snapshot = try await database.reference("campaigns").child(id).getSnapshot()
            guard snapshot.exists else { return nil }
            var campaign = try snapshot.value(as: Campaign.self)
            campaign.id = id
            return campaign
        }
    }

    func stats(of campaignID: String) async throws(AppError) -> CampaignStats {
        guard isKey(campaignID) else { return CampaignStats() }
        return try await mapped {
            let snapshot = try await database.reference("campaignStats").child(campaignID).getSnapshot()
            return snapshot.exists ? try snapshot.value(as: CampaignStats.self) : CampaignStats()
        }
    }
}

struct HearthPages: PageRepository {
    let database: Database

    func pages(of context: Context) async throws(AppError) -> [Page] {
        try await mapped {
            let snapshot = try await database.reference("pages").child(context.rawValue).getSnapshot()
            return snapshot.exists ? try snapshot.value(as: OrderedList<Page>.self).items : []
        }
    }
}

struct HearthWallets: WalletRepository {
    let database: Database

    static func wallet(_ snapshot: DataSnapshot) throws -> Wallet {
        snapshot.exists ? try snapshot.value(as: Wallet.self) : Wallet(coins: 0)
    }

    func wallet(of uid: String) async throws(AppError) -> Wallet {
        try await mapped { try Self.wallet(try await database.reference("wallets").child(uid).getSnapshot()) }
    }

    func walletUpdates(of uid: String) -> AsyncThrowingStream<Wallet, any Error> {
        liveValues(of: database.reference("wallets").child(uid).databaseQuery) { try Self.wallet($0) }
    }

    func ledger(of uid: String, limit: Int) async throws(AppError) -> [LedgerEntry] {
        guard limit > 0 else { return [] }
        return try await mapped {
            let query = database.reference("ledger").child(uid).queryOrdered(byChild: "at").queryLimited(toLast: limit)
            return try decodedChildren(try await query.getSnapshot(), LedgerEntry.self, id: \.id).sorted(by: LedgerEntry.newestFirst)
        }
    }
}

struct HearthRewards: RewardsService {
    let functions: CloudFunctions
    let options: HearthOptions

    /// Calls `name` and decodes its result; the function's errors go through `errors`.
    private func call<T: Decodable>(_ name: String, _ data: JSONValue, as type: T.Type, errors: (FunctionsCallError) -> AppError)
        async throws(AppError) -> T
    {
        let result: JSONValue
        do {
            result = try await functions.call(name, data)
        } catch {
            throw errors(error)
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(result.jsonBytes))
        } catch {
            throw .failed("\(name) answered \(String(decoding: result.jsonBytes, as: UTF8.self))")
        }
    }

    func shake(campaignID: String, proof: ShakeProof) async throws(AppError) -> ShakeOutcome {
        let input = JSONValue.object([JSONMember("campaignId", .string(campaignID)), JSONMember("proof", proof.json)])
        return try await call("shake", input, as: ShakeOutcome.self, errors: CallableErrors.shake)
    }

    func redeem(itemID: String) async throws(AppError) -> RedeemOutcome {
        try await call("redeem", .object([JSONMember("itemId", .string(itemID))]), as: RedeemOutcome.self, errors: CallableErrors.redeem)
    }

    func refreshTier() async throws(AppError) -> Tier {
        struct Answer: Decodable { var tier: Tier }
        return try await call("refreshTier", .object([]), as: Answer.self, errors: CallableErrors.general).tier
    }

    func createInvite() async throws(AppError) -> URL {
        struct Answer: Decodable { var shortLink: String }
        let link = try await call("createInvite", .object([]), as: Answer.self, errors: CallableErrors.general).shortLink
        guard let url = URL(string: link), url.scheme != nil else { throw .failed("createInvite answered a link that is not a URL: \(link)") }
        return url
    }

    func redeemInvite(inviter: String) async throws(AppError) -> InviteOutcome {
        try await call("redeemInvite", .object([JSONMember("inviter", .string(inviter))]), as: InviteOutcome.self, errors: CallableErrors.invite)
    }

    /// `POST /v1/reopenAttribution`, the Dynamic Links endpoint the iOS SDK calls with the URL the app opened
    /// with (its SDK hard-codes Google's host, so the app asks its own server).
    func deepLink(behind shortLink: URL) async throws(AppError) -> URL? {
        var parts = URLComponents(url: options.serverURL.appendingPathComponent("v1/reopenAttribution"), resolvingAgainstBaseURL: false)!
        parts.queryItems = [URLQueryItem(name: "key", value: options.apiKey)]
        var request = URLRequest(url: parts.url!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(JSONValue.object([JSONMember("requestedLink", .string(shortLink.absoluteString))]).jsonBytes)
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw .offline
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if status == 404 { return nil }
        guard status == 200, let answer = try? JSONValue.parse(Array(data)), let link = answer["deepLink"]?.stringValue else {
            throw .failed("reopenAttribution answered \(status)")
        }
        return URL(string: link)
    }
}

struct HearthCatalog: CatalogRepository {
    let database: Database

    func items() async throws(AppError) -> [CatalogItem] {
        try await mapped {
            try decodedChildren(try await database.reference("catalog").getSnapshot(), CatalogItem.self, id: \.id)
                .sorted { ($0.price, $0.title, $0.id) < ($1.price, $1.title, $1.id) }
        }
    }

    func item(_ id: String) async throws(AppError) -> CatalogItem? {
        guard isKey(id) else { return nil }
        return try await mapped {
            let snapshot = try await database.reference("catalog").child(id).getSnapshot()
            guard snapshot.exists else { return nil }
            var item = try snapshot.value(as: CatalogItem.self)
            item.id = id
            return item
        }
    }

    func redemptions(of uid: String) async throws(AppError) -> [Redemption] {
        try await mapped {
            try decodedChildren(try await database.reference("redemptions").child(uid).getSnapshot(), Redemption.self, id: \.id)
                .sorted { ($0.at, $0.id) > ($1.at, $1.id) }
        }
    }
}

struct HearthProfiles: ProfileRepository {
    let database: Database

    func profile(of uid: String) async throws(AppError) -> Profile? {
        try await mapped {
            let snapshot = try await database.reference("profiles").child(uid).getSnapshot()
            return snapshot.exists ? try snapshot.value(as: Profile.self) : nil
        }
    }

    func save(_ profile: Profile, for uid: String) async throws(AppError) {
        try await mapped { try await database.reference("profiles").child(uid).setValue(profile) }
    }
}
