import HearthAuth
import HearthCore
import HearthStore
import Testing

/// Continue URLs are read as browsers read them (WHATWG), so the host that is checked is the host the user's browser
/// goes to with the emailed code.
@Suite("Continue URLs")
struct ContinueURLTests {
    @Test(arguments: [
        // Foundation reads app.example.com after the backslash; a browser reads evil.com.
        #"https://evil.com\@app.example.com/"#, #"https://evil.com\@localhost/"#, #"https://app.example.com\evil.com/"#, #"https://app.example.com/\evil.com"#,
        "https://evil.com@app.example.com/", "https://app.example.com@evil.com/", "https://user:pass@app.example.com/",
        "https://evil.com\t@app.example.com/", "https://evil.com\n.app.example.com/", "https://app.example.com /x",
        " https://app.example.com/", "https://app.example.com/\r\nSet-Cookie:x", "https://app.example.com\u{00A0}/",
        "https:/app.example.com/", "https:app.example.com/", "https:///evil.com/", "//app.example.com/", "javascript://app.example.com/%0Aalert(1)",
        "ftp://app.example.com/", "https://", "https://app.example.com:99999/", "https://app.example.com:8o/",
        "https://evil%2Ecom/", "https://ａpp.example.com/", "https://[::1/", "https://[evil.com]/", "https://a.com:1:2/", "",
    ])
    func refusesWhatBrowsersReadDifferently(_ text: String) {
        #expect(ContinueURL(text) == nil, "\(text.debugDescription)")
    }

    @Test func keepsTheHostAndRebuildsTheURL() throws {
        let cases = [
            ("https://App.Example.com/finish?x=1#top", "app.example.com", "https://app.example.com/finish?x=1#top"),
            ("HTTPS://app.example.com:443", "app.example.com", "https://app.example.com/"),
            ("http://localhost:5173/in?next=%2Fhome", "localhost", "http://localhost:5173/in?next=%2Fhome"),
            ("http://[::1]:8080/", "[::1]", "http://[::1]:8080/"),
            ("https://a.io/caf\u{E9}?q=\"<x>\"#f<", "a.io", "https://a.io/caf%C3%A9?q=%22%3Cx%3E%22#f%3C"),
        ]
        for (text, host, rebuilt) in cases {
            let url = try #require(ContinueURL(text), "\(text)")
            #expect(url.host == host)
            #expect(url.description == rebuilt)
        }
    }

    @Test func parametersGoIntoTheQueryBeforeTheFragment() throws {
        #expect(try #require(ContinueURL("https://a.io/in")).adding(query: "mode=signIn") == "https://a.io/in?mode=signIn")
        #expect(try #require(ContinueURL("https://a.io/in?x=1#t")).adding(query: "mode=signIn") == "https://a.io/in?x=1&mode=signIn#t")
        #expect(try #require(ContinueURL("https://a.io/in?")).adding(query: "mode=signIn") == "https://a.io/in?mode=signIn")
    }

    func body(_ text: String) -> JSONValue { try! JSONValue.parse(text) }

    @Test("every email action refuses a continue URL a browser would read as another host, on any server")
    func everyEmailActionChecksTheContinueURL() async throws {
        for options in [AuthService.Options(), .production(authorizedDomains: ["app.example.com"])] {
            let auth = AuthService(
                projectID: "p1", store: MemoryAccountStore(), key: AuthServiceTests.key, hasher: PasswordHasher(rounds: 1 << 4), options: options)
            let user = try await auth.signUp(body(#"{"email":"c@x.io","password":"secret1"}"#), privileged: false)
            let idToken = try #require(user["idToken"]?.stringValue)
            let requests = [
                #""requestType":"EMAIL_SIGNIN","email":"c@x.io""#, #""requestType":"PASSWORD_RESET","email":"c@x.io""#,
                #""requestType":"VERIFY_EMAIL","idToken":"\#(idToken)""#,
                #""requestType":"VERIFY_AND_CHANGE_EMAIL","idToken":"\#(idToken)","newEmail":"d@x.io""#,
            ]
            for request in requests {
                let sent = #"{\#(request),"continueUrl":"https://evil.com\\@app.example.com/"}"#
                await #expect(throws: AuthError("INVALID_CONTINUE_URI"), "\(request)") {
                    try await auth.sendOobCode(body(sent), privileged: false, linkBase: "https://api.example.com")
                }
            }
            try #require(try await auth.sendOobCode(
                body(#"{"requestType":"EMAIL_SIGNIN","email":"c@x.io","continueUrl":"https://App.example.com/in","returnOobLink":true}"#), privileged: true,
                linkBase: "https://api.example.com")["oobLink"]?.stringValue?.hasSuffix("continueUrl=https%3A%2F%2Fapp.example.com%2Fin") == true)
        }
    }

    @Test("outside --dev localhost is an authorized domain only when listed")
    func localhostIsNotAuthorizedByDefault() async throws {
        let auth = AuthService(
            projectID: "p1", store: MemoryAccountStore(), key: AuthServiceTests.key, hasher: PasswordHasher(rounds: 1 << 4),
            options: .production(authorizedDomains: ["app.example.com"]))
        #expect(throws: AuthError("UNAUTHORIZED_DOMAIN", "Domain not allowlisted by project")) { try auth.authorizedContinueURL("http://localhost/in") }
        #expect(throws: AuthError("UNAUTHORIZED_DOMAIN", "Domain not allowlisted by project")) { try auth.authorizedContinueURL("https://app.example.com.evil.io/") }
        #expect(try auth.authorizedContinueURL("https://APP.example.com/in").host == "app.example.com")
    }

    @Test("sendOobCode takes a linkDomain only among the configured ones")
    func linkDomainMustBeConfigured() async throws {
        let auth = AuthService(
            projectID: "p1", store: MemoryAccountStore(), key: AuthServiceTests.key, hasher: PasswordHasher(rounds: 1 << 4),
            options: .production(authorizedDomains: ["app.example.com"], linkDomains: ["links.example.com"]))
        let request = #"{"requestType":"EMAIL_SIGNIN","email":"c@x.io","continueUrl":"https://app.example.com/in","linkDomain":"#
        await #expect(throws: AuthError("INVALID_HOSTING_LINK_DOMAIN")) {
            try await auth.sendOobCode(body(request + #""evil.example.com"}"#), privileged: false, linkBase: "https://api.example.com")
        }
        _ = try await auth.sendOobCode(body(request + #""Links.example.com"}"#), privileged: false, linkBase: "https://api.example.com")
        // The emulator (no list) takes any, as Firebase's does.
        let emulator = AuthService(projectID: "p1", store: MemoryAccountStore(), key: AuthServiceTests.key, hasher: PasswordHasher(rounds: 1 << 4))
        _ = try await emulator.sendOobCode(body(request + #""evil.example.com"}"#), privileged: false, linkBase: "http://localhost")
    }
}
