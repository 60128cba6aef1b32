import Foundation
import HearthCore
import HearthWire
import Testing

@testable import HearthAuth

/// `UserRecord.init?(stored:)` must read exactly what `JSONDecoder` reads from the records `JSONEncoder` wrote, and
/// leave everything else to `JSONDecoder`.
@Suite("Stored user records")
struct UserRecordStorageTests {
    static func records() -> [UserRecord] {
        var minimal = UserRecord(localId: "u0", createdAt: 1_700_000_000_000, validSince: 1_700_000_000)
        minimal.linkedProviders = []
        var full = UserRecord(localId: "uid-\"quoted\"\\é", createdAt: 1, validSince: -5)
        full.email = "a@b.io"
        full.initialEmail = "first@b.io"
        full.emailVerified = true
        full.displayName = "Ada\nLovelace 😀"
        full.photoUrl = "https://x.io/a.png?x=1&y=2"
        full.phoneNumber = "+15555550100"
        full.setPassword(PasswordCredentials(hash: "aGFzaA==", salt: "c2FsdA==", cost: 1 << 15), at: 1_700_000_000_123)
        full.firebaseScrypt = FirebaseScryptParameters(signerKey: "a2V5", saltSeparator: "Bw==", rounds: 8, memoryCost: 14)
        full.disabled = true
        full.lastLoginAt = 1_700_000_000_999
        full.lastRefreshAt = Int64.max
        full.customAttributes = #"{"role":"pro","n":[1,2]}"#
        full.customAuth = false
        full.emailLinkSignin = true
        full.linkedProviders = [
            ProviderInfo(providerId: "google.com", rawId: "g1", federatedId: "g1", email: "a@gmail.com", displayName: "A", photoUrl: nil, phoneNumber: nil),
            ProviderInfo(providerId: "custom", rawId: "r", federatedId: nil, email: nil, displayName: nil, photoUrl: "p", phoneNumber: "+1"),
        ]
        var fractional = UserRecord(localId: "u2", createdAt: 0, validSince: 0)
        fractional.passwordUpdatedAt = 1_700_000_000_123.5
        return [minimal, full, fractional]
    }

    @Test(arguments: records())
    func readsWhatTheEncoderWrote(record: UserRecord) throws {
        let data = try JSONEncoder().encode(record)
        let fast = try #require(UserRecord(stored: try JSONValue.parse(Array(data))))
        #expect(fast == record)
        #expect(fast == (try JSONDecoder().decode(UserRecord.self, from: data)))
    }

    @Test(arguments: [
        #"{"localId":"u","createdAt":1,"validSince":2,"emailVerified":false,"disabled":false}"#,  // no linkedProviders
        #"{"localId":"u","createdAt":1.5,"validSince":2,"emailVerified":false,"disabled":false,"linkedProviders":[]}"#,
        #"{"localId":"u","createdAt":1,"validSince":2,"emailVerified":false,"disabled":false,"linkedProviders":[],"email":null}"#,
        #"{"localId":"u","createdAt":1,"validSince":2,"emailVerified":"yes","disabled":false,"linkedProviders":[]}"#,
        #"{"localId":"u","createdAt":1,"validSince":2,"emailVerified":false,"disabled":false,"linkedProviders":[{"rawId":"r"}]}"#,
        #"{"localId":"u","createdAt":1,"validSince":2,"emailVerified":false,"disabled":false,"linkedProviders":[],"firebaseScrypt":{"signerKey":"k"}}"#,
        #"{"localId":"u","createdAt":1,"validSince":2,"emailVerified":false,"disabled":false,"linkedProviders":[],"passwordCost":"16384"}"#,
        #"{"localId":"u","createdAt":1,"validSince":2,"emailVerified":false,"disabled":false,"linkedProviders":[],"passwordCost":1.5}"#,
        #"[1]"#,
    ])
    func leavesAnythingElseToTheDecoder(text: String) throws {
        #expect(UserRecord(stored: try JSONValue.parse(text)) == nil)
    }

    @Test func ignoresUnknownKeysAsTheDecoderDoes() throws {
        let text = #"{"localId":"u","createdAt":1,"validSince":2,"emailVerified":true,"disabled":false,"linkedProviders":[],"future":{"x":1}}"#
        let fast = try #require(UserRecord(stored: try JSONValue.parse(text)))
        #expect(fast == (try JSONDecoder().decode(UserRecord.self, from: Data(text.utf8))))
        #expect(fast.emailVerified)
    }
}
