import Testing

@testable import Hearth

/// Every transition of `PersistentConnection`'s state, alone: opening, going offline and online, sockets coming up,
/// handshakes, dropped sockets, reconnects (with and without a token to refresh first) and closing, including the
/// events that come in a state where they mean nothing.
@Suite struct ConnectionStateTests {
    typealias State = PersistentConnection.ConnectionState

    static func socket(_ number: Int) -> PersistentConnection.Session {
        PersistentConnection.Session(number: number, outbox: AsyncStream.makeStream(of: String.self).continuation, lastSentAt: .zero)
    }

    /// A state's case, without its associated values but the flags and the socket's number.
    static func name(_ state: State) -> String {
        switch state {
        case .idle(let online): "idle(online: \(online))"
        case .offline(let fresh): "offline(fresh: \(fresh))"
        case .connecting(let fresh): "connecting(fresh: \(fresh))"
        case .handshaking(let s): "handshaking(\(s.number))"
        case .connected(let s): "connected(\(s.number))"
        case .abandoned(let s, let after): "abandoned(\(s.number), afterHandshake: \(after))"
        case .closed: "closed"
        }
    }

    /// An effect, with the socket it ends (its number, and whether it had connected).
    static func name(_ effect: State.Effect) -> String {
        func ending(_ e: State.EndedSocket?) -> String { e.map { "\($0.session.number)\($0.wasConnected ? " connected" : "")" } ?? "-" }
        switch effect {
        case .none: return "none"
        case .startLoop: return "start"
        case .stopLoop(let e): return "stop \(ending(e))"
        case .restartLoop(let e): return "restart \(ending(e))"
        }
    }

    /// Opened, online, with socket 7 connected.
    static func connected() -> State {
        var state = State.idle(online: true)
        _ = state.open()
        let r1 = state.socketOpened(socket(7))
        #expect(r1)
        let r2 = state.handshakeReceived()
        #expect(r2)
        return state
    }

    @Test func openingConnectsOnlyWhenOnline() {
        var state = State.idle(online: true)
        #expect(!state.isOpen && state.isOnline && !state.isRunning)
        let r3 = state.open()
        #expect(Self.name(r3) == "start")
        #expect(Self.name(state) == "connecting(fresh: false)")
        #expect(state.isRunning)
        let r4 = state.open()
        #expect(Self.name(r4) == "none")

        var offline = State.idle(online: true)
        let r5 = offline.goOffline()
        #expect(Self.name(r5) == "none")
        #expect(Self.name(offline) == "idle(online: false)")
        let r6 = offline.open()
        #expect(Self.name(r6) == "none")
        #expect(Self.name(offline) == "offline(fresh: false)")
        #expect(offline.isOpen && !offline.isRunning)
        let r7 = offline.goOnline()
        #expect(Self.name(r7) == "start")
        #expect(Self.name(offline) == "connecting(fresh: false)")
    }

    @Test func aSocketSendsOnlyAfterTheHandshake() {
        var state = State.idle(online: true)
        _ = state.open()
        let r8 = state.socketOpened(Self.socket(1))
        #expect(r8)
        #expect(Self.name(state) == "handshaking(1)")
        #expect(!state.isConnected)
        #expect(state.liveSession?.number == 1)
        let r9 = state.handshakeReceived()
        #expect(r9)
        #expect(Self.name(state) == "connected(1)")
        #expect(state.isConnected)
        // A second handshake on the same socket restores nothing again.
        let r10 = state.handshakeReceived()
        #expect(!r10)
        let r11 = state.socketOpened(Self.socket(2))
        #expect(!r11)
        #expect(Self.name(state) == "connected(1)")
    }

    @Test func aSocketEndsOnceAndOnlyByItsNumber() {
        var state = Self.connected()
        let r12 = state.socketEnded(8)
        #expect(r12 == nil)
        let ended = state.socketEnded(7)
        #expect(ended?.session.number == 7)
        #expect(ended?.wasConnected == true)
        #expect(Self.name(state) == "connecting(fresh: false)")
        let r13 = state.socketEnded(7)
        #expect(r13 == nil)
        // One that ends before its handshake was never connected.
        _ = state.socketOpened(Self.socket(8))
        let r14 = state.socketEnded(8)
        #expect(r14?.wasConnected == false)
    }

    @Test func aDroppedSocketIsNotReadOrWrittenButStillCountsAsConnected() {
        var state = Self.connected()
        let r15 = state.abandon()
        #expect(r15?.number == 7)
        #expect(Self.name(state) == "abandoned(7, afterHandshake: true)")
        #expect(state.liveSession == nil)
        #expect(state.session?.number == 7)
        #expect(state.isConnected)
        let r16 = state.abandon()
        #expect(r16 == nil)
        let r17 = state.handshakeReceived()
        #expect(!r17)
        let r18 = state.socketEnded(7)
        #expect(r18?.wasConnected == true)

        var early = State.idle(online: true)
        _ = early.open()
        _ = early.socketOpened(Self.socket(1))
        _ = early.abandon()
        #expect(Self.name(early) == "abandoned(1, afterHandshake: false)")
        #expect(!early.isConnected)
        #expect(State.closed.session == nil)
    }

    @Test func goingOfflineEndsTheSocketAndOnlineConnectsAgain() {
        var state = Self.connected()
        let r19 = state.goOffline()
        #expect(Self.name(r19) == "stop 7 connected")
        #expect(Self.name(state) == "offline(fresh: false)")
        #expect(!state.isOnline && state.isOpen)
        let r20 = state.goOffline()
        #expect(Self.name(r20) == "none")
        let r21 = state.goOnline()
        #expect(Self.name(r21) == "start")
        let r22 = state.goOnline()
        #expect(Self.name(r22) == "none")
        #expect(Self.name(state) == "connecting(fresh: false)")
        let r23 = state.goOffline()
        #expect(Self.name(r23) == "stop -")
    }

    @Test func aReconnectForAFreshTokenKeepsThatNeedUntilTheNextConnect() {
        var state = Self.connected()
        let r24 = state.reconnect(refreshingToken: true)
        #expect(Self.name(r24) == "restart 7 connected")
        #expect(Self.name(state) == "connecting(fresh: true)")
        // Going offline first keeps the need for the socket after it.
        _ = state.goOffline()
        #expect(Self.name(state) == "offline(fresh: true)")
        _ = state.goOnline()
        #expect(Self.name(state) == "connecting(fresh: true)")
        let r25 = state.takeFreshTokenNeed()
        #expect(r25)
        let r26 = state.takeFreshTokenNeed()
        #expect(!r26)
        #expect(Self.name(state) == "connecting(fresh: false)")
        // A plain reset does not ask for one.
        _ = state.socketOpened(Self.socket(8))
        let r27 = state.reconnect(refreshingToken: false)
        #expect(Self.name(r27) == "restart 8")
        #expect(Self.name(state) == "connecting(fresh: false)")
    }

    @Test func reconnectsDoNothingWhileNotRunning() {
        var idle = State.idle(online: true)
        let r28 = idle.reconnect(refreshingToken: true)
        #expect(Self.name(r28) == "none")
        #expect(Self.name(idle) == "idle(online: true)")
        var closed = State.closed
        let r29 = closed.reconnect(refreshingToken: false)
        #expect(Self.name(r29) == "none")
        let r30 = closed.goOnline()
        #expect(Self.name(r30) == "none")
        let r31 = closed.goOffline()
        #expect(Self.name(r31) == "none")
        let r32 = closed.open()
        #expect(Self.name(r32) == "none")
        #expect(Self.name(closed) == "closed")
    }

    @Test func closingEndsEverythingForGood() {
        var state = Self.connected()
        let r33 = state.close()
        #expect(Self.name(r33) == "stop 7 connected")
        #expect(state.isClosed && !state.isOpen && !state.isOnline && !state.isRunning)
        let r34 = state.socketOpened(Self.socket(8))
        #expect(!r34)
        let r35 = state.socketEnded(7)
        #expect(r35 == nil)
        var idle = State.idle(online: false)
        let r36 = idle.close()
        #expect(Self.name(r36) == "stop -")
        #expect(idle.isClosed)
    }

    @Test func onlyTheCurrentSocketIsUpdated() {
        var state = Self.connected()
        var newer = Self.socket(7)
        newer.lastSentAt = .seconds(5)
        state.update(newer)
        #expect(state.session?.lastSentAt == .seconds(5))
        var other = Self.socket(9)
        other.lastSentAt = .seconds(9)
        state.update(other)
        #expect(state.session?.lastSentAt == .seconds(5))
        _ = state.abandon()
        newer.lastSentAt = .seconds(6)
        state.update(newer)
        #expect(Self.name(state) == "abandoned(7, afterHandshake: true)")
        #expect(state.session?.lastSentAt == .seconds(6))
    }
}
