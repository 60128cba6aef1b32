#if canImport(FoundationNetworking)
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif
import HearthWire
import Synchronization

/// Accounts and sessions on a Hearth server (Identity Toolkit v1 + Secure Token, as Firebase
/// Auth speaks them).
///
/// One `Auth` per app. It keeps the signed-in user and its tokens, refreshes the ID token before
/// it expires, and, with ``HearthOptions/persistenceDirectory``, keeps the session across
/// launches.
///
/// ```swift
/// let auth = Auth(options: options)
/// try await auth.signIn(email: "ann@example.com", password: "correct horse")
/// for await user in auth.authStateChanges {
///     print(user?.uid ?? "signed out")
/// }
/// ```
///
/// Other parts of the SDK use ``idToken(forceRefresh:)`` for each request and
/// ``tokenChanges`` to re-authenticate long-lived connections.
public final class Auth: Sendable {
    /// The options this `Auth` was made with: which server and project it signs in to, and where the session is kept.
    public let options: HearthOptions
    let client: IdentityToolkitClient
    let file: SessionFile?
    let clock: @Sendable () -> Date
    /// ID tokens are refreshed when they expire within this many seconds.
    static let refreshMargin: TimeInterval = 5 * 60

    struct State {
        var session: AuthSession?
        /// Bumped by every sign-in and sign-out: work started for an older session must not
        /// touch the current one (a refresh that ends after a sign-out does not sign back in).
        var epoch: UInt64 = 0
        var refresh: Refresh?
        var nextID: UInt64 = 0
        var userObservers: [UInt64: AsyncStream<User?>.Continuation] = [:]
        var tokenObservers: [UInt64: AsyncStream<String?>.Continuation] = [:]

        mutating func makeID() -> UInt64 {
            defer { nextID += 1 }
            return nextID
        }
    }

    /// The refresh in flight: every caller that needs a new token while it runs awaits this one.
    struct Refresh {
        var id: UInt64
        var epoch: UInt64
        var task: Task<String, any Error>
    }

    let state: Mutex<State>

    /// An `Auth` for `options`; restores the saved session when ``HearthOptions/persistenceDirectory`` is set.
    /// - Parameter session: the `URLSession` requests go through.
    public convenience init(options: HearthOptions, session: URLSession = .shared) {
        self.init(options: options, session: session, clock: { Date() })
    }

    /// - Parameter clock: this device's time (tests move it to reach token expiry).
    init(options: HearthOptions, session: URLSession, clock: @escaping @Sendable () -> Date) {
        self.options = options
        self.client = IdentityToolkitClient(serverURL: options.serverURL, apiKey: options.apiKey, session: session)
        self.clock = clock
        let file = options.persistenceDirectory.map { SessionFile(directory: $0, projectID: options.projectID) }
        self.file = file
        self.state = Mutex(State(session: file?.load()))
    }

    deinit {
        // Observers' loops end with the Auth they observe.
        state.withLock { s in
            for observer in s.userObservers.values { observer.finish() }
            for observer in s.tokenObservers.values { observer.finish() }
        }
    }

    // MARK: State

    /// The signed-in user, or nil.
    public var currentUser: User? { state.withLock { $0.session?.user } }

    /// The signed-in user now, then after every change: sign-in, sign-out, linking, profile and
    /// email changes, ``reload()``. Each access makes a new stream; it ends when the consumer stops.
    public var authStateChanges: AsyncStream<User?> { observe(\.userObservers) { $0?.user } }

    /// The current ID token (nil when signed out), then every new one: sign-ins, refreshes,
    /// and nil at sign-out. A realtime connection re-authenticates with each value.
    public var tokenChanges: AsyncStream<String?> { observe(\.tokenObservers) { $0?.idToken } }

    /// The signed-in user's ID token as held now (not refreshed; nil when signed out).
    var currentIDToken: String? { state.withLock { $0.session?.idToken } }

    /// A stream registered in `observers` that starts with `current(session)`.
    private func observe<Value: Sendable>(
        _ observers: any WritableKeyPath<State, [UInt64: AsyncStream<Value>.Continuation]> & Sendable,
        current: (AuthSession?) -> Value
    ) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream<Value>.makeStream()
        let id = state.withLock { s in
            let id = s.makeID()
            s[keyPath: observers][id] = continuation
            continuation.yield(current(s.session))
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0[keyPath: observers].removeValue(forKey: id) }
        }
        return stream
    }

    /// Makes `new` the session, tells observers what changed and saves it (best effort: a
    /// session that cannot be saved still works until the app quits).
    func apply(_ new: AuthSession?, to s: inout State) {
        let old = s.session
        s.session = new
        if old?.user != new?.user {
            for observer in s.userObservers.values { observer.yield(new?.user) }
        }
        if old?.idToken != new?.idToken {
            for observer in s.tokenObservers.values { observer.yield(new?.idToken) }
        }
        if let file, let new, new != old { try? file.save(new) }
    }

    /// Starts a new session (sign-in): older work in flight no longer applies.
    func begin(_ session: AuthSession) {
        state.withLock { s in
            s.epoch += 1
            s.refresh = nil
            apply(session, to: &s)
        }
    }

    /// Updates the session started in `epoch`; fails with `notSignedIn` if it has ended since.
    func amend(epoch: UInt64, _ change: (inout AuthSession) -> Void) throws {
        try state.withLock { s in
            guard s.epoch == epoch, var session = s.session else { throw AuthError.notSignedIn }
            change(&session)
            apply(session, to: &s)
        }
    }

    /// Ends the session of `epoch` after its `refreshToken` was refused, unless the session has newer tokens
    /// by now (returns their ID token then); one check under the lock, so new tokens cannot slip in between.
    private func endSession(epoch: UInt64, unlessRefreshedSince refreshToken: String) -> String? {
        state.withLock { s in
            guard s.epoch == epoch, let session = s.session else { return nil }
            if session.refreshToken != refreshToken { return session.idToken }
            try? endHoldingLock(&s)
            return nil
        }
    }

    /// Forgets the session and deletes the saved one.
    /// - Parameter epoch: only if the session of this epoch is still the current one.
    func end(ifEpoch epoch: UInt64? = nil) throws {
        try state.withLock { s in
            if let epoch, epoch != s.epoch { return }
            try endHoldingLock(&s)
        }
    }

    private func endHoldingLock(_ s: inout State) throws {
        s.epoch += 1
        s.refresh = nil
        apply(nil, to: &s)
        try file?.remove()
    }

    /// Signs out: the user and tokens are forgotten here and the saved session is deleted.
    /// Throws only if the saved session could not be deleted.
    public func signOut() throws {
        try end()
    }

    // MARK: Tokens

    /// The user's ID token, refreshed first when it expires within five minutes (or always with
    /// `forceRefresh`); nil when signed out. Concurrent callers share one refresh; a forced one
    /// never takes a token from a refresh that began before it was called (one minted before custom
    /// claims the caller knows changed, say).
    ///
    /// Throws ``AuthError`` if the refresh fails. When the server says the session is over
    /// (user deleted or disabled, tokens revoked) the user is signed out.
    public func idToken(forceRefresh: Bool = false) async throws -> String? {
        if forceRefresh, let earlier = state.withLock({ s in s.refresh.flatMap { $0.epoch == s.epoch ? $0.task : nil } }) {
            // Let it land first (its answer replaces the session's tokens; it leaves the state before its waiters
            // resume), then refresh again or join a refresh that began since.
            _ = try? await earlier.value
        }
        enum Next {
            case token(String?)
            case wait(Task<String, any Error>)
        }
        let next: Next = state.withLock { s in
            guard let session = s.session else { return .token(nil) }
            if !forceRefresh, session.expiresAt.timeIntervalSince(clock()) > Self.refreshMargin { return .token(session.idToken) }
            if let running = s.refresh, running.epoch == s.epoch { return .wait(running.task) }
            let (id, epoch, refreshToken) = (s.makeID(), s.epoch, session.refreshToken)
            // Held in the state so concurrent callers join it; it ends by itself (one request)
            // and removes itself from the state.
            let task = Task { try await self.refresh(refreshToken, epoch: epoch, id: id) }
            s.refresh = Refresh(id: id, epoch: epoch, task: task)
            return .wait(task)
        }
        switch next {
        case .token(let token): return token
        case .wait(let task): return try await task.value
        }
    }

    /// Exchanges `refreshToken` for a new ID token. Tokens the session got meanwhile from a password
    /// change or a re-authentication are newer than this answer: they stay, and so does a session
    /// whose old refresh token the server has revoked since.
    func refresh(_ refreshToken: String, epoch: UInt64, id: UInt64) async throws -> String {
        defer { state.withLock { s in if s.refresh?.id == id { s.refresh = nil } } }
        do {
            let answer = try await client.refresh(refreshToken)
            let expiresAt = clock().addingTimeInterval(TimeInterval(answer.expiresIn) ?? 3600)
            var newer: String?
            try amend(epoch: epoch) { session in
                guard session.refreshToken == refreshToken else { return newer = session.idToken }
                session.idToken = answer.idToken
                session.refreshToken = answer.refreshToken
                session.expiresAt = expiresAt
            }
            return newer ?? answer.idToken
        } catch let error as AuthError where error.endsSession {
            if let newer = endSession(epoch: epoch, unlessRefreshedSince: refreshToken) { return newer }
            throw error
        }
    }

    /// A usable ID token of the current session and that session's epoch.
    func currentToken() async throws -> (token: String, epoch: UInt64) {
        let epoch = state.withLock { $0.epoch }
        guard let token = try await idToken() else { throw AuthError.notSignedIn }
        return (token, epoch)
    }

    /// Runs a request that needs the user's ID token. If the server refuses the token (it
    /// expired by the server's clock, or was revoked) the token is refreshed once and the
    /// request repeated; a session the server ended is signed out.
    func withToken<R: Sendable>(_ operation: (String) async throws -> R) async throws -> (result: R, epoch: UInt64) {
        let (token, epoch) = try await currentToken()
        do {
            return (try await operation(token), epoch)
        } catch let error as AuthError where error.code == .invalidUserToken || error.code == .userTokenExpired {
            guard let fresh = try await idToken(forceRefresh: true) else { throw AuthError.notSignedIn }
            do {
                return (try await operation(fresh), epoch)
            } catch let error as AuthError where error.endsSession {
                try? end(ifEpoch: epoch)
                throw error
            }
        } catch let error as AuthError where error.endsSession {
            try? end(ifEpoch: epoch)
            throw error
        }
    }
}
