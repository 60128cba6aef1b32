import Foundation
import HTTPTypes
import HearthCore
@testable import HearthLinks
import HearthServer
import HearthStore
import Hummingbird
import HummingbirdTesting
import Testing

/// Dynamic Links through the router: create, serve by user agent, reopenAttribution, stats.
@Suite("Links over HTTP")
struct LinksRouterTests {
    static func service(clock: @escaping @Sendable () -> Int64 = { 1_700_000_000_000 }) -> LinkService {
        LinkService(
            store: MemoryLinkStore(), domains: [LinkDomain("https://ex.page.link")!, LinkDomain("https://example.com/links")!],
            appleAppSiteAssociation: Array(#"{"applinks":{"details":[]}}"#.utf8), clock: clock)
    }

    static let json: HTTPFields = [.contentType: "application/json"]

    func create(_ client: any TestClientProtocol, _ body: String) async throws -> JSONValue {
        let (status, text, _) = try await client.send(.post, "/v1/shortLinks?key=k", body, headers: Self.json)
        #expect(status == .ok, "\(text)")
        return try JSONValue.parse(text)
    }

    @Test func createsServesCountsAndReportsALink() async throws {
        let links = Self.service()
        // --dev: router tests always send `Host: localhost`, and outside --dev a link answers only
        // on its own domain (compat/test_links.py checks that with real Host headers).
        try await withRouterClient(dev: true, links: links) { client in
            let made = try await create(
                client, #"{"longDynamicLink":"https://ex.page.link/?link=https://e.com/x&apn=a.b&ibi=c.d&isi=123","suffix":{"option":"SHORT"}}"#)
            let short = try #require(made["shortLink"]?.stringValue)
            #expect(short.hasPrefix("https://ex.page.link/"))
            #expect(short.count == "https://ex.page.link/".count + 4)
            #expect(made["previewLink"]?.stringValue == short + "?d=1")
            #expect(made["warning"] == nil)
            let again = try await create(
                client, #"{"longDynamicLink":"https://ex.page.link?ibi=c.d&isi=123&apn=a.b&link=https%3A%2F%2Fe.com%2Fx","suffix":{"option":"SHORT"}}"#)
            #expect(again["shortLink"]?.stringValue == short)

            let path = String(short.dropFirst("https://ex.page.link".count))
            let desktop: HTTPFields = [.userAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64)"]
            let (s1, _, h1) = try await client.send(.get, path, headers: desktop)
            #expect(s1 == .found)
            #expect(h1[.location] == "https://e.com/x")
            let (s2, _, h2) = try await client.send(.get, path, headers: [.userAgent: "Mozilla/5.0 (Linux; Android 14)"])
            #expect(s2 == .found)
            #expect(h2[.location] == "https://play.google.com/store/apps/details?id=a.b")
            let (s3, page, _) = try await client.send(.get, path, headers: [.userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0)"])
            #expect(s3 == .ok)
            #expect(page.contains("https://apps.apple.com/app/id123"))
            #expect(page.contains("c.d://google/link/?deep_link_id=https%3A%2F%2Fe.com%2Fx"))
            let (s4, preview, _) = try await client.send(.get, path + "?d=1", headers: desktop)
            #expect(s4 == .ok)
            #expect(preview.contains("og:title"))
            // A HEAD (a link checker) is answered alike and not counted.
            let (headStatus, _, headHeaders) = try await client.send(.head, path, headers: desktop)
            #expect(headStatus == .found)
            #expect(headHeaders[.location] == "https://e.com/x")

            let encoded = short.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let (s5, stats, _) = try await client.send(.get, "/v1/\(encoded)/linkStats?durationDays=7", headers: [.authorization: "Bearer owner"])
            #expect(s5 == .ok)
            let rows = try JSONValue.parse(stats)["linkEventStats"]
            let expected = try JSONValue.parse(#"""
                [{"platform":"ANDROID","event":"CLICK","count":"1"},{"platform":"ANDROID","event":"REDIRECT","count":"1"},
                 {"platform":"DESKTOP","event":"CLICK","count":"1"},{"platform":"DESKTOP","event":"REDIRECT","count":"1"},
                 {"platform":"IOS","event":"CLICK","count":"1"}]
                """#)
            #expect(rows == expected)
            let (s6, _, _) = try await client.send(.get, "/v1/\(encoded)/linkStats?durationDays=7", headers: [:])
            #expect(s6 == .unauthorized)
            let (s7, _, _) = try await client.send(.get, "/v1/\(encoded)/linkStats?durationDays=7", headers: [.authorization: "Bearer nope"])
            #expect(s7 == .forbidden)
        }
        // The counters were buffered; a flush writes them to the store.
        try await links.clicks.flush(to: links.store)
        let suffix = try #require(try await links.store.links(after: nil, limit: 1).first?.suffix)
        #expect(try await links.store.counts(suffix: suffix, fromDay: 0).map(\.count).reduce(0, +) == 5)
    }

    @Test func reopenAttributionReturnsTheDeepLinkAndInviter() async throws {
        try await withRouterClient(dev: true, links: Self.service()) { client in
            let made = try await create(client, #"""
                {"dynamicLinkInfo":{"domainUriPrefix":"https://example.com/links","link":"https://app.example.com/invite?inviter=u1",
                 "iosInfo":{"iosBundleId":"c.d","iosMinimumVersion":"2.1"},
                 "analyticsInfo":{"googlePlayAnalytics":{"utmSource":"friends","utmCampaign":"invite"}},"inviter":"u1"}}
                """#)
            let short = try #require(made["shortLink"]?.stringValue)
            #expect(short.hasPrefix("https://example.com/links/"))
            #expect(short.count == "https://example.com/links/".count + 17)
            let (status, text, _) = try await client.send(
                .post, "/firebasedynamiclinks.googleapis.com/v1/reopenAttribution?key=k",
                #"{"requestedLink":"\#(short)","bundle_id":"c.d","sdk_version":"10.0"}"#, headers: Self.json)
            #expect(status == .ok)
            let r = try JSONValue.parse(text)
            #expect(r["deepLink"]?.stringValue == "https://app.example.com/invite?inviter=u1")
            #expect(r["invitationId"]?.stringValue == "u1")
            #expect(r["iosMinAppVersion"]?.stringValue == "2.1")
            #expect(r["utmSource"]?.stringValue == "friends")
            #expect(r["utmCampaign"]?.stringValue == "invite")
            #expect(r["utmMedium"] == nil)
            #expect(r["resolvedLink"]?.stringValue?.hasPrefix("https://example.com/links/?link=https%3A%2F%2Fapp.example.com") == true)
            // Served under the prefix's path too.
            let (s, _, h) = try await client.send(.get, String(short.dropFirst("https://example.com".count)), headers: [:])
            #expect(s == .found)
            #expect(h[.location] == "https://app.example.com/invite?inviter=u1")
            // …and only there: not at the root, nor under another domain's prefix or host.
            let suffix = String(short.dropFirst("https://example.com/links/".count))
            #expect(try await client.send(.get, "/" + suffix, headers: [:]).0 == .notFound)
            for other in ["https://ex.page.link/\(suffix)", "https://example.com/\(suffix)", "https://example.com/links/x/\(suffix)"] {
                let (s, text, _) = try await client.send(
                    .post, "/v1/reopenAttribution?key=k", #"{"requestedLink":"\#(other)"}"#, headers: Self.json)
                #expect(s == .notFound, "\(other): \(text)")
                let encoded = other.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                #expect(try await client.send(.get, "/v1/\(encoded)/linkStats?durationDays=7", headers: [.authorization: "Bearer owner"]).0 == .notFound)
            }
            let upper = "HTTPS://EXAMPLE.COM/links/" + suffix
            let (sameLink, _, _) = try await client.send(.post, "/v1/reopenAttribution?key=k", #"{"requestedLink":"\#(upper)"}"#, headers: Self.json)
            #expect(sameLink == .ok)
        }
    }

    @Test func refusesBadRequestsWithGoogleErrors() async throws {
        try await withRouterClient(links: Self.service()) { client in
            let cases: [(String, String, HTTPResponse.Status, String)] = [
                ("/v1/shortLinks", #"{"longDynamicLink":"https://ex.page.link/?link=https://e.com/"}"#, .forbidden, "PERMISSION_DENIED"),
                ("/v1/shortLinks?key=k", #"{}"#, .badRequest, "INVALID_ARGUMENT"),
                ("/v1/shortLinks?key=k", #"{"longDynamicLink":"https://ex.page.link/?link=https://e.com/","dynamicLinkInfo":{}}"#, .badRequest, "INVALID_ARGUMENT"),
                ("/v1/shortLinks?key=k", #"{"longDynamicLink":"https://other.page.link/?link=https://e.com/"}"#, .badRequest, "INVALID_ARGUMENT"),
                ("/v1/shortLinks?key=k", #"{"longDynamicLink":"https://ex.page.link/?apn=a.b"}"#, .badRequest, "INVALID_ARGUMENT"),
                ("/v1/shortLinks?key=k", #"{"longDynamicLink":"https://ex.page.link/?link=javascript:alert(1)"}"#, .badRequest, "INVALID_ARGUMENT"),
                ("/v1/shortLinks?key=k", #"{"longDynamicLink":"https://ex.page.link/?link=https://ex.page.link/abcd"}"#, .badRequest, "INVALID_ARGUMENT"),
                ("/v1/shortLinks?key=k", #"{"longDynamicLink":"https://ex.page.link/?link=https://e.com/","suffix":{"option":"NOPE"}}"#, .badRequest, "INVALID_ARGUMENT"),
                ("/v1/shortLinks?key=k", "not json", .badRequest, "INVALID_ARGUMENT"),
                ("/v1/reopenAttribution?key=k", #"{"requestedLink":"https://ex.page.link/none"}"#, .notFound, "NOT_FOUND"),
            ]
            // Outside --dev an API key alone does not make links (the admin or a signed-in user does).
            let (keyOnly, keyOnlyText, _) = try await client.send(
                .post, "/v1/shortLinks?key=k", #"{"longDynamicLink":"https://ex.page.link/?link=https://e.com/"}"#, headers: Self.json)
            #expect(keyOnly == .unauthorized)
            #expect(try JSONValue.parse(keyOnlyText)["error"]?["status"]?.stringValue == "UNAUTHENTICATED")
            for (index, (uri, body, status, rpc)) in cases.enumerated() {
                // The first case is the request without any credential; the others are the admin's.
                let (s, text, _) = try await client.send(.post, uri, body, headers: index == 0 ? Self.json : Self.json + admin)
                #expect(s == status, "\(uri) \(body): \(text)")
                let error = try JSONValue.parse(text)["error"]
                #expect(error?["status"]?.stringValue == rpc, "\(body)")
                #expect(error?["code"] == .int(Int64(status.code)))
            }
            let (s404, _, _) = try await client.send(.get, "/NoSuchLink", headers: [:])
            #expect(s404 == .notFound)
            let (aasa, text, _) = try await client.send(.get, "/.well-known/apple-app-site-association", headers: [:])
            #expect(aasa == .ok)
            #expect(text == #"{"applinks":{"details":[]}}"#)
            let (noAssetLinks, _, _) = try await client.send(.get, "/.well-known/assetlinks.json", headers: [:])
            #expect(noAssetLinks == .notFound)
            // Database paths are untouched.
            let (db, _, _) = try await client.send(.get, "/x.json")
            #expect(db == .ok)
        }
    }
}
