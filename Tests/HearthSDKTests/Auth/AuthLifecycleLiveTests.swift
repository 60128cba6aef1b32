import Foundation
import HearthCore
import Synchronization
import Testing

@testable import Hearth
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Admin calls on the auth server (`Bearer owner`).
func adminAuthCall(_ live: LiveHearth, _ method: String, _ body: [String: Any]) async throws -> (Int, [String: Any]) {
    let url = live.url.appendingPathComponent("identitytoolkit.googleapis.com/v1/projects/demo/\(method)")
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    request.setValue("Bearer owner", forHTTPHeaderField: "Authorization")
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = try JSONSerialization.data(withJSONObject: body)
    let (data, response) = try await URLSession.shared.data(for: request)
    let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, json)
}

/// Collects a stream's elements in the background.
final class Collected<Element: Sendable>: Sendable {
    let items = Mutex<[Element]>([])
    let ended = Mutex(false)
    var all: [Element] { items.withLock { $0 } }
    var isEnded: Bool { ended.withLock { $0 } }
}

@Suite("Auth beyond the basic flows (live)")
struct AuthLifecycleLiveTests {
    @Test func linkingAnEmailOfAnotherAccountIsATypedErrorAndKeepsTheAnonymousUser() async throws {
        try await withAuthStorageServer { live in
            let owner = live.auth()
            try await owner.signUp(email: "taken@example.com", password: "secret12")
            let auth = live.auth()
            let anonymous = try await auth.signInAnonymously()
            let error = await #expect(throws: AuthError.self) { try await auth.link(email: "taken@example.com", password: "other-secret") }
            #expect(error?.code == .emailAlreadyInUse)
            #expect(auth.currentUser?.uid == anonymous.uid)
            #expect(auth.currentUser?.isAnonymous == true)
            // The anonymous session still works.
            #expect(try await auth.reload().uid == anonymous.uid)
        }
    }

    @Test func authStateChangesEmitOncePerChangeAndEndWhenCancelled() async throws {
        try await withAuthStorageServer { live in
            let auth = live.auth()
            let collected = Collected<User?>()
            let consumer = Task {
                for await user in auth.authStateChanges { collected.items.withLock { $0.append(user) } }
                collected.ended.withLock { $0 = true }
            }
            await expectEventually { collected.all.count == 1 }
            let anonymous = try await auth.signInAnonymously()
            await expectEventually { collected.all.count == 2 }
            // A token refresh is not an auth-state change.
            live.serverClock.advance(by: 5)
            _ = try await auth.idToken(forceRefresh: true)
            // One event for the profile change.
            _ = try await auth.updateProfile(displayName: "Zed")
            await expectEventually { collected.all.count >= 3 }
            // Reloading an unchanged user is not a change either.
            _ = try await auth.reload()
            try auth.signOut()
            await expectEventually { collected.all.count >= 4 }
            try await Task.sleep(for: .milliseconds(300))  // let any duplicate arrive before counting
            let seen = collected.all
            #expect(seen.count == 4, "events: \(seen.map { $0.map { "\($0.uid)/\($0.displayName ?? "-")" } ?? "nil" })")
            #expect(seen.first == .some(nil))
            #expect(seen.dropFirst().first??.uid == anonymous.uid)
            #expect(seen.last == .some(nil))

            consumer.cancel()
            await expectEventually { collected.isEnded }
            await expectEventually { auth.state.withLock { $0.userObservers.isEmpty } }
        }
    }

    @Test func disabledUserIsSignedOutAtTheNextRefreshWithATypedError() async throws {
        try await withAuthStorageServer { live in
            let auth = live.auth()
            let user = try await auth.signUp(email: "dis@example.com", password: "secret12")
            let (status, _) = try await adminAuthCall(live, "accounts:update", ["localId": user.uid, "disableUser": true])
            #expect(status == 200)
            var states = auth.authStateChanges.makeAsyncIterator()
            #expect(await states.next()??.uid == user.uid)
            live.serverClock.advance(by: 5)
            let error = await #expect(throws: AuthError.self) { try await auth.idToken(forceRefresh: true) }
            #expect(error?.code == .userDisabled)
            #expect(auth.currentUser == nil)
            #expect(await states.next() == .some(nil))
            let again = await #expect(throws: AuthError.self) { try await auth.signIn(email: "dis@example.com", password: "secret12") }
            #expect(again?.code == .userDisabled)
        }
    }

    @Test func deletedUserIsSignedOutAtTheNextRefresh() async throws {
        try await withAuthStorageServer { live in
            let auth = live.auth()
            let user = try await auth.signInAnonymously()
            let (status, _) = try await adminAuthCall(live, "accounts:delete", ["localId": user.uid])
            #expect(status == 200)
            live.serverClock.advance(by: 5)
            let error = await #expect(throws: AuthError.self) { try await auth.idToken(forceRefresh: true) }
            #expect(error?.code == .userNotFound || error?.code == .invalidRefreshToken || error?.code == .userTokenExpired)
            #expect(auth.currentUser == nil)
        }
    }

    @Test func twoAppsSideBySideAreIsolated() async throws {
        try await withAuthStorageServer { live in
            let rest = AdminREST(port: live.port)
            try await rest.put(".settings/rules", #"{"rules":{"users":{"$uid":{".read":"auth.uid === $uid",".write":"auth.uid === $uid"}}}}"#)
            let folder = temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let alice = HearthApp(name: "alice", options: live.options(persistenceDirectory: folder))
            let bob = HearthApp(name: "bob", options: live.options(persistenceDirectory: folder))
            let aliceUser = try await alice.auth.signUp(email: "alice@example.com", password: "secret12")
            #expect(bob.auth.currentUser == nil)
            let bobUser = try await bob.auth.signInAnonymously()
            #expect(alice.auth.currentUser?.uid == aliceUser.uid)
            #expect(bobUser.uid != aliceUser.uid)
            try await alice.database.reference("users/\(aliceUser.uid)/n").setValue(1)
            let denied = await withTimeoutResult(10) { try await bob.database.reference("users/\(aliceUser.uid)/n").setValue(2) }
            #expect(denied.contains("permission_denied"), "bob writing alice's data: \(denied)")
            try bob.auth.signOut()
            #expect(alice.auth.currentUser?.uid == aliceUser.uid)
            await alice.close()
            await bob.close()
            // Relaunch: each app gets its own saved session back.
            let alice2 = HearthApp(name: "alice", options: live.options(persistenceDirectory: folder))
            let bob2 = HearthApp(name: "bob", options: live.options(persistenceDirectory: folder))
            #expect(alice2.auth.currentUser?.uid == aliceUser.uid)
            #expect(bob2.auth.currentUser == nil)
            await alice2.close()
            await bob2.close()
        }
    }

    @Test func persistedSessionAuthenticatesTheRelaunchedAppsDatabase() async throws {
        try await withAuthStorageServer { live in
            let rest = AdminREST(port: live.port)
            try await rest.put(".settings/rules", #"{"rules":{"users":{"$uid":{".read":"auth.uid === $uid",".write":"auth.uid === $uid"}}}}"#)
            let folder = temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let first = HearthApp(name: "p", options: live.options(persistenceDirectory: folder))
            let user = try await first.auth.signUp(email: "per@example.com", password: "secret12")
            try await first.database.reference("users/\(user.uid)/v").setValue(1)
            await first.close()

            let second = HearthApp(name: "p", options: live.options(persistenceDirectory: folder))
            #expect(second.auth.currentUser?.uid == user.uid)
            // The very first thing the relaunched app does is a write that needs the identity.
            let write = await withTimeoutResult(10) { try await second.database.reference("users/\(user.uid)/v").setValue(2) }
            #expect(write == "ok", "\(write)")
            #expect(try await rest.get("users/\(user.uid)/v") == .int(2))
            let read = try await withTimeout(10) { try await second.database.reference("users/\(user.uid)/v").getSnapshot() }
            #expect(read.value == .int(2))
            await second.close()
        }
    }

    @Test func signOutMakesTheDatabaseConnectionUnauthenticated() async throws {
        try await withAuthStorageServer { live in
            let rest = AdminREST(port: live.port)
            try await rest.put(".settings/rules", #"{"rules":{"private":{".read":"auth != null",".write":"auth != null"}}}"#)
            let app = HearthApp(name: "so", options: live.options())
            _ = try await app.auth.signInAnonymously()
            try await app.database.reference("private/a").setValue(1)
            try app.auth.signOut()
            let write = await withTimeoutResult(10) { try await app.database.reference("private/b").setValue(2) }
            #expect(write.contains("permission_denied"), "\(write)")
            #expect(try await rest.get("private/b") == .null)
            await app.close()
        }
    }
}
