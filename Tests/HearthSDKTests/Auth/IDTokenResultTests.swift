import Foundation
import HearthCore
import Synchronization
import Testing

@testable import Hearth

/// `idTokenResult`: the claims of the current ID token, custom claims an admin set among them (the loyalty app's
/// trial → signed → pro path shows the pro badge from a claim the rules check too).
@Suite("ID token result")
struct IDTokenResultTests {
    @Test func customClaimsAnAdminSetsReachTheClientWithTheNextToken() async throws {
        try await withAuthStorageServer { live in
            let auth = live.auth()
            let user = try await auth.signInAnonymously()
            let first = try #require(try await auth.idTokenResult())
            #expect(first.token == (try await auth.idToken()))
            #expect(first.signInProvider == "anonymous")
            #expect(first.claims["user_id"] == .string(user.uid))
            #expect(first.expirationDate.timeIntervalSince(first.issuedAtDate) == 3600)
            #expect(first.authDate <= first.issuedAtDate)
            #expect(try first.claim("pro", as: Bool.self) == nil)

            let (status, _) = try await adminAuthCall(
                live, "accounts:update", ["localId": user.uid, "customAttributes": #"{"pro":true,"level":3,"perks":["coins"]}"#])
            #expect(status == 200)
            let cached = try #require(try await auth.idTokenResult())
            #expect(cached.token == first.token, "the token in hand is used until it nears expiry")
            #expect(try cached.claim("pro", as: Bool.self) == nil)

            live.serverClock.advance(by: 2)  // a new iat, so a new token
            let fresh = try #require(try await auth.idTokenResult(forceRefresh: true))
            #expect(fresh.token != first.token)
            #expect(try fresh.claim("pro", as: Bool.self) == true)
            #expect(try fresh.claim("level", as: Int.self) == 3)
            #expect(try fresh.claim("perks", as: [String].self) == ["coins"])
            #expect(throws: DecodingError.self) { try fresh.claim("level", as: String.self) }
            #expect(fresh.authDate == first.authDate, "a refresh is not a sign-in")
            #expect(fresh.issuedAtDate > first.issuedAtDate)
            #expect(try await auth.idTokenResult() == fresh)

            try auth.signOut()
            #expect(try await auth.idTokenResult() == nil)
        }
    }

    @Test func aForcedRefreshDoesNotTakeTheTokenOfARefreshThatBeganBeforeIt() async throws {
        try await withAuthStorageServer { live in
            let auth = live.auth()
            let user = try await auth.signInAnonymously()
            // A refresh already on its way (the database's own, say), whose token predates the claim below. Like a
            // real one, it puts its token in the session and leaves the state when it ends.
            let stale = "a token minted before the claim"
            let release = AsyncStream<Void>.makeStream()
            let (id, epoch) = auth.state.withLock { s in (s.makeID(), s.epoch) }
            let earlier = Task<String, any Error> {
                for await _ in release.stream { break }
                try auth.amend(epoch: epoch) { session in session.idToken = stale }
                auth.state.withLock { s in if s.refresh?.id == id { s.refresh = nil } }
                return stale
            }
            auth.state.withLock { s in s.refresh = Auth.Refresh(id: id, epoch: epoch, task: earlier) }
            let (status, _) = try await adminAuthCall(live, "accounts:update", ["localId": user.uid, "customAttributes": #"{"pro":true}"#])
            #expect(status == 200)
            live.serverClock.advance(by: 2)
            let forced = Task { try await auth.idTokenResult(forceRefresh: true) }
            // The earlier refresh ends after the forced call began (a forced refresh that did not wait for it would
            // have its token overwritten by the older one).
            try await Task.sleep(for: .milliseconds(300))
            release.continuation.yield()
            let result = try #require(try await forced.value)
            #expect(try result.claim("pro", as: Bool.self) == true)
            #expect(try await auth.idToken() == result.token, "the session keeps the newer token")
        }
    }

    static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test func aTokenIsReadFromItsBase64URLPayload() throws {
        // "???" and "~~~" encode to base64 with "/" and "+": base64url writes "_" and "-", and drops the padding ("==").
        let payload = #"{"exp":1800003600,"iat":1800000000,"auth_time":1799990000,"name":"a???~~~???~~~","firebase":{"sign_in_provider":"phone"}}"#
        #expect(Self.base64URL(payload).contains("_") && Self.base64URL(payload).contains("-"))
        #expect(Data(payload.utf8).base64EncodedString().hasSuffix("=="))
        let result = try #require(IDTokenResult(token: "\(Self.base64URL(#"{"alg":"RS256"}"#)).\(Self.base64URL(payload)).sig"))
        #expect(result.claims["name"] == .string("a???~~~???~~~"))
        #expect(result.signInProvider == "phone")
        #expect(result.expirationDate == Date(timeIntervalSince1970: 1_800_003_600))
        #expect(result.issuedAtDate == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(result.authDate == Date(timeIntervalSince1970: 1_799_990_000))

        let noAuthTime = try #require(IDTokenResult(token: "a.\(Self.base64URL(#"{"exp":20,"iat":10}"#)).c"))
        #expect(noAuthTime.authDate == noAuthTime.issuedAtDate)
        #expect(noAuthTime.signInProvider == "")

        #expect(IDTokenResult(token: "not-a-token") == nil)
        #expect(IDTokenResult(token: "a.!!!.c") == nil)
        #expect(IDTokenResult(token: "a.\(Self.base64URL(#"{"iat":1}"#)).c") == nil, "no expiry")
        #expect(IDTokenResult(token: "a.\(Self.base64URL("[1]")).c") == nil, "not an object")
    }
}
