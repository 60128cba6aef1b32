import Foundation
import Hearth
import HearthCore
import Testing

/// A database operation started right after signing in must carry the new identity. Against a live
/// server the race this guards against shows only sometimes (it was seen in the Barcode Comments
/// end-to-end test, 3 runs in 15); `PersistentConnectionTests.aRequestMadeAfterSignInGoesOutAfterTheNewTokensAuth`
/// checks the ordering deterministically.
@Suite("SDK identity after sign-in")
struct IdentityRaceTests {
    @Test func aWriteRightAfterSignUpIsMadeAsTheNewUser() async throws {
        try await withAuthStorageServer { server in
            // Only the owner may write their node: a write that went out before the connection
            // learned the new token would be refused.
            try await AdminREST(port: server.port).put(
                ".settings/rules", #"{"rules": {"users": {"$uid": {".read": "auth.uid === $uid", ".write": "auth.uid === $uid"}}}}"#)
            for round in 0..<8 {
                let app = HearthApp(name: "race\(round)", options: server.options())
                let user = try await app.auth.signUp(email: "u\(round)@example.com", password: "secret1")
                try await app.database.reference("users/\(user.uid)").setValue(["round": round])
                #expect(try await app.database.reference("users/\(user.uid)/round").getValue(as: Int.self) == round)
                await app.close()
            }
        }
    }
}
