import Foundation
import HTTPTypes
import HearthAuth
import HearthCore
@testable import HearthServer
import HearthStore
import Hummingbird
import HummingbirdTesting
import Testing

/// Spellings Identity Toolkit clients may use on the wire: snake_case request keys, and the redacted password fields
/// firebase-admin reads.
@Suite("Auth wire spellings")
struct AuthWireSpellingTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1/accounts:"

    static func service() -> AuthService {
        AuthService(projectID: "demo", store: MemoryAccountStore(), key: AuthRouterTests.key, hasher: PasswordHasher(rounds: 1 << 4))
    }

    func call(_ client: any TestClientProtocol, _ path: String, _ body: String, headers: HTTPFields = [:]) async throws -> (HTTPResponse.Status, JSONValue) {
        let (status, text, _) = try await client.send(.post, path, body, headers: headers)
        return (status, try JSONValue.parse(text))
    }

    func first(_ value: JSONValue?) -> JSONValue? {
        guard case .array(let items)? = value else { return nil }
        return items.first
    }

    @Test("snake_case request keys work like lowerCamel ones")
    func snakeCaseKeys() async throws {
        try await withRouterClient(auth: Self.service()) { client in
            let (s1, created) = try await call(
                client, Self.v1 + "signUp?key=k", #"{"email":"s@x.io","password":"secret1","return_secure_token":true}"#)
            #expect(s1 == .ok)
            let idToken = try #require(created["idToken"]?.stringValue)
            let (s2, looked) = try await call(client, Self.v1 + "lookup?key=k", #"{"id_token":"\#(idToken)"}"#)
            #expect(s2 == .ok)
            #expect(first(looked["users"])?["localId"] == created["localId"])
            let (s3, updated) = try await call(
                client, Self.v1 + "update?key=k", #"{"id_token":"\#(idToken)","display_name":"Sam","delete_attribute":["PHOTO_URL"]}"#)
            #expect(s3 == .ok)
            #expect(updated["displayName"] == .string("Sam"))
            // A client still may not name another project, in either spelling.
            let (s4, _) = try await call(client, Self.v1 + "lookup?key=k", #"{"id_token":"\#(idToken)","target_project_id":"other"}"#)
            #expect(s4 == .badRequest)
        }
    }

    @Test("password users carry the redacted hash and salt markers, never the real ones")
    func redactedPasswordFields() async throws {
        try await withRouterClient(auth: Self.service()) { client in
            let (_, created) = try await call(client, Self.v1 + "signUp?key=k", #"{"email":"p@x.io","password":"secret1"}"#)
            let uid = try #require(created["localId"]?.stringValue)
            let (status, looked) = try await call(
                client, "/identitytoolkit.googleapis.com/v1/projects/demo/accounts:lookup", #"{"localId":["\#(uid)"]}"#,
                headers: [.authorization: "Bearer owner"])
            #expect(status == .ok)
            #expect(first(looked["users"])?["passwordHash"] == .string("UkVEQUNURUQ="))
            #expect(first(looked["users"])?["salt"] == .string("UkVEQUNURUQ="))
        }
    }

    @Test("with --dev, OWNER in any case and a ya29. OAuth token are admin, as in the emulator; without --dev neither is")
    func emulatorAdminTokens() async throws {
        let lookup = "/identitytoolkit.googleapis.com/v1/projects/demo/accounts:lookup"
        for dev in [true, false] {
            try await withRouterClient(dev: dev, auth: Self.service()) { client in
                for token in ["OWNER", "Owner", "ya29.a0AfH6SM"] {
                    let (status, _) = try await call(client, lookup, #"{"localId":["nobody"]}"#, headers: [.authorization: "Bearer \(token)"])
                    #expect(status == (dev ? .ok : .unauthorized), "\(token), dev \(dev)")
                }
                let (status, _) = try await call(client, lookup, #"{"localId":["nobody"]}"#, headers: [.authorization: "Bearer ya28.nope"])
                #expect(status == .unauthorized)
            }
        }
    }

    @Test("keys are camel-cased at every depth; a lowerCamel key wins over its snake_case twin; values are untouched")
    func camelCasing() throws {
        let json = try JSONValue.parse(
            #"{"local_id":["a_b"],"idToken":"kept","id_token":"dropped","users":[{"photo_url":"x_y","provider_user_info":[{"raw_id":"r"}]}],"_private":1,"trailing_":2}"#
        )
        let expected = try JSONValue.parse(
            #"{"idToken":"kept","users":[{"photoUrl":"x_y","providerUserInfo":[{"rawId":"r"}]}],"_private":1,"trailing_":2,"localId":["a_b"]}"#
        )
        #expect(json.camelCasedKeys() == expected)
    }
}
