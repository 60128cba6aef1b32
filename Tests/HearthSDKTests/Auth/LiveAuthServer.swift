import Foundation
@testable import Hearth
import HearthAuth
import HearthFiles
import HearthFunctions
import HearthMessaging
import HearthServer
import class HearthStorage.StorageService
import HearthStore
import HearthTesting
import Logging
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Wall-clock time plus an offset the test moves (to reach token expiry without waiting).
final class ShiftedClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)

    func advance(by seconds: TimeInterval) { offset.withLock { $0 += seconds } }

    var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }
    var milliseconds: Int64 { Int64(now.timeIntervalSince1970 * 1000) }
}

/// A live Hearth server with auth and storage (`HearthTesting.withLiveServer` starts one
/// without them), in `--dev` mode so the emulator endpoints that reveal SMS and email codes
/// are on.
struct LiveHearth: Sendable {
    let port: Int
    /// The server's auth clock.
    let serverClock: ShiftedClock
    let projectID = "demo"

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    func options(persistenceDirectory: URL? = nil) -> HearthOptions {
        HearthOptions(serverURL: url, projectID: projectID, apiKey: "test-key", persistenceDirectory: persistenceDirectory)
    }

    /// A fresh `Auth` on this server; `clock` is the device's clock.
    func auth(persistenceDirectory: URL? = nil, clock: ShiftedClock? = nil) -> Auth {
        guard let clock else { return Auth(options: options(persistenceDirectory: persistenceDirectory)) }
        return Auth(options: options(persistenceDirectory: persistenceDirectory), session: .shared, clock: { clock.now })
    }

    /// The newest SMS code sent to `phoneNumber` (from `/emulator/v1/projects/demo/verificationCodes`).
    func smsCode(for phoneNumber: String) async throws -> String {
        let json = try await emulator("verificationCodes")
        let codes = (json["verificationCodes"] as? [[String: Any]] ?? []).filter { $0["phoneNumber"] as? String == phoneNumber }
        guard let code = codes.last?["code"] as? String else { throw LiveHearthError.noCode(phoneNumber) }
        return code
    }

    /// The newest out-of-band code of `requestType` (`PASSWORD_RESET`, `VERIFY_EMAIL`) for `email`.
    func oobCode(for email: String, requestType: String) async throws -> String {
        try await oobField("oobCode", for: email, requestType: requestType)
    }

    /// The link mailed with the newest out-of-band code of `requestType` for `email`.
    func oobLink(for email: String, requestType: String) async throws -> URL {
        let link = try await oobField("oobLink", for: email, requestType: requestType)
        guard let url = URL(string: link) else { throw LiveHearthError.noCode(email) }
        return url
    }

    private func oobField(_ field: String, for email: String, requestType: String) async throws -> String {
        let json = try await emulator("oobCodes")
        let codes = (json["oobCodes"] as? [[String: Any]] ?? []).filter {
            $0["email"] as? String == email.lowercased() && $0["requestType"] as? String == requestType
        }
        guard let value = codes.last?[field] as? String else { throw LiveHearthError.noCode(email) }
        return value
    }

    private func emulator(_ listing: String) async throws -> [String: Any] {
        let target = url.appendingPathComponent("emulator/v1/projects/\(projectID)/\(listing)")
        let (data, _) = try await URLSession.shared.data(for: URLRequest(url: target))
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    /// Where the server sends a browser that opens `url` (its `Location`), without going there.
    func redirectTarget(of url: URL) async throws -> URL? {
        let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let (_, response) = try await session.data(for: URLRequest(url: url))
        return (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Location").flatMap(URL.init(string:))
    }

    /// A GET without credentials.
    func fetch(_ url: URL) async throws -> (status: Int, body: Data) {
        let (data, response) = try await URLSession.shared.data(for: URLRequest(url: url))
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }
}

/// Stops a session at the first redirect.
final class NoRedirects: NSObject, URLSessionTaskDelegate {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

enum LiveHearthError: Error {
    case noCode(String)
}

/// One signing key for every test server (RSA key generation is slow).
private let testSigningKey = try! SigningKey.generate()

/// Runs `body` against a live server with auth (in-memory accounts, cheap password hashing) and
/// storage (in-memory catalog, blobs in a temporary folder, default rules: signed-in users read
/// and write), the way `hearth serve --dev` wires them.
///
/// `recentSignInWindow` turns on the production rule that password and email changes and deletion need a recent sign-in.
func withAuthStorageServer<R: Sendable>(
    functions: Functions = Functions(), recentSignInWindow: Int64? = nil, messaging: MessagingService? = nil,
    _ body: @Sendable (LiveHearth) async throws -> R
) async throws -> R {
    let clock = ShiftedClock()
    let logger = Logger(label: "hearth-sdk-test", factory: { _ in SwiftLogNoOpLogHandler() })
    let auth = AuthService(
        projectID: "demo", store: MemoryAccountStore(), key: testSigningKey, hasher: PasswordHasher(rounds: 1 << 4),
        options: .init(identityProviders: .emulator, recentSignInWindow: recentSignInWindow), clock: { clock.milliseconds })
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-sdk-blobs-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    var blobConfiguration = LocalDiskBlobStore.Configuration()
    blobConfiguration.durable = false
    let storage = StorageService(
        catalog: MemoryObjectCatalog(), blobs: try await LocalDiskBlobStore(folder: folder.path, configuration: blobConfiguration),
        defaultBucket: "demo.appspot.com")
    let server = LiveServer(dev: true, auth: auth, storage: storage, functions: functions, messaging: messaging, logger: logger)
    let port = try await server.start()
    do {
        let result = try await body(LiveHearth(port: port, serverClock: clock))
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// A new empty folder under the temporary directory.
func temporaryFolder() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-sdk-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
