import Foundation

// Where the connection is (not opened, offline, connecting, on a socket, closed) and every change of it.

extension PersistentConnection {
    /// The connection's state, one value instead of the flags that stood for it (opened or closed, online, the
    /// socket's handshake, a socket being dropped, a token to refresh before the next socket). Every change is one of
    /// the transitions below; each returns what the connection must do about its loop and socket (`Effect`), so the
    /// machine has no I/O and is tested alone.
    ///
    /// The credentials (`authToken`, `refreshedToken`) and the backoff's `retryAttempt` stay beside it: they outlive
    /// every state change but `close()`, and no transition depends on them.
    enum ConnectionState {
        /// Not opened yet; `online` is what `setOnline` last said, and decides whether `open()` connects.
        case idle(online: Bool)
        /// Opened and offline (`setOnline(false)`, or the server's shutdown `s`): no socket, no retries.
        /// `needsFreshToken` is kept for the next socket (see `connecting`).
        case offline(needsFreshToken: Bool)
        /// Opened and online without a socket: the loop waits out the backoff, gets a fresh token first when
        /// `needsFreshToken` (the server revoked or refused the last one), and connects.
        case connecting(needsFreshToken: Bool)
        /// A socket is up and the server's handshake has not come: nothing is sent on it yet.
        case handshaking(Session)
        /// The handshake came: the connection's state was restored on the socket, and calls go out at once.
        case connected(Session)
        /// The socket is being dropped (broken framing, a fatal server error): its frames are ignored and nothing more
        /// is written on it. `afterHandshake`: it had connected (calls made meanwhile count as sent, and are re-sent on
        /// the next socket; its end is reported as `.disconnected`).
        case abandoned(Session, afterHandshake: Bool)
        /// Ended for good (`close()`, or a server URL that cannot be used).
        case closed

        /// What the connection does after a transition.
        enum Effect {
            /// Nothing.
            case none
            /// Start the loop that connects and retries (the socket, if any, was already ended by an earlier
            /// transition).
            case startLoop
            /// Stop the loop, and end `ending` (the socket there was, if any).
            case stopLoop(ending: EndedSocket?)
            /// Stop the loop, end `ending` (if any), and start the loop again at once.
            case restartLoop(ending: EndedSocket?)
        }

        /// A socket the connection no longer uses: its outbox is to be finished, and its end reported when it had
        /// connected.
        struct EndedSocket {
            let session: Session
            let wasConnected: Bool
        }

        /// Whether `open()` was called and `close()` was not.
        var isOpen: Bool {
            switch self {
            case .idle, .closed: false
            case .offline, .connecting, .handshaking, .connected, .abandoned: true
            }
        }

        /// Whether the connection is meant to be online (what `setOnline` last said, or the server's shutdown).
        var isOnline: Bool {
            switch self {
            case .idle(let online): online
            case .offline, .closed: false
            case .connecting, .handshaking, .connected, .abandoned: true
            }
        }

        /// Whether the loop should be connecting: opened and online.
        var isRunning: Bool { isOpen && isOnline }

        /// The handshake came on the current socket (a socket being dropped after it still counts: what is sent now is
        /// dropped with it, and goes out again on the next one).
        var isConnected: Bool {
            switch self {
            case .connected, .abandoned(_, afterHandshake: true): true
            default: false
            }
        }

        /// The current socket, also one being dropped.
        var session: Session? {
            switch self {
            case .handshaking(let session), .connected(let session), .abandoned(let session, _): session
            default: nil
            }
        }

        /// The current socket if it is not being dropped: frames are read from it and written to it.
        var liveSession: Session? {
            switch self {
            case .handshaking(let session), .connected(let session): session
            default: nil
            }
        }

        private var needsFreshToken: Bool {
            switch self {
            case .offline(let needs), .connecting(let needs): needs
            default: false
            }
        }

        // MARK: Transitions

        /// `open()`: connects when online. Only the first call counts.
        mutating func open() -> Effect {
            guard case .idle(let online) = self else { return .none }
            if online {
                self = .connecting(needsFreshToken: false)
                return .startLoop
            }
            self = .offline(needsFreshToken: false)
            return .none
        }

        /// Whether the connection ended for good.
        var isClosed: Bool {
            if case .closed = self { return true }
            return false
        }

        /// The current socket as it ends now (nil: none).
        private var ending: EndedSocket? {
            session.map { EndedSocket(session: $0, wasConnected: isConnected) }
        }

        /// `close()`, or an unusable server URL: ends for good.
        mutating func close() -> Effect {
            let ending = self.ending
            self = .closed
            return .stopLoop(ending: ending)
        }

        /// `setOnline(true)`: connects at once when opened.
        mutating func goOnline() -> Effect {
            switch self {
            case .idle:
                self = .idle(online: true)
                return .none
            case .offline(let needsFreshToken):
                self = .connecting(needsFreshToken: needsFreshToken)
                return .startLoop
            case .connecting, .handshaking, .connected, .abandoned, .closed:
                return .none
            }
        }

        /// `setOnline(false)`, or the server's shutdown (`s`): the loop stops and the socket closes.
        mutating func goOffline() -> Effect {
            switch self {
            case .idle:
                self = .idle(online: false)
                return .none
            case .connecting, .handshaking, .connected, .abandoned:
                let ending = self.ending
                self = .offline(needsFreshToken: needsFreshToken)
                return .stopLoop(ending: ending)
            case .offline, .closed:
                return .none
            }
        }

        /// The server reset the connection (`r`), or revoked or refused the token: the socket closes and a new one
        /// is connected at once. `refreshingToken`: that socket waits for a fresh token first.
        mutating func reconnect(refreshingToken: Bool) -> Effect {
            switch self {
            case .connecting, .handshaking, .connected, .abandoned:
                let ending = self.ending
                self = .connecting(needsFreshToken: needsFreshToken || refreshingToken)
                return .restartLoop(ending: ending)
            case .offline(let needsFreshToken):
                self = .offline(needsFreshToken: needsFreshToken || refreshingToken)
                return .none
            case .idle, .closed:
                return .none
            }
        }

        /// Before connecting: whether to get a fresh token first (it is then no longer needed).
        mutating func takeFreshTokenNeed() -> Bool {
            guard case .connecting(true) = self else { return false }
            self = .connecting(needsFreshToken: false)
            return true
        }

        /// A socket came up (only while connecting); it waits for the server's handshake.
        mutating func socketOpened(_ session: Session) -> Bool {
            guard case .connecting = self else { return false }
            self = .handshaking(session)
            return true
        }

        /// The server's handshake came on the current socket: true the first time (the connection's state is then
        /// restored on it).
        mutating func handshakeReceived() -> Bool {
            guard case .handshaking(let session) = self else { return false }
            self = .connected(session)
            return true
        }

        /// Keeps the current socket's `session` (its frame assembler, when it last sent), if it is still that socket.
        mutating func update(_ session: Session) {
            switch self {
            case .handshaking(let current) where current.number == session.number: self = .handshaking(session)
            case .connected(let current) where current.number == session.number: self = .connected(session)
            case .abandoned(let current, let afterHandshake) where current.number == session.number:
                self = .abandoned(session, afterHandshake: afterHandshake)
            default: break
            }
        }

        /// Starts dropping the current socket: returns it (its outbox is to be finished), or nil when there is none or
        /// it is already being dropped.
        mutating func abandon() -> Session? {
            switch self {
            case .handshaking(let session):
                self = .abandoned(session, afterHandshake: false)
                return session
            case .connected(let session):
                self = .abandoned(session, afterHandshake: true)
                return session
            default:
                return nil
            }
        }

        /// Socket `number` closed: the loop connects again. Returns the socket if it was the current one (once).
        mutating func socketEnded(_ number: Int) -> EndedSocket? {
            guard let ending, ending.session.number == number else { return nil }
            self = .connecting(needsFreshToken: false)
            return ending
        }
    }
}
