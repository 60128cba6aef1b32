import Foundation
import HTTPTypes
import HearthAuth
import HearthCore
import HearthServer
import HearthStore
import Hummingbird
import HummingbirdTesting
import Testing

/// Identity Toolkit v2 routes Hearth does not serve: 501 with the not-implemented envelope (as the
/// Auth emulator answers), while an unknown v2 path is still a 404.
@Suite("Auth v2 routes")
struct AuthV2RouterTests {
    static let key = try! SigningKey.generate()
    static let base = "/identitytoolkit.googleapis.com/v2/"

    func service() -> AuthService {
        AuthService(projectID: "demo", store: MemoryAccountStore(), key: Self.key, hasher: PasswordHasher(rounds: 1 << 4))
    }

    @Test("provider configs, tenants, MFA and the project-less v2 operations answer 501 NOT_IMPLEMENTED", arguments: [
        (HTTPRequest.Method.get, "projects/demo/oauthIdpConfigs"),
        (.post, "projects/demo/oauthIdpConfigs?oauthIdpConfigId=oidc.x"),
        (.get, "projects/demo/inboundSamlConfigs/saml.y"),
        (.patch, "projects/demo/defaultSupportedIdpConfigs/google.com"),
        (.get, "projects/demo/tenants"),
        (.post, "projects/demo/tenants"),
        (.delete, "projects/demo/tenants/t1"),
        (.get, "projects/demo/tenants/t1/oauthIdpConfigs"),
        (.get, "projects/demo/config"),
        (.post, "projects/demo/identityPlatform:initializeAuth"),
        (.post, "accounts/mfaEnrollment:start"),
        (.post, "accounts/mfaSignIn:finalize"),
        (.get, "passwordPolicy"),
        (.get, "recaptchaConfig"),
        (.post, "accounts:revokeToken"),
    ])
    func unimplemented(method: HTTPRequest.Method, path: String) async throws {
        try await withRouterClient(auth: service()) { client in
            let (status, text, _) = try await client.send(method, Self.base + path, method == .get || method == .delete ? nil : "{}")
            #expect(status.code == 501, "\(path)")
            let json = try JSONValue.parse(text)
            #expect(json["error"]?["code"] == .int(501))
            #expect(json["error"]?["status"] == .string("NOT_IMPLEMENTED"))
            guard case .array(let errors)? = json["error"]?["errors"] else { Issue.record("no errors list: \(text)"); return }
            #expect(errors.first?["reason"] == .string("notImplemented"))
            #expect(json["error"]?["message"]?.stringValue?.contains("not implemented") == true)
        }
    }

    @Test("a path Identity Toolkit v2 does not have stays 404 NOT_FOUND")
    func unknown() async throws {
        try await withRouterClient(auth: service()) { client in
            for path in ["nothing", "projects/demo/widgets", "projects", "accounts/other:start", ""] {
                let (status, text, _) = try await client.send(.get, Self.base + path)
                #expect(status == .notFound, "\(path)")
                #expect(try JSONValue.parse(text)["error"]?["status"] == .string("NOT_FOUND"))
            }
        }
    }
}
