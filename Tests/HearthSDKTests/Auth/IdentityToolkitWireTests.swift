import Foundation
import HearthCore
import HearthWire
import Testing

/// The Identity Toolkit answers are one set of types: the server writes them with `JSONValueEncoder`, the SDK reads
/// them with Foundation's `JSONDecoder`. These pin the wire text the server writes and that the SDK reads it back.
/// The member names of an object, in order.
func keys(of value: JSONValue) -> [String]? {
    guard case .object(let members) = value else { return nil }
    return members.map(\.key)
}

@Suite("Identity Toolkit wire types")
struct IdentityToolkitWireTests {
    static let tokens = SessionTokens(idToken: "id.token.sig", refreshToken: "refresh-1", expiresIn: 3600)

    static func text(_ value: some Encodable) throws -> String { try JSONValueEncoder().encode(value).jsonString }

    static func roundTrip<T: Codable & Equatable>(_ value: T) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(JSONValueEncoder().encode(value).jsonBytes))
    }

    @Test func aSignUpWritesItsFieldsInFirebaseOrderAndLeavesOutWhatItLacks() throws {
        let anonymous = IdentityToolkit.SignUpResponse(localId: "u1", email: nil, displayName: nil, tokens: Self.tokens)
        #expect(try Self.text(anonymous)
            == #"{"kind":"identitytoolkit#SignupNewUserResponse","localId":"u1","idToken":"id.token.sig","refreshToken":"refresh-1","expiresIn":"3600"}"#)
        // An admin create issues no tokens: the three fields are absent, not null.
        let created = IdentityToolkit.SignUpResponse(localId: "u2", email: "ann@x.io", displayName: "Ann", tokens: nil)
        #expect(try Self.text(created) == #"{"kind":"identitytoolkit#SignupNewUserResponse","localId":"u2","email":"ann@x.io","displayName":"Ann"}"#)
        #expect(try Self.roundTrip(created) == created)
    }

    @Test func aRefreshAnswerIsSnakeCasedAsSecureTokenWritesIt() throws {
        let answer = IdentityToolkit.RefreshTokenResponse(idToken: "t", expiresIn: 3600, refreshToken: "r", userID: "u", projectID: "p")
        #expect(try Self.text(answer)
            == #"{"access_token":"t","expires_in":"3600","token_type":"Bearer","refresh_token":"r","id_token":"t","user_id":"u","project_id":"p"}"#)
        #expect(try Self.roundTrip(answer) == answer)
    }

    @Test func aRefusedPhoneLinkCarriesAProofAndNoSession() throws {
        let refused = IdentityToolkit.SignInWithPhoneNumberResponse(temporaryProof: "proof", expiresIn: 3600, phoneNumber: "+15555550100")
        #expect(try Self.text(refused) == #"{"temporaryProof":"proof","temporaryProofExpiresIn":"3600","phoneNumber":"+15555550100"}"#)
        let decoded = try Self.roundTrip(refused)
        #expect(decoded.idToken == nil && decoded.temporaryProof == "proof")
    }

    @Test func anIdpAnswerAddsTheSessionAfterTheProviderFields() throws {
        let base = IdentityToolkit.SignInWithIdpResponse(
            providerId: "google.com", federatedId: "g-1", oauthIdToken: "jwt", rawUserInfo: "{}", email: nil, emailVerified: nil,
            displayName: nil, photoUrl: nil)
        let signedIn = base.signedIn(localId: "u", isNewUser: true, tokens: Self.tokens)
        let names = try #require(keys(of: JSONValueEncoder().encode(signedIn)))
        #expect(names == [
            "kind", "providerId", "federatedId", "oauthIdToken", "rawUserInfo", "localId", "isNewUser", "idToken", "refreshToken", "expiresIn",
        ])
        #expect(try Self.roundTrip(signedIn) == signedIn)
    }

    @Test func everyActionCodeTypeIsItsWireString() {
        #expect(IdentityToolkit.OobRequestType.allCases.map(\.rawValue) == [
            "PASSWORD_RESET", "VERIFY_EMAIL", "VERIFY_AND_CHANGE_EMAIL", "RECOVER_EMAIL", "EMAIL_SIGNIN",
        ])
        #expect(IdentityToolkit.OobRequestType(rawValue: "OOB_REQ_TYPE_UNSPECIFIED") == nil)
    }

    @Test func anAnswerFromFirebaseWithoutKindStillDecodes() throws {
        let text = #"{"localId":"u","email":"a@x.io","idToken":"t","refreshToken":"r","expiresIn":"3600","registered":true}"#
        let answer = try JSONDecoder().decode(IdentityToolkit.SignInWithPasswordResponse.self, from: Data(text.utf8))
        #expect(answer.kind == nil && answer.localId == "u" && answer.registered == true && answer.expiresIn == "3600")
    }
}

@Suite("JSONValueEncoder")
struct JSONValueEncoderTests {
    struct Inner: Encodable { var b: Int; var a: [String?] }
    struct Outer: Encodable {
        var z: String
        var y: Inner
        var x: Double?
        var when: Date
        var blob: Data
        var link: URL
        var big: UInt64
    }

    @Test func keysKeepTheirEncodingOrderAndNestedValuesAreWritten() throws {
        let value = Outer(
            z: "last-alphabetically", y: Inner(b: 2, a: ["p", nil]), x: nil, when: Date(timeIntervalSince1970: 1.5), blob: Data([1, 2, 3]),
            link: URL(string: "https://x.io/a?b=c")!, big: UInt64.max)
        let json = try JSONValueEncoder().encode(value)
        #expect(keys(of: json) == ["z", "y", "when", "blob", "link", "big"])
        #expect(json["y"] == .object([JSONMember("b", .int(2)), JSONMember("a", .array([.string("p"), .null]))]))
        #expect(json["when"] == .double(1500))
        #expect(json["blob"] == .string("AQID"))
        #expect(json["link"] == .string("https://x.io/a?b=c"))
        #expect(json["big"] == .double(Double(UInt64.max)))
    }

    @Test func aNonFiniteNumberIsRefusedNotWrittenAsInvalidJSON() {
        struct Ratio: Encodable { var r: Double }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(Ratio(r: .infinity)) }
    }

    @Test func longArraysKeepTheirOrderAndARepeatedKeyKeepsItsFirstPlace() throws {
        #expect(try JSONValueEncoder().encode(Array(0..<1000)) == .array((0..<1000).map { .int(Int64($0)) }))
        struct Twice: Encodable {
            enum Key: String, CodingKey { case a, b }
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: Key.self)
                try c.encode(1, forKey: .a)
                try c.encode(2, forKey: .b)
                try c.encode(3, forKey: .a)
            }
        }
        #expect(try JSONValueEncoder().encode(Twice()) == .object([JSONMember("a", .int(3)), JSONMember("b", .int(2))]))
    }

    @Test func topLevelValuesAndArrays() throws {
        #expect(try JSONValueEncoder().encode("text") == .string("text"))
        #expect(try JSONValueEncoder().encode([1, 2]) == .array([.int(1), .int(2)]))
        #expect(try JSONValueEncoder().encode(["k": true]) == .object([JSONMember("k", .bool(true))]))
    }
}
