import Foundation
import HearthCore
import HearthWire

// What the connection remembers between sockets: listens, requests waiting for an answer,
// onDisconnect operations the server holds, and what each in-flight request id stands for.

extension PersistentConnection {
    /// One listen on the wire: untagged (the default view at a path) or tagged (a filtered query).
    struct ListenKey: Hashable, Sendable {
        var path: Path
        var tag: Int?
    }

    /// A listen the connection keeps alive across sockets until `unlisten`.
    struct ActiveListen {
        /// Issue order: listens are re-sent in the order they were made.
        var sequence: Int
        var query: Query?
        /// The hash of the cached data sent with the first `q`; `""` once sent (see `sendListen`).
        var hash: String
        /// The `listen` call still waiting for the server's first acknowledgement.
        var waiter: CheckedContinuation<ListenAcknowledgement, any Error>?
    }

    /// A call waiting for the server's answer: a write, a read or an onDisconnect change. Sent when
    /// connected; re-sent on every new socket until answered.
    struct PendingRequest {
        var action: RealtimeAction
        var body: JSONValue
        /// Set for onDisconnect changes, recorded once the server accepted them.
        var onDisconnect: OnDisconnectOperation?
        /// A `get`: it gives up when no socket can answer it; writes wait for one.
        var isRead = false
        /// Yielded as `.writeAcknowledged` when the server accepts it.
        var receipt: Int64?
        /// Receives the answer (or the failure that ends the wait) once.
        var answer: @Sendable (Result<JSONValue, any Error>) -> Void
    }

    /// What the answer to request `r` on the current socket is for.
    enum InflightRequest {
        case pending(sequence: Int)
        case listen(ListenKey, sequence: Int)
        case auth(token: String)
        case reregistration(OnDisconnectOperation)
    }
}

/// An onDisconnect change: what the server does to the data when this client's socket closes.
struct OnDisconnectOperation: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        case put, merge, cancel

        var action: RealtimeAction {
            switch self {
            case .put: .onDisconnectPut
            case .merge: .onDisconnectMerge
            case .cancel: .onDisconnectCancel
            }
        }
    }

    var kind: Kind
    var path: Path
    /// The value (put), the relative paths and values (merge, as an object) or null (cancel).
    var data: JSONValue

    var body: JSONValue {
        RealtimeWriteRequest(path: path.description, data: data).body
    }
}

extension [OnDisconnectOperation] {
    /// Records an operation the server accepted, dropping those it makes moot: a put or a cancel
    /// at a path replaces everything registered at or below it; a merge replaces an identical one.
    mutating func record(_ operation: OnDisconnectOperation) {
        switch operation.kind {
        case .put, .cancel:
            removeAll { operation.path.isAncestor(ofOrEqualTo: $0.path) }
        case .merge:
            removeAll { $0 == operation }
        }
        if operation.kind != .cancel { append(operation) }
    }
}

extension RealtimeError {
    /// Too many calls are waiting for the connection (`Configuration.maxPendingRequests`).
    static let queueFull = RealtimeError(
        status: "queue_full", message: "Too many requests are waiting for the connection to the server")

    /// `unlisten` came before the server acknowledged the listen.
    static let unlistened = RealtimeError(status: "cancelled", message: "The listen was removed before the server acknowledged it")

    /// The server shut the connection down (`s` control message) and the client stopped retrying.
    static func shutDown(reason: String) -> RealtimeError {
        RealtimeError(
            status: "disconnected",
            message: reason.isEmpty ? "The server shut the connection down" : "The server shut the connection down: \(reason)")
    }

    /// A refusal in a response: the server's text when it sent one, else the status.
    init(status: RealtimeStatus, data: JSONValue) {
        self.init(status: status.rawValue, message: data.stringValue ?? status.rawValue)
    }
}

/// The realtime endpoint of a Hearth server.
enum RealtimeEndpoint {
    /// `ws(s)://host:port/.ws?v=5&ns=<namespace>[&ls=<last session>]` for an `http(s)` (or
    /// `ws(s)`) server URL; a path on the server URL is kept as a prefix. Nil for other schemes.
    static func url(serverURL: URL, namespace: String, lastSessionID: String?) -> URL? {
        guard var components = URLComponents(url: serverURL, resolvingAgainstBaseURL: false),
            components.host != nil
        else { return nil }
        switch components.scheme?.lowercased() {
        case "http", "ws": components.scheme = "ws"
        case "https", "wss": components.scheme = "wss"
        default: return nil
        }
        var prefix = components.path
        while prefix.hasSuffix("/") { prefix.removeLast() }
        components.path = prefix + "/.ws"
        var items = [URLQueryItem(name: "v", value: "5"), URLQueryItem(name: "ns", value: namespace)]
        if let lastSessionID { items.append(URLQueryItem(name: "ls", value: lastSessionID)) }
        components.queryItems = items
        components.fragment = nil
        return components.url
    }
}
