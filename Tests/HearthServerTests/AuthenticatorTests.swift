import Foundation
import HearthAuth
import HearthCore
import HearthWire
import Testing

@testable import HearthServer

/// One policy for every product's credentials (issue 31 §2): the admin credential, ID tokens signed or (in
/// `--dev`) unsigned, expiry against the injected clock.
@Suite("Authenticator")
struct AuthenticatorTests {
    static let start: Int64 = 1_800_000_000_000

    /// An ID token the auth service signed at the clock's time (an anonymous sign-up).
    static func signedToken(_ service: AuthService) async throws -> String {
        let answer = try await service.signUp(IdentityToolkit.SignUpRequest(returnSecureToken: true), privileged: false)
        return try #require(answer.idToken)
    }

    @Test func theAdminCredentialIsExactOutsideDevAndTheEmulatorsCountInDev() throws {
        let strict = Authenticator(adminToken: "s3cret", dev: false, verifier: nil, clock: { Self.start })
        #expect(strict.isAdmin("s3cret"))
        #expect(!strict.isAdmin("S3CRET"))
        #expect(!strict.isAdmin("owner"))
        #expect(!strict.isAdmin("ya29.a0AfH6SM"))
        #expect(!strict.isAdmin(nil))
        #expect(try strict.caller("s3cret") == .admin)

        let dev = Authenticator(adminToken: "s3cret", dev: true, verifier: nil, clock: { Self.start })
        #expect(dev.isAdmin("s3cret"))
        #expect(dev.isAdmin("owner"))
        #expect(dev.isAdmin("OWNER"))
        #expect(dev.isAdmin("ya29.a0AfH6SM"))
        #expect(!dev.isAdmin("someone"))
    }

    @Test func noCredentialIsSignedOut() throws {
        let authenticator = Authenticator(adminToken: "s3cret", dev: false, verifier: nil, clock: { Self.start })
        #expect(try authenticator.caller(nil) == .signedOut)
        #expect(try authenticator.caller("") == .signedOut)
    }

    @Test func unsignedTokensCountOnlyInDevAndTheirExpiryIsHonoured() throws {
        let now = LockedValue(Self.start)
        let exp = Self.start / 1000 + 60
        let token = RulesRouterTests.unsignedToken(#"{"sub":"alice","exp":\#(exp),"firebase":{"sign_in_provider":"password"}}"#)
        let production = Authenticator(adminToken: "s3cret", dev: false, verifier: nil, clock: { now.get() })
        #expect(throws: Authenticator.Refusal.invalid) { try production.caller(token) }

        let dev = Authenticator(adminToken: "s3cret", dev: true, verifier: nil, clock: { now.get() })
        let caller = try dev.caller(token)
        #expect(caller.auth?["uid"] == .string("alice"))
        #expect(caller.auth?["provider"] == .string("password"))
        now.set(Self.start + 60_000)
        // The same token again: a cached answer does not outlive the token.
        #expect(throws: Authenticator.Refusal.expired) { try dev.caller(token) }
        #expect(throws: Authenticator.Refusal.invalid) { try dev.caller("not-a-jwt") }
        let huge = RulesRouterTests.unsignedToken(#"{"sub":"\#(String(repeating: "x", count: Authenticator.maxTokenBytes))"}"#)
        #expect(throws: Authenticator.Refusal.invalid) { try dev.caller(huge) }
    }

    @Test func signedTokensAreVerifiedAndExpireWhetherOrNotTheyWereSeenBefore() async throws {
        let now = LockedValue(Self.start)
        let service = AuthRouterTests.service(clock: { now.get() })
        let first = try await Self.signedToken(service)
        let second = try await Self.signedToken(service)
        let authenticator = Authenticator(adminToken: "s3cret", dev: false, verifier: service, clock: { now.get() })
        let caller = try authenticator.caller(first)
        #expect(caller.auth?["provider"] == .string("anonymous"))
        #expect(caller.auth?["token"]?["exp"] == .int(Self.start / 1000 + 3600))
        // A signature that does not verify: one byte of it changed.
        var forged = Array(first.utf8)
        forged[forged.count - 5] = forged[forged.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: Authenticator.Refusal.invalid) { try authenticator.caller(String(decoding: forged, as: UTF8.self)) }

        now.set(Self.start + 3_600_000)
        #expect(throws: Authenticator.Refusal.expired) { try authenticator.caller(first) }  // seen while valid
        #expect(throws: Authenticator.Refusal.expired) { try authenticator.caller(second) }  // first seen now
    }
}
