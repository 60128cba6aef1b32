import Synchronization
import NIOCore
import NIOPosix

/// The limits one realtime connection's requests are held to: its client address's and (once signed in) its
/// user's request buckets, shared with HTTP, and the most listens it may hold.
///
/// Over a rate limit a request is answered `unavailable` (which the Firebase SDKs surface as an error: "Service is
/// unavailable" / `DatabaseError.UNAVAILABLE`); a listen over the connection's maximum is answered `failed`.
struct RealtimeLimits: Sendable {
    /// The request buckets (nil: no request rate is limited).
    let limiter: RequestLimiter?
    /// The connection's client address (after `--trusted-proxies`), or nil when unknown.
    let address: String?
    /// Most listens the connection may hold.
    let maxListens: Int
    /// Where refused listens are counted.
    let state: LimitState

    /// The limits `database`'s configuration sets for a connection from `address`.
    init(_ database: DatabaseController, address: String?) {
        let configuration = database.configuration
        limiter = RequestLimiter(limits: configuration.limits, authenticator: database.authenticator, trustedProxies: configuration.trustedProxies)
        self.address = address
        maxListens = max(1, configuration.limits.maxListenersPerConnection)
        state = configuration.limits.state
    }

    /// Takes a token for one request of the connection (`uid`: its signed-in user, nil when signed out or the
    /// admin, who is not limited: see `admin`); the refusal when a bucket was empty.
    func check(uid: String?, admin: Bool) -> RequestLimiter.Refusal? {
        guard !admin, let limiter else { return nil }
        return limiter.check(address: address, uid: uid)
    }

    /// Whether a connection holding `count` listens may start another (counted when it may not).
    func mayListen(holding count: Int) -> Bool {
        if count < maxListens { return true }
        state.refusedListens.wrappingAdd(1, ordering: .relaxed)
        return false
    }

    /// The text a refused listen's `failed` carries.
    var listenRefusal: String { "Too many listens on this connection (the limit is \(maxListens)); stop listening to some first." }
}

/// Hands the client address of a WebSocket being attached to the ``RealtimeConnection`` created for it: the
/// connection is created on the same thread, synchronously, while its channel handler is added
/// (``RealtimeController/attach(to:head:namespace:)``), so a thread-local slot carries it across.
enum AttachingClient {
    /// A box, for the thread-local slot. `@unchecked Sendable`: each box is only ever touched by the thread whose
    /// slot holds it.
    private final class Box: @unchecked Sendable {
        /// The address (nil: none being attached).
        var address: String?
        /// A box holding `address`.
        init(_ address: String?) { self.address = address }
    }

    /// This thread's slot.
    private static let slot = ThreadSpecificVariable<Box>()

    /// Sets the address the next connection created on this thread gets (nil clears it).
    static func set(_ address: String?) {
        if let box = slot.currentValue { box.address = address } else { slot.currentValue = Box(address) }
    }

    /// The address set on this thread, if any.
    static var current: String? { slot.currentValue?.address }

    /// The client address of a WebSocket upgrade: its peer, or the `X-Forwarded-For` hop `proxies` names.
    static func address(of channel: any Channel, forwardedFor: [String], proxies: TrustedProxies) -> String? {
        proxies.clientAddress(peer: channel.remoteAddress?.ipAddress, forwardedFor: forwardedFor)
    }
}
