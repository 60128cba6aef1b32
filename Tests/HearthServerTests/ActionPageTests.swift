import Foundation
import HTTPTypes
import HearthAuth
import HearthCore
@testable import HearthServer
import HearthStore
import Hummingbird
import HummingbirdTesting
import Testing

/// Emailed links outside `--dev`: where they point, what the page at `/__/auth/action` does, and
/// where a `continueUrl` may lead.
@Suite("Auth email links (production)")
struct ActionPageTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1/accounts:"

    static func service(outbox: OutboxSender) -> AuthService {
        AuthService(
            projectID: "demo", store: MemoryAccountStore(), keys: KeyRing(current: AuthRouterTests.key), hasher: PasswordHasher(rounds: 1 << 4),
            options: .production(authorizedDomains: ["localhost", "app.example.com"]), sender: outbox)
    }

    func post(_ client: any TestClientProtocol, _ op: String, _ body: String, headers: HTTPFields = [:]) async throws -> (HTTPResponse.Status, JSONValue) {
        let (status, text, _) = try await client.send(.post, Self.v1 + op + "?key=k", body, headers: headers)
        return (status, try JSONValue.parse(text))
    }

    /// The path and query of the link in the last email.
    func lastLink(_ outbox: OutboxSender) throws -> String {
        let body = try #require(outbox.sent.last?.body)
        let url = try #require(body.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        #expect(url.hasPrefix("https://api.example.com/__/auth/action?"), "links use the public URL: \(url)")
        return String(url.dropFirst("https://api.example.com".count))
    }

    func form(_ fields: [String: String]) -> String {
        fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
    }

    @Test func passwordResetLinkShowsAFormAndOnlyThePostChangesThePassword() async throws {
        let outbox = OutboxSender()
        try await withRouterClient(auth: Self.service(outbox: outbox), publicURL: "https://api.example.com") { client in
            #expect(try await post(client, "signUp", #"{"email":"r@x.io","password":"secret1"}"#).0 == .ok)
            #expect(try await post(client, "sendOobCode", #"{"requestType":"PASSWORD_RESET","email":"r@x.io"}"#).0 == .ok)
            let link = try lastLink(outbox)
            let code = String(try #require(link.split(separator: "oobCode=").last?.split(separator: "&").first))

            // Opening the link twice (a mail scanner, then the user) changes nothing.
            for _ in 0..<2 {
                let (status, html, headers) = try await client.send(.get, link, nil, headers: [:])
                #expect(status == .ok)
                #expect(html.contains(#"name="newPassword""#) && html.contains("r@x.io"))
                #expect(headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
                #expect(headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            }
            #expect(try await post(client, "signInWithPassword", #"{"email":"r@x.io","password":"secret1"}"#).0 == .ok)

            var formHeaders = HTTPFields()
            formHeaders[.contentType] = "application/x-www-form-urlencoded"
            let short = form(["mode": "resetPassword", "oobCode": code, "newPassword": "abc"])
            let (weak, weakHTML, _) = try await client.send(.post, "/__/auth/action", short, headers: formHeaders)
            #expect(weak == .badRequest && weakHTML.contains("at least 6"))

            let good = form(["mode": "resetPassword", "oobCode": code, "newPassword": "new pass+1"])
            let (done, doneHTML, _) = try await client.send(.post, "/__/auth/action", good, headers: formHeaders)
            #expect(done == .ok && doneHTML.contains("Password changed"))
            #expect(try await post(client, "signInWithPassword", #"{"email":"r@x.io","password":"new pass+1"}"#).0 == .ok)
            let (old, oldJSON) = try await post(client, "signInWithPassword", #"{"email":"r@x.io","password":"secret1"}"#)
            // A production server protects against email enumeration: a wrong password answers as an unknown email does.
            #expect(old == .badRequest && oldJSON["error"]?["message"] == .string("INVALID_LOGIN_CREDENTIALS"))

            // Used once: the link is dead now.
            let (again, againHTML, _) = try await client.send(.get, link, nil, headers: [:])
            #expect(again == .badRequest && againHTML.contains("expired or has already been used"))
        }
    }

    @Test func verifyEmailNeedsAClickAndEscapesWhatItShows() async throws {
        let outbox = OutboxSender()
        try await withRouterClient(auth: Self.service(outbox: outbox), publicURL: "https://api.example.com/") { client in
            let (_, user) = try await post(client, "signUp", #"{"email":"v@x.io","password":"secret1","returnSecureToken":true}"#)
            let idToken = try #require(user["idToken"]?.stringValue)
            let send = #"{"requestType":"VERIFY_EMAIL","idToken":"\#(idToken)","continueUrl":"https://app.example.com/done?x=1&y=<b>"}"#
            #expect(try await post(client, "sendOobCode", send).0 == .ok)
            let link = try lastLink(outbox)
            let code = String(try #require(link.split(separator: "oobCode=").last?.split(separator: "&").first))
            let (status, html, _) = try await client.send(.get, link, nil, headers: [:])
            #expect(status == .ok && html.contains("Confirm"))
            // The continue URL is rebuilt as a browser would encode it (`<` and `>` in a query are percent-encoded), then
            // HTML-escaped.
            #expect(!html.contains("<b>") && html.contains("done?x=1&amp;y=%3Cb%3E"), "the continue URL is encoded and HTML-escaped")
            let lookup = #"{"idToken":"\#(idToken)"}"#
            #expect(try await post(client, "lookup", lookup).1["users"]?[0]?["emailVerified"] == .bool(false))

            var formHeaders = HTTPFields()
            formHeaders[.contentType] = "application/x-www-form-urlencoded"
            let (done, doneHTML, _) = try await client.send(
                .post, "/__/auth/action", form(["mode": "verifyEmail", "oobCode": code, "continueUrl": "https://app.example.com/done"]),
                headers: formHeaders)
            #expect(done == .ok && doneHTML.contains("Email confirmed") && doneHTML.contains(#"href="https://app.example.com/done""#))
            #expect(try await post(client, "lookup", lookup).1["users"]?[0]?["emailVerified"] == .bool(true))
        }
    }

    @Test("the previous address gets a recovery link at the public URL; opening it asks first, the click restores the email")
    func emailChangeRecoveryLink() async throws {
        let outbox = OutboxSender()
        try await withRouterClient(auth: Self.service(outbox: outbox), publicURL: "https://api.example.com") { client in
            let (_, user) = try await post(client, "signUp", #"{"email":"mine@x.io","password":"secret1","returnSecureToken":true}"#)
            let idToken = try #require(user["idToken"]?.stringValue)
            #expect(try await post(client, "update", #"{"idToken":"\#(idToken)","email":"other@x.io"}"#).0 == .ok)
            let mail = try #require(outbox.sent.last)
            #expect(mail.to == "mine@x.io" && mail.purpose == "RECOVER_EMAIL")
            let link = try lastLink(outbox)
            #expect(link.contains("mode=recoverEmail"))
            let code = String(try #require(link.split(separator: "oobCode=").last?.split(separator: "&").first))
            let (status, html, _) = try await client.send(.get, link, nil, headers: [:])
            #expect(status == .ok && html.contains("Restore") && html.contains("mine@x.io"))
            // Opening the page changed nothing.
            #expect(try await post(client, "signInWithPassword", #"{"email":"other@x.io","password":"secret1"}"#).0 == .ok)
            var formHeaders = HTTPFields()
            formHeaders[.contentType] = "application/x-www-form-urlencoded"
            let (done, doneHTML, _) = try await client.send(.post, "/__/auth/action", form(["mode": "recoverEmail", "oobCode": code]), headers: formHeaders)
            #expect(done == .ok && doneHTML.contains("Email restored"))
            #expect(try await post(client, "signInWithPassword", #"{"email":"mine@x.io","password":"secret1"}"#).0 == .ok)
        }
    }

    @Test func aSignInLinkAddsItsParametersToTheContinueURLsQueryBeforeAnyFragment() throws {
        func location(_ url: String, _ parameters: [String: String]) throws -> String {
            ActionPage.signInLocation(try #require(ContinueURL(url)), parameters: parameters)
        }
        let link = ["mode": "signIn", "oobCode": "c"]
        #expect(try location("https://a.io/in", link) == "https://a.io/in?mode=signIn&oobCode=c&continueUrl=https%3A%2F%2Fa.io%2Fin")
        #expect(try location("https://a.io/in?x=1", link).hasPrefix("https://a.io/in?x=1&mode=signIn&oobCode=c&continueUrl="))
        #expect(try location("https://a.io/in?x=1#tab", link).hasSuffix("%3Fx%3D1%23tab#tab"))
        #expect(try location("https://a.io/#/route?y=2", ["mode": "signIn"]).hasPrefix("https://a.io/?mode=signIn&continueUrl="))
        #expect(try location("https://a.io/#/route?y=2", ["mode": "signIn"]).hasSuffix("#/route?y=2"))
        // Only the link's own parameters, encoded here: nothing else of the request reaches the Location header.
        #expect(try location("https://a.io/in", ["mode": "signIn", "oobCode": "a&b=c", "next": "https://evil.io"])
            == "https://a.io/in?mode=signIn&oobCode=a%26b%3Dc&continueUrl=https%3A%2F%2Fa.io%2Fin")
    }

    @Test("a continue URL that browsers read as another host is refused when sent and never redirected to")
    func backslashContinueURLsCannotTakeOverAccounts() async throws {
        let outbox = OutboxSender()
        try await withRouterClient(auth: Self.service(outbox: outbox), publicURL: "https://api.example.com") { client in
            for evil in [#"https://evil.com\\@app.example.com/"#, #"https://evil.com\\@localhost/"#, "https://evil.com@app.example.com/"] {
                let (status, json) = try await post(client, "sendOobCode", #"{"requestType":"EMAIL_SIGNIN","email":"c@x.io","continueUrl":"\#(evil)"}"#)
                #expect(status == .badRequest && json["error"]?["message"] == .string("INVALID_CONTINUE_URI"), "\(evil)")
            }
            #expect(outbox.sent.isEmpty, "nothing was mailed")
            let good = #"{"requestType":"EMAIL_SIGNIN","email":"c@x.io","continueUrl":"https://app.example.com/finish"}"#
            #expect(try await post(client, "sendOobCode", good).0 == .ok)
            let link = try lastLink(outbox)
            // The link edited to the backslash form: the page does not redirect.
            let tampered = link.replacingOccurrences(of: "https%3A%2F%2Fapp.example.com%2Ffinish", with: "https%3A%2F%2Fevil.com%5C%40app.example.com%2F")
            #expect(tampered != link)
            let (refused, _, headers) = try await client.send(.get, tampered, nil, headers: [:])
            #expect(refused == .badRequest && headers[.location] == nil)
        }
    }

    @Test func continueURLsMustBeOnAnAuthorizedDomain() async throws {
        let outbox = OutboxSender()
        try await withRouterClient(auth: Self.service(outbox: outbox), publicURL: "https://api.example.com") { client in
            _ = try await post(client, "signUp", #"{"email":"c@x.io","password":"secret1"}"#)
            let evil = #"{"requestType":"EMAIL_SIGNIN","email":"c@x.io","continueUrl":"https://evil.example/steal"}"#
            let (status, json) = try await post(client, "sendOobCode", evil)
            #expect(status == .badRequest)
            #expect(json["error"]?["message"] == .string("UNAUTHORIZED_DOMAIN : Domain not allowlisted by project"))
            #expect(outbox.sent.isEmpty, "nothing was mailed")

            let good = #"{"requestType":"EMAIL_SIGNIN","email":"c@x.io","continueUrl":"https://app.example.com/finish"}"#
            #expect(try await post(client, "sendOobCode", good).0 == .ok)
            let link = try lastLink(outbox)
            let (redirect, _, headers) = try await client.send(.get, link, nil, headers: [:])
            #expect(redirect == .seeOther)
            #expect(headers[.location]?.hasPrefix("https://app.example.com/finish?mode=signIn") == true)

            // A link edited to point elsewhere does not redirect there.
            let tampered = link.replacingOccurrences(of: "https%3A%2F%2Fapp.example.com%2Ffinish", with: "https%3A%2F%2Fevil.example%2F")
            #expect(tampered != link)
            let (refused, _, refusedHeaders) = try await client.send(.get, tampered, nil, headers: [:])
            #expect(refused == .badRequest && refusedHeaders[.location] == nil)
        }
    }

    @Test func withoutAPublicURLLinksNeverFollowTheRequestsHost() async throws {
        let outbox = OutboxSender()
        try await withRouterClient(auth: Self.service(outbox: outbox)) { client in
            _ = try await post(client, "signUp", #"{"email":"h@x.io","password":"secret1"}"#)
            #expect(try await post(client, "sendOobCode", #"{"requestType":"PASSWORD_RESET","email":"h@x.io"}"#).0 == .ok)
            // The test client's requests say `Host: localhost`; the link uses the configured address.
            let body = try #require(outbox.sent.last?.body)
            #expect(body.contains("http://127.0.0.1:0/__/auth/action?mode=resetPassword"), "\(body)")
        }
    }

    @Test func oneAddressGetsAtMostTenEmailsAnHour() async throws {
        let outbox = OutboxSender()
        try await withRouterClient(auth: Self.service(outbox: outbox), publicURL: "https://api.example.com") { client in
            _ = try await post(client, "signUp", #"{"email":"q@x.io","password":"secret1"}"#)
            let reset = #"{"requestType":"PASSWORD_RESET","email":"q@x.io"}"#
            for _ in 0..<10 { #expect(try await post(client, "sendOobCode", reset).0 == .ok) }
            let (status, json) = try await post(client, "sendOobCode", reset)
            #expect(status == .badRequest && json["error"]?["message"] == .string("RESET_PASSWORD_EXCEED_LIMIT"))
            #expect(outbox.sent.count == 10)
            for _ in 0..<10 { #expect(try await post(client, "sendVerificationCode", #"{"phoneNumber":"+15550001111"}"#).0 == .ok) }
            let (smsStatus, smsJSON) = try await post(client, "sendVerificationCode", #"{"phoneNumber":"+15550001111"}"#)
            #expect(smsStatus == .badRequest && smsJSON["error"]?["message"] == .string("QUOTA_EXCEEDED"))
        }
    }
}
