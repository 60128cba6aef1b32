#if canImport(FoundationNetworking)
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif
import Synchronization

/// Files on a Hearth server, through the Firebase Storage v0 API (so storage rules apply).
///
/// ```swift
/// let storage = Storage(options: options, auth: auth)
/// let avatar = storage.reference("users/\(uid)/avatar.jpg")
/// try await avatar.putData(jpeg, metadata: StorageMetadata(contentType: "image/jpeg"))
/// let url = try await avatar.downloadURL()
/// ```
///
/// Requests carry `Authorization: Firebase <ID token>` while `auth` has a signed-in user.
public final class Storage: Sendable {
    /// Where the server is, and the default bucket (``HearthOptions/bucket``).
    public let options: HearthOptions
    /// Where ID tokens come from; nil sends requests without credentials (only rules that allow anyone pass).
    public let auth: Auth?
    let session: URLSession
    /// Data larger than this goes up in a resumable upload; smaller in one multipart request.
    let resumableThreshold: Int
    /// The first chunk of a resumable upload; later chunks double up to ``maxChunkSize``.
    /// Multiples of 256 KiB, the protocol's granularity.
    let initialChunkSize: Int
    static let maxChunkSize = 32 * 256 * 1024
    /// Failed chunk requests in a row before a resumable upload gives up.
    static let maxRetries = 5

    /// - Parameters:
    ///   - auth: where ID tokens come from; nil sends requests without credentials.
    ///   - session: the `URLSession` requests go through. Downloads with a progress handler and
    ///     ``StorageReference/write(toFile:onProgress:)`` run on a session made from its
    ///     configuration, whose delegate is Hearth's own: a delegate of `session` (custom TLS trust,
    ///     redirect handling) does not see them.
    public convenience init(options: HearthOptions, auth: Auth? = nil, session: URLSession = .shared) {
        self.init(options: options, auth: auth, session: session, resumableThreshold: 5 * 1024 * 1024, initialChunkSize: 256 * 1024)
    }

    init(options: HearthOptions, auth: Auth?, session: URLSession, resumableThreshold: Int, initialChunkSize: Int) {
        self.options = options
        self.auth = auth
        self.session = session
        self.resumableThreshold = resumableThreshold
        self.initialChunkSize = max(256 * 1024, initialChunkSize / (256 * 1024) * (256 * 1024))
    }

    deinit {
        downloadSession.withLock { $0?.finishTasksAndInvalidate() }
    }

    /// The session for downloads that are watched as they arrive (``DownloadRouter``): made on
    /// first use from ``session``'s configuration, so it has the same settings, but not the
    /// session's delegate (see ``init(options:auth:session:)``).
    private let downloadSession = Mutex<URLSession?>(nil)
    private let downloads = DownloadRouter()

    /// Sends a GET with the user's credentials, handing the body to `transfer` as it arrives; an
    /// HTTP error status becomes a ``StorageError`` unless listed in `accepting`.
    func download(_ url: String, headers: [String: String] = [:], into transfer: DownloadTransfer, accepting: Set<Int> = []) async throws -> HTTPExchange {
        let request = try await authorizedRequest("GET", url, headers: headers)
        let session = downloadSession.withLock { current in
            if let current { return current }
            let made = URLSession(configuration: self.session.configuration, delegate: downloads, delegateQueue: nil)
            current = made
            return made
        }
        let answer: HTTPExchange
        do {
            answer = try await mapErrors { try await downloads.run(request, on: session, into: transfer) }
        } catch {
            transfer.closeReports()
            throw error
        }
        guard answer.isSuccess || accepting.contains(answer.status) else {
            transfer.closeReports()
            throw StorageError(status: answer.status, body: answer.body)
        }
        return answer
    }

    /// The object (or folder) at `path` in the default bucket (``HearthOptions/bucket``);
    /// `""` is the root. Slashes separate segments; empty segments are dropped.
    public func reference(_ path: String = "") -> StorageReference {
        StorageReference(storage: self, bucket: options.bucket, path: path)
    }

    /// The object at `path` in another bucket.
    public func reference(bucket: String, path: String = "") -> StorageReference {
        StorageReference(storage: self, bucket: bucket, path: path)
    }

    // MARK: Requests

    /// `<server>/v0/b/<bucket>/o`.
    func objectsURL(bucket: String) -> String {
        "\(URLEncoding.base(options.serverURL))/v0/b/\(URLEncoding.component(bucket))/o"
    }

    /// `<server>/v0/b/<bucket>/o/<name as one segment>`.
    func objectURL(bucket: String, path: String) -> String {
        "\(objectsURL(bucket: bucket))/\(URLEncoding.component(path))"
    }

    /// The `Authorization` header for the signed-in user, if any.
    func authorization() async throws -> [String: String] {
        guard let auth else { return [:] }
        do {
            guard let token = try await auth.idToken() else { return [:] }
            return ["Authorization": "Firebase \(token)"]
        } catch let error as CancellationError {
            throw error
        } catch {
            throw StorageError(
                code: .unauthenticated, message: "No ID token could be obtained for the signed-in user.", cause: error)
        }
    }

    /// Sends a request with the user's credentials; an HTTP error status becomes a ``StorageError``
    /// unless listed in `accepting`. `sent`, when given, hears how many bytes of `body` have gone.
    func send(
        _ method: String, _ url: String, headers: [String: String] = [:], body: Data? = nil, accepting: Set<Int> = [],
        sent: (@Sendable (Int64) -> Void)? = nil
    ) async throws -> HTTPExchange {
        let answer = try await exchange(authorizedRequest(method, url, headers: headers, body: body), sent: sent)
        guard answer.isSuccess || accepting.contains(answer.status) else { throw StorageError(status: answer.status, body: answer.body) }
        return answer
    }

    /// A request to `url` with the user's credentials and `headers`.
    private func authorizedRequest(_ method: String, _ url: String, headers: [String: String], body: Data? = nil) async throws -> URLRequest {
        guard let target = URL(string: url) else { throw StorageError(code: .invalidArgument, message: "The URL could not be built.") }
        var all = try await authorization()
        all.merge(headers) { _, new in new }
        return URLRequest(url: target, method: method, headers: all, body: body)
    }

    /// URLSession errors as ``StorageError``s (cancellation as `.cancelled`).
    func exchange(_ request: URLRequest, sent: (@Sendable (Int64) -> Void)? = nil) async throws -> HTTPExchange {
        try await mapErrors {
            if let sent, let body = request.httpBody, !body.isEmpty { return try await session.exchange(request, uploading: body, sent: sent) }
            return try await session.exchange(request)
        }
    }

    /// Runs one request, throwing what it throws as a ``StorageError`` (cancellation as `.cancelled`).
    private func mapErrors(_ request: () async throws -> HTTPExchange) async throws -> HTTPExchange {
        do {
            try Task.checkCancellation()
            return try await request()
        } catch let error as StorageError {
            throw error
        } catch is CancellationError {
            throw StorageError.cancelled
        } catch let error as URLError where error.code == .cancelled {
            throw StorageError.cancelled
        } catch {
            throw StorageError.network(error)
        }
    }
}
