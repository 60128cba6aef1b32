import HearthCore

/// What the database layer needs from the server: the realtime protocol (v5) as async calls.
///
/// The connection owns the socket, reconnects with backoff, re-sends listens and unacknowledged
/// writes after a reconnect (in their original order) and authenticates with the current token
/// before anything else on every connection. Writes issued while offline wait for the connection
/// and complete when the server answers. The in-memory engine implements the same protocol.
protocol RealtimeConnection: Sendable {
    /// Connection and server events, in arrival order. One consumer.
    var events: AsyncStream<RealtimeEvent> { get }

    /// Opens the connection (and keeps it open until `close()`).
    func open() async
    /// Closes for good: pending calls fail with `RealtimeError.closed`.
    func close() async
    /// Goes offline (`goOffline`) or back online without forgetting listens or pending writes.
    func setOnline(_ online: Bool) async

    /// Uses this ID token from now on (nil = signed out). Sent immediately when connected.
    func setAuthToken(_ token: String?) async

    /// Starts listening; resolves when the server acknowledged (after it pushed the initial data
    /// as events, and after the `.listenAcknowledged` event). Throws `RealtimeError` (e.g. `permission_denied`).
    /// - Parameters:
    ///   - tag: set for queries with a range or limit; data for it arrives with this tag.
    ///   - hash: the hash of the cached data (`""` when none).
    func listen(path: Path, query: Query?, tag: Int?, hash: String) async throws -> ListenAcknowledgement
    func unlisten(path: Path, query: Query?, tag: Int?) async

    /// One-off read (`g`); the value in export format.
    func get(path: Path, query: Query?) async throws -> JSONValue
    /// `p`: overwrite; with `hash`, only if the current data has this hash (else `datastale`).
    /// - Parameter receipt: when set, the server's `ok` is also yielded as `.writeAcknowledged(receipt)`, in order
    ///   with the pushes that came before it (the server sends a write's data to the client's listens first).
    func put(path: Path, data: JSONValue, hash: String?, receipt: Int64?) async throws
    /// `m`: multi-path update; keys are relative paths. `receipt` as for `put`.
    func merge(path: Path, data: [JSONMember], receipt: Int64?) async throws

    /// Puts a `p` (or, with `merge`, an `m`) in line and returns without waiting for the answer, which completes
    /// the returned value. Writes submitted one after the other reach the server in that order, so a client can
    /// have many in flight (as Firebase's SDKs do) instead of one per round trip. `receipt` as for `put`.
    func submit(_ write: SubmittedWrite, receipt: Int64) async -> OneShot<any Error>

    func onDisconnectPut(path: Path, data: JSONValue) async throws
    func onDisconnectMerge(path: Path, data: [JSONMember]) async throws
    func onDisconnectCancel(path: Path) async throws
}

/// What a listen's acknowledgement says (`{"w":["no_index"]}` warnings).
struct ListenAcknowledgement: Sendable, Hashable {
    var warnings: [String] = []
}

/// Something the server or the socket did.
enum RealtimeEvent: Sendable, Hashable {
    /// A handshake arrived: `.info/connected` is true; `serverTimeOffset` = server ts − local now (ms).
    case connected(serverTimeOffset: Int64)
    /// The socket closed; the connection is retrying (unless closed or offline).
    case disconnected
    /// `d` push: the data at `path` is now `data` (export format).
    case overwrite(path: Path, data: JSONValue, tag: Int?)
    /// `m` push: each relative path under `path` is now its value (null = deleted).
    case merge(path: Path, data: [JSONMember], tag: Int?)
    /// The server acknowledged this listen, after pushing its data: the listen's data is current. Sent for
    /// every acknowledgement, also of a listen re-sent on a new socket (whose data may not have changed, so
    /// the server pushes nothing), and in order with the pushes and `disconnected`.
    case listenAcknowledged(path: Path, query: Query?)
    /// The server accepted the write sent with this receipt. It comes after the pushes that preceded the `ok`,
    /// which hold the write's effect on this client's listens, so the write's local copy can go at once.
    case writeAcknowledged(receipt: Int64)
    /// `c` push: the server revoked this listen (rules changed).
    case listenRevoked(path: Path, query: Query?)
    /// `ac` push: the token is no longer accepted.
    case authRevoked(status: String, reason: String)
}

/// A request the server refused, or a connection that ended.
struct RealtimeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server's status (`permission_denied`, `datastale`, …) or `closed` / `disconnected`.
    var status: String
    var message: String

    static let closed = RealtimeError(status: "closed", message: "The connection was closed")
    static let offline = RealtimeError(status: "offline", message: "Client is offline.")

    var description: String { "\(status): \(message)" }
}

/// A write for ``RealtimeConnection/submit(_:receipt:)``.
enum SubmittedWrite: Sendable, Hashable {
    /// `p`; with `hash`, only if the current data has this hash (else `datastale`).
    case put(path: Path, data: JSONValue, hash: String?)
    /// `m`: relative paths → values.
    case merge(path: Path, data: [JSONMember])
}

extension RealtimeConnection {
    /// One write at a time: waits for the answer, then returns it already complete. For connections that answer
    /// at once (the in-memory server, test scripts); ``PersistentConnection`` keeps many in flight.
    func submit(_ write: SubmittedWrite, receipt: Int64) async -> OneShot<any Error> {
        let answer = OneShot<any Error>()
        do {
            switch write {
            case .put(let path, let data, let hash): try await put(path: path, data: data, hash: hash, receipt: receipt)
            case .merge(let path, let data): try await merge(path: path, data: data, receipt: receipt)
            }
            answer.succeed()
        } catch {
            answer.fail(error)
        }
        return answer
    }

    /// A write whose acknowledgement is only its return.
    func put(path: Path, data: JSONValue, hash: String?) async throws {
        try await put(path: path, data: data, hash: hash, receipt: nil)
    }

    func merge(path: Path, data: [JSONMember]) async throws {
        try await merge(path: path, data: data, receipt: nil)
    }
}
