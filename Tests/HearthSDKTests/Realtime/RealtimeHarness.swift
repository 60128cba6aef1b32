import Foundation
import HearthCore
import Synchronization
import Testing

@testable import Hearth

/// A `PersistentConnection` wired to a fake transport and a manual clock.
struct RealtimeHarness {
    let connection: PersistentConnection
    let factory: FakeTransportFactory
    let clock: ManualRealtimeClock
    private var sockets: AsyncStream<FakeSocket>.Iterator
    private var events: AsyncStream<RealtimeEvent>.Iterator

    /// - Parameter random: what the jitter's random source returns (0 = delays exactly as configured).
    init(
        serverURL: String = "http://127.0.0.1:9000", namespace: String = "demo", token: String? = nil, random: Double = 0,
        tokens: TokenHolder? = nil,
        configure: (inout PersistentConnection.Configuration) -> Void = { _ in },
        refresher: (@Sendable () async -> String?)? = nil
    ) throws {
        var configuration = PersistentConnection.Configuration()
        configure(&configuration)
        let factory = FakeTransportFactory()
        let clock = ManualRealtimeClock()
        connection = PersistentConnection(
            serverURL: try #require(URL(string: serverURL)), namespace: namespace, authToken: token, tokenSource: tokens.map(\.source),
            tokenRefresher: refresher, configuration: configuration,
            transportFactory: factory, clock: clock, random: { random })
        self.factory = factory
        self.clock = clock
        // Calls waiting for the server cannot be cancelled, so a failing test would hang: a
        // watchdog closes a connection still open after 20 s, which fails whatever waits.
        Task { [connection] in
            try? await Task.sleep(for: .seconds(20))
            guard await !connection.state.isClosed else { return }
            Issue.record("the test did not finish within 20 seconds")
            await connection.close()
        }
        sockets = factory.sockets.makeAsyncIterator()
        events = connection.events.makeAsyncIterator()
    }

    /// The next socket the connection opens.
    mutating func nextSocket() async throws -> FakeSocket {
        try #require(await sockets.next())
    }

    /// The next event (nil once the connection closed); listen acknowledgements only when asked for.
    mutating func nextEvent(acknowledgements: Bool = false) async -> RealtimeEvent? {
        while let event = await events.next() {
            if case .listenAcknowledged = event, !acknowledgements { continue }
            return event
        }
        return nil
    }

    /// Takes the next socket, plays the server's handshake and checks the connected event.
    mutating func connect(session: String = "s1", serverAhead offset: Int64 = 0) async throws -> (FakeSocket, ClientMessages) {
        let socket = try await nextSocket()
        let client = ClientMessages(socket)
        socket.deliverHandshake(timestamp: clock.millisecondsSince1970 + offset, session: session)
        let event = await nextEvent()
        #expect(event == .connected(serverTimeOffset: offset))
        return (socket, client)
    }
}

/// Parses JSON text (test literals).
func parsedJSON(_ text: String) throws -> JSONValue {
    try JSONValue.parse(text)
}

/// The app's current ID token, as a connection's token source reads it.
final class TokenHolder: Sendable {
    private let value = Mutex<String?>(nil)
    var token: String? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }

    var source: @Sendable () -> String? { { self.token } }
}

/// A flag one task sets and another reads.
final class Flag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
