import Foundation
import RewardsCore
import Testing

@Suite("Rewards deep links")
struct DeepLinkTests {
    @Test(arguments: [
        ("https://rewards.example.com/campaign/spring-tv", Route.campaign("spring-tv")),
        ("https://rewards.example.com/campaign/spring-tv/", .campaign("spring-tv")),
        ("https://REWARDS.example.com/campaign/spring-tv?utm_source=tv#top", .campaign("spring-tv")),
        ("https://rewards.example.com:443/catalog/mug", .catalogItem("mug")),
        ("https://rewards.example.com/catalog/caf%C3%A9%201", .catalogItem("café 1")),
        ("https://rewards.example.com/invite?inviter=u000042", .invite(inviter: "u000042")),
        ("https://rewards.example.com/invite/?utm_medium=sms&inviter=Zq9-_x", .invite(inviter: "Zq9-_x")),
        ("rewards://campaign/spring-tv", .campaign("spring-tv")),
        ("REWARDS://Catalog/mug", .catalogItem("mug")),
        ("rewards://catalog/-Nx7abc", .catalogItem("-Nx7abc")),
        ("rewards://invite?inviter=u000042", .invite(inviter: "u000042")),
        ("rewards://invite/?inviter=u%20x", .invite(inviter: "u x")),
    ])
    func theAppsLinksOpenTheirScreens(link: String, route: Route) throws {
        let url = try #require(URL(string: link))
        #expect(DeepLinks().route(for: url) == route)
        #expect(Route(url: url) == route)
    }

    @Test(arguments: [
        // Ids that are not database keys.
        "https://rewards.example.com/campaign/a.b", "https://rewards.example.com/campaign/a$b", "https://rewards.example.com/campaign/a%23b",
        "https://rewards.example.com/campaign/a%5Bb%5D", "https://rewards.example.com/campaign/a%2Fb", "https://rewards.example.com/catalog/a%00b",
        "https://rewards.example.com/catalog/a%7Fb", "https://rewards.example.com/catalog/%0A", "rewards://catalog/x%2E",
        "https://rewards.example.com/invite?inviter=a.b", "https://rewards.example.com/invite?inviter=a%2Fb",
        "https://rewards.example.com/invite?inviter=", "https://rewards.example.com/campaign/%E0%A4",
        // Missing, repeated or extra parts.
        "https://rewards.example.com/campaign", "https://rewards.example.com/campaign/", "https://rewards.example.com/campaign//x",
        "https://rewards.example.com/campaign/a/b", "https://rewards.example.com/invite", "https://rewards.example.com/invite?from=u1",
        "https://rewards.example.com/invite?inviter=u1&inviter=u2", "https://rewards.example.com/invite/u1?inviter=u1",
        "https://rewards.example.com/", "https://rewards.example.com", "rewards://campaign", "rewards://campaign/", "rewards://invite",
        "rewards://", "rewards:campaign/x",
        // Other screens, hosts, schemes, ports, users.
        "https://rewards.example.com/wallet/x", "https://rewards.example.com/Campaign/x", "rewards://wallet/x",
        "http://rewards.example.com/campaign/x", "https://evil.example.com/campaign/x", "https://rewards.example.com.evil.com/campaign/x",
        "https://rewards.example.com:8443/campaign/x", "https://ann@rewards.example.com/campaign/x", "rewards://campaign:80/x",
        "ftp://rewards.example.com/campaign/x", "mailto:ann@rewards.example.com",
    ])
    func anythingElseIsNoRoute(link: String) throws {
        // Each is a URL to Foundation: the parser is what refuses it.
        let url = try #require(URL(string: link))
        #expect(DeepLinks().route(for: url) == nil)
    }

    @Test func idsUpTo768BytesAreKeys() throws {
        let longest = String(repeating: "a", count: 768)
        let link = try #require(URL(string: "rewards://catalog/\(longest)"))
        #expect(DeepLinks().route(for: link) == .catalogItem(longest))
        let tooLong = try #require(URL(string: "rewards://catalog/\(longest)a"))
        #expect(DeepLinks().route(for: tooLong) == nil)
        // Bytes, not characters: 256 three-byte characters are 768 bytes; one more is too many.
        let wide = String(repeating: "€", count: 256)
        #expect(DeepLinks().route(for: DeepLinks().url(for: .campaign(wide))) == .campaign(wide))
        #expect(DeepLinks().route(for: DeepLinks().url(for: .campaign(wide + "€"))) == nil)
    }

    @Test func theHostAndSchemeAreConfigurable() throws {
        let staging = DeepLinks(host: "staging.rewards.test", scheme: "rewards-staging")
        #expect(staging.route(for: try #require(URL(string: "https://staging.rewards.test/catalog/mug"))) == .catalogItem("mug"))
        #expect(staging.route(for: try #require(URL(string: "rewards-staging://campaign/c1"))) == .campaign("c1"))
        #expect(staging.route(for: try #require(URL(string: "https://rewards.example.com/catalog/mug"))) == nil)
        #expect(staging.route(for: try #require(URL(string: "rewards://catalog/mug"))) == nil)
        #expect(Route(url: try #require(URL(string: "https://staging.rewards.test/invite?inviter=u1")), links: staging) == .invite(inviter: "u1"))
    }

    @Test(arguments: [Route.campaign("spring-tv"), .catalogItem("café 1"), .catalogItem("a+b&c=d"), .invite(inviter: "u 1&x=2")])
    func universalLinksRoundTrip(route: Route) {
        let url = DeepLinks().url(for: route)
        #expect(url.scheme == "https" && url.host == "rewards.example.com")
        #expect(DeepLinks().route(for: url) == route)
    }

    @Test func universalLinksHaveTheDocumentedShape() {
        #expect(DeepLinks().url(for: .invite(inviter: "u000042")).absoluteString == "https://rewards.example.com/invite?inviter=u000042")
        #expect(DeepLinks().url(for: .campaign("spring-tv")).absoluteString == "https://rewards.example.com/campaign/spring-tv")
        #expect(DeepLinks().url(for: .catalogItem("café 1")).absoluteString == "https://rewards.example.com/catalog/caf%C3%A9%201")
    }
}
