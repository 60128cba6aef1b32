import Foundation
@testable import Hearth
import Testing

/// Tokens, refresh, observation and the saved session against a live server.
@Suite("Auth session (live)")
struct AuthSessionTests {
    @Test func forcedRefreshGivesANewTokenAndTellsTokenObservers() async throws {
        try await withAuthStorageServer { server in
            let auth = server.auth()
            let user = try await auth.signInAnonymously()
            let first = try #require(try await auth.idToken())
            var tokens = auth.tokenChanges.makeAsyncIterator()
            #expect(await tokens.next() == .some(first))

            // Tokens issued in the same second would be identical: move the server on.
            server.serverClock.advance(by: 5)
            let second = try #require(try await auth.idToken(forceRefresh: true))
            #expect(second != first)
            #expect(await tokens.next() == .some(second))
            #expect(decodeClaims(second)?["user_id"] as? String == user.uid)
            #expect(try await auth.idToken() == second)

            try auth.signOut()
            #expect(await tokens.next() == .some(nil))
        }
    }

    @Test func tokenIsRefreshedByItselfWithinFiveMinutesOfExpiry() async throws {
        try await withAuthStorageServer { server in
            let device = ShiftedClock()
            let auth = server.auth(clock: device)
            try await auth.signUp(email: "eve@example.com", password: "secret12")
            let first = try #require(try await auth.idToken())

            device.advance(by: 50 * 60)  // 10 minutes left: still good
            #expect(try await auth.idToken() == first)

            device.advance(by: 6 * 60)  // 4 minutes left: refreshed
            server.serverClock.advance(by: 56 * 60)
            let second = try #require(try await auth.idToken())
            #expect(second != first)
            let claims = try #require(decodeClaims(second))
            #expect(claims["email"] as? String == "eve@example.com")
            #expect(try await auth.idToken() == second)
        }
    }

    @Test func concurrentCallersShareOneRefresh() async throws {
        try await withAuthStorageServer { server in
            let auth = server.auth()
            try await auth.signInAnonymously()
            server.serverClock.advance(by: 5)
            let tokens = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<8 { group.addTask { try await auth.idToken(forceRefresh: true) } }
                var all: Set<String?> = []
                for try await token in group { all.insert(token) }
                return all
            }
            // Every caller got a token of the same (current) session.
            #expect(tokens.allSatisfy { $0 != nil })
            let current = try await auth.idToken()
            #expect(tokens.contains(current))
        }
    }

    @Test func authStateChangesStartWithTheCurrentUserAndFollowChanges() async throws {
        try await withAuthStorageServer { server in
            let auth = server.auth()
            var states = auth.authStateChanges.makeAsyncIterator()
            #expect(await states.next() == .some(nil))

            let anonymous = try await auth.signInAnonymously()
            #expect(await states.next() == .some(anonymous))

            let linked = try await auth.link(email: "fay@example.com", password: "secret12")
            let afterLink = await states.next()
            #expect(afterLink == .some(linked))
            #expect(afterLink??.uid == anonymous.uid)

            try auth.signOut()
            #expect(await states.next() == .some(nil))

            // A late subscriber starts with the state as it is now.
            try await auth.signIn(email: "fay@example.com", password: "secret12")
            var late = auth.authStateChanges.makeAsyncIterator()
            #expect(await late.next()??.email == "fay@example.com")
        }
    }

    @Test func savedSessionIsRestoredAndSignOutDeletesIt() async throws {
        try await withAuthStorageServer { server in
            let folder = temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let first = server.auth(persistenceDirectory: folder)
            let user = try await first.signUp(email: "gus@example.com", password: "secret12")

            let file = folder.appendingPathComponent("hearth-auth-demo.json")
            #expect(FileManager.default.fileExists(atPath: file.path))
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(!text.contains("secret12"))

            // A new Auth on the same folder (the next launch) is signed in as the same user.
            let second = server.auth(persistenceDirectory: folder)
            #expect(second.currentUser == user)
            var states = second.authStateChanges.makeAsyncIterator()
            #expect(await states.next()??.uid == user.uid)
            // Its saved refresh token still works.
            server.serverClock.advance(by: 5)
            let token = try #require(try await second.idToken(forceRefresh: true))
            #expect(decodeClaims(token)?["user_id"] as? String == user.uid)

            try second.signOut()
            #expect(!FileManager.default.fileExists(atPath: file.path))
            #expect(server.auth(persistenceDirectory: folder).currentUser == nil)
        }
    }

    @Test func damagedSessionFileMeansSignedOut() async throws {
        try await withAuthStorageServer { server in
            let folder = temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            try Data("{not json".utf8).write(to: folder.appendingPathComponent("hearth-auth-demo.json"))
            let auth = server.auth(persistenceDirectory: folder)
            #expect(auth.currentUser == nil)
            // Signing in replaces the damaged file with a readable one.
            let user = try await auth.signInAnonymously()
            #expect(server.auth(persistenceDirectory: folder).currentUser?.uid == user.uid)
        }
    }
}
