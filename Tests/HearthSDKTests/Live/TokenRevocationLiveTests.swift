import Foundation
import HearthCore
import Synchronization
import Testing

@testable import Hearth

@Suite("The realtime connection after the server stops accepting the ID token (live)")
struct TokenRevocationLiveTests {
    static let rules = #"{"rules":{"private":{".read":"auth != null",".write":"auth != null"}}}"#

    /// Signs in while the server's auth clock runs `secondsShort` short of an hour behind, so the
    /// ID token's `exp` (by wall clock) is a few seconds away while the SDK (which counts
    /// `expiresIn` from receipt) believes it is good for an hour; then puts the clock back, so a
    /// refreshed token is good for an hour.
    static func signInWithShortLivedToken(_ app: HearthApp, live: LiveHearth, lifetime: TimeInterval) async throws -> String {
        live.serverClock.advance(by: -(3600 - lifetime))
        _ = try await app.auth.signInAnonymously()
        live.serverClock.advance(by: 3600 - lifetime)
        return try #require(app.auth.currentIDToken)
    }

    /// S2: the server sends `ac` (expired_token) on an open connection. Firebase drops the token,
    /// fetches a fresh one (forceRefresh), authenticates again and re-listens: the observer keeps
    /// working and writes that need auth still succeed.
    @Test func listenerSurvivesAuthRevokedByRefreshingTheToken() async throws {
        try await withAuthStorageServer { live in
            let rest = AdminREST(port: live.port)
            try await rest.put(".settings/rules", Self.rules)
            let app = HearthApp(name: "ac", options: live.options())
            defer { Task { await app.close() } }
            let original = try await Self.signInWithShortLivedToken(app, live: live, lifetime: 6)
            let ref = app.database.reference("private/x")
            try await ref.setValue(1)
            let recorder = EventRecorder(ref.snapshots())
            await expectEventually { recorder.all.last?.value == .int(1) }

            // The token expires on the server (wall clock) about now + 6 s: the server sends `ac`.
            try await Task.sleep(for: .seconds(9))
            try await rest.put("private/x", "2")
            let followed = await eventually(timeout: .seconds(15)) {
                let last = recorder.all.last?.value
                return last == .int(2)
            }
            #expect(followed, "observer after ac: error=\(String(describing: recorder.error)), values=\(recorder.all.map(\.value))")
            #expect(recorder.error == nil, "values seen: \(recorder.all.map(\.value))")
            #expect(app.auth.currentIDToken != original, "the SDK should have fetched a new ID token")
            // A write that needs auth still goes through.
            let write = await withTimeoutResult(15) { try await app.database.reference("private/y").setValue(3) }
            #expect(write == "ok", "write after ac: \(write)")
        }
    }

    /// S2 (variant): the token is already expired by the server's clock when a new socket opens, so
    /// the server refuses the `auth` (expired_token). Firebase force-refreshes the token and
    /// authenticates again before re-listening.
    @Test func refusedTokenOnReconnectIsRefreshed() async throws {
        try await withAuthStorageServer { live in
            let rest = AdminREST(port: live.port)
            try await rest.put(".settings/rules", Self.rules)
            let app = HearthApp(name: "refused", options: live.options())
            defer { Task { await app.close() } }
            _ = try await Self.signInWithShortLivedToken(app, live: live, lifetime: 4)
            try await app.database.reference("private/x").setValue(1)
            await app.database.goOffline()
            try await Task.sleep(for: .seconds(6))  // the token is now expired by the server's clock
            await app.database.goOnline()
            let write = await withTimeoutResult(15) { try await app.database.reference("private/z").setValue(5) }
            #expect(write == "ok", "write after reconnect with an expired token: \(write)")
            #expect(try await rest.get("private/z") == .int(5))
        }
    }
}

/// "ok", or a description of the error / timeout.
func withTimeoutResult(_ seconds: Double, _ body: @escaping @Sendable () async throws -> Void) async -> String {
    do {
        try await withTimeout(seconds, body)
        return "ok"
    } catch {
        return "\(error)"
    }
}
