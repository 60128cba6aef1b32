import HearthCore
@testable import HearthLinks
import HearthStore
import Synchronization
import Testing

@testable import HearthServer

/// Long links, suffixes, warnings and visitor detection: pure values, no I/O.
@Suite("Links: model")
struct LinksModelTests {
    // MARK: Long links

    @Test func parsesALongLinkIntoPrefixAndKnownParameters() throws {
        let (link, warnings) = try DynamicLink.parse(
            "HTTPS://Ex.Page.Link/?link=https%3A%2F%2Fexample.com%2Fx%3Fa%3D1%26b%3D2&apn=a.b&ibi=c.d&st=Hello+World&efr=1")
        #expect(link.prefix == "https://ex.page.link")
        #expect(link.link == "https://example.com/x?a=1&b=2")
        #expect(link["apn"] == "a.b")
        #expect(link["ibi"] == "c.d")
        #expect(link["st"] == "Hello World")
        #expect(link.forcedRedirect)
        #expect(warnings.isEmpty)
    }

    @Test func keepsThePathOfAPrefixAndDropsTrailingSlashes() throws {
        let (link, _) = try DynamicLink.parse("https://example.com/links/?link=https://example.org/")
        #expect(link.prefix == "https://example.com/links")
        let (bare, _) = try DynamicLink.parse("https://example.com/links?link=https://example.org/")
        #expect(bare.prefix == "https://example.com/links")
    }

    @Test func normalizesSoTheSameLinkWrittenTwoWaysIsEqual() throws {
        let a = try DynamicLink.parse("https://ex.page.link/?ibi=c.d&link=https://example.com/x%20y&apn=a.b").link
        let b = try DynamicLink.parse("https://ex.page.link?apn=a.b&link=https%3A%2F%2Fexample.com%2Fx+y&ibi=c.d").link
        #expect(a.longLink == b.longLink)
        #expect(a.longLink == "https://ex.page.link/?link=https%3A%2F%2Fexample.com%2Fx%20y&apn=a.b&ibi=c.d")
    }

    @Test func roundTripsThroughTheNormalizedForm() throws {
        let (link, _) = try DynamicLink.parse("https://ex.page.link/?link=https://e.com/%E2%9C%93?q=%26&sd=%3Cb%3E&utm_source=news")
        let (again, _) = try DynamicLink.parse(link.longLink)
        #expect(again == link)
        #expect(again.link == "https://e.com/✓?q=&")
        #expect(again["sd"] == "<b>")
    }

    @Test func reportsUnknownParametersFragmentsAndBadDebugFlags() throws {
        let (link, warnings) = try DynamicLink.parse("https://ex.page.link/?link=https://e.com/&foo=1&d=2#frag")
        #expect(link.parameters.keys.sorted() == ["link"])
        #expect(Set(warnings.map(\.code)) == [.unrecognizedParam, .linkWithFragments, .badDebugParam])
        #expect(warnings.contains { $0.message.contains("foo") })
    }

    @Test(arguments: ["ex.page.link/?link=x", "ftp://ex.page.link/?link=x", "not a url", "https:///?link=x", ""])
    func refusesLongLinksThatAreNotHTTPURLs(_ text: String) {
        #expect(throws: LinkError.self) { try DynamicLink.parse(text) }
    }

    // MARK: dynamicLinkInfo

    @Test func mapsEveryDynamicLinkInfoFieldToItsParameter() throws {
        let json = try JSONValue.parse(#"""
            {"domainUriPrefix":"https://ex.page.link","link":"https://e.com/p",
             "androidInfo":{"androidPackageName":"a.b","androidFallbackLink":"https://e.com/a","androidMinPackageVersionCode":"12","androidLink":"https://e.com/al"},
             "iosInfo":{"iosBundleId":"c.d","iosFallbackLink":"https://e.com/i","iosCustomScheme":"cd","iosIpadFallbackLink":"https://e.com/ipad",
                        "iosIpadBundleId":"c.d.pad","iosAppStoreId":"123","iosMinimumVersion":"1.2"},
             "navigationInfo":{"enableForcedRedirect":true},"desktopInfo":{"desktopFallbackLink":"https://e.com/d"},
             "socialMetaTagInfo":{"socialTitle":"T","socialDescription":"D","socialImageLink":"https://e.com/i.png"},
             "analyticsInfo":{"googlePlayAnalytics":{"utmSource":"s","utmMedium":"m","utmCampaign":"c","utmTerm":"t","utmContent":"n","gclid":"g"},
                              "itunesConnectAnalytics":{"at":"1","ct":"2","mt":"8","pt":"9"}},
             "inviter":"uid-1"}
            """#)
        let info = try DynamicLink.info(json)
        #expect(info.prefix == "https://ex.page.link")
        #expect(info.inviter == "uid-1")
        let expected: [String: String] = [
            "link": "https://e.com/p", "apn": "a.b", "afl": "https://e.com/a", "amv": "12", "al": "https://e.com/al", "ibi": "c.d",
            "ifl": "https://e.com/i", "ius": "cd", "ipfl": "https://e.com/ipad", "ipbi": "c.d.pad", "isi": "123", "imv": "1.2", "efr": "1",
            "ofl": "https://e.com/d", "st": "T", "sd": "D", "si": "https://e.com/i.png", "utm_source": "s", "utm_medium": "m",
            "utm_campaign": "c", "utm_term": "t", "utm_content": "n", "gclid": "g", "at": "1", "ct": "2", "mt": "8", "pt": "9",
        ]
        #expect(info.parameters == expected)
        #expect(Set(expected.keys) == Set(DynamicLink.parameterNames))
    }

    @Test func acceptsSnakeCaseAndTheDeprecatedDomainField() throws {
        let info = try DynamicLink.info(try JSONValue.parse(#"{"dynamic_link_domain":"ex.page.link","link":"https://e.com/","ios_info":{"ios_bundle_id":"c.d"}}"#))
        #expect(info.prefix == "https://ex.page.link")
        #expect(info.parameters["ibi"] == "c.d")
    }

    @Test(arguments: [
        #"{"link":"https://e.com/","bogus":1}"#, #"{"link":"https://e.com/","iosInfo":{"iosBundle":"x"}}"#,
        #"{"link":5.5}"#, #"{"navigationInfo":{"enableForcedRedirect":"yes"}}"#, #"{"androidInfo":"a.b"}"#,
    ])
    func refusesUnknownFieldsAndWrongTypes(_ text: String) throws {
        let json = try JSONValue.parse(text)
        #expect(throws: LinkError.self) { try DynamicLink.info(json) }
    }

    // MARK: Warnings

    @Test func warnsAboutParametersThatLookWrong() {
        let link = DynamicLink(prefix: "https://ex.page.link", parameters: [
            "link": "https://e.com/", "amv": "x", "al": "not a uri", "afl": "ftp://e.com/f", "ius": "cd", "isi": "12a",
            "ifl": "nope", "ipfl": "mailto://x", "si": "javascript://x", "st": String(repeating: "t", count: 3000),
        ])
        let codes = Set(link.warnings.map(\.code))
        #expect(codes == [
            .notIntegerAndroidPackageMinVersion, .unnecessaryAndroidPackageMinVersion, .notURIAndroidLink, .unnecessaryAndroidLink,
            .badURISchemeAndroidFallbackLink, .unnecessaryIOSURLScheme, .notNumericIOSAppStoreID, .unnecessaryIOSAppStoreID,
            .notURIIOSFallbackLink, .badURISchemeIPadFallbackLink, .badURISchemeSocialImageLink, .tooLongParam,
        ])
    }

    @Test func aWellFormedLinkHasNoWarnings() {
        let link = DynamicLink(prefix: "https://ex.page.link", parameters: [
            "link": "https://e.com/", "apn": "a.b", "amv": "3", "ibi": "c.d", "isi": "123456", "ifl": "https://e.com/i", "si": "https://e.com/i.png",
        ])
        #expect(link.warnings.isEmpty)
    }

    // MARK: Domains

    @Test func normalizesDomainsAndRefusesOthers() {
        #expect(LinkDomain("HTTPS://Example.COM/links/")?.prefix == "https://example.com/links")
        #expect(LinkDomain("http://127.0.0.1:9000")?.prefix == "http://127.0.0.1:9000")
        for bad in ["example.com", "ftp://e.com", "https://e.com/?x=1", "https://u@e.com", "https://e.com/a#b", "https://"] {
            #expect(LinkDomain(bad) == nil, "\(bad)")
        }
        let d = LinkDomain("https://example.com/links")!
        #expect(d.covers(LinkURL("https://example.com/links/abc")!))
        #expect(!d.covers(LinkURL("https://example.com/linksabc")!))
        #expect(!d.covers(LinkURL("https://example.com/product")!))
    }

    // MARK: Suffixes

    @Test func unguessableSuffixesAre17Base62CharactersOf96Bits() {
        #expect(LinkSuffixGenerator.base62(high: 0, low: 0) == "00000000000000000")
        #expect(LinkSuffixGenerator.base62(high: 0, low: 61) == "0000000000000000z")
        #expect(LinkSuffixGenerator.base62(high: 0, low: 62) == "00000000000000010")
        // 2^96 - 1 needs all 17 digits (checked with arbitrary-precision arithmetic).
        let max = LinkSuffixGenerator.base62(high: .max, low: .max)
        #expect(max.count == 17)
        #expect(max == "1f2SI9UJPXvb7vdJ1")
        let generator = LinkSuffixGenerator()
        let drawn = (0..<200).map { _ in generator.unguessable() }
        #expect(Set(drawn).count == 200)
        #expect(drawn.allSatisfy { $0.count == 17 && LinkSuffixGenerator.isPlausible(Substring($0)) })
    }

    @Test func shortSuffixesHaveTheAskedLengthAndUseTheWholeAlphabet() {
        let counter = Counter()
        let generator = LinkSuffixGenerator { counter.next() }
        let s = generator.short(length: 4)
        #expect(s.count == 4)
        var seen = Set<Character>()
        let random = LinkSuffixGenerator()
        for _ in 0..<2000 { seen.formUnion(random.short(length: 4)) }
        #expect(seen.count == 62)
    }

    @Test func shortSuffixesRejectOutOfRangeDrawsInsteadOfBiasing() {
        // 0x3F and 0x3E are rejected (62, 63); 0x01 → "1".
        let generator = LinkSuffixGenerator { 0x01 << 12 | 0x3E << 6 | 0x3F }
        #expect(generator.short(length: 1) == "1")
    }

    // MARK: Visitors and actions

    @Test(arguments: [
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148", LinkPlatform.ios, false, false),
        ("Mozilla/5.0 (iPad; CPU OS 16_0 like Mac OS X)", .ios, true, false),
        ("Mozilla/5.0 (Linux; Android 14; Pixel 8) Chrome/120.0 Mobile", .android, false, false),
        ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/120.0", .desktop, false, false),
        ("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) Safari/605", .desktop, false, false),
        ("Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0", .desktop, false, false),
        ("curl/8.5.0", .other, false, false),
        ("facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", .other, false, true),
        ("Twitterbot/1.0", .other, false, true),
        ("Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", .other, false, true),
        ("WhatsApp/2.23.20.0 A", .other, false, true),
        ("Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)", .other, false, true),
        ("TelegramBot (like TwitterBot)", .other, false, true),
        ("LinkedInBot/1.0 (compatible; Mozilla/5.0)", .other, false, true),
    ])
    func classifiesUserAgents(_ ua: String, _ platform: LinkPlatform, _ iPad: Bool, _ crawler: Bool) {
        let v = LinkVisitor(userAgent: ua)
        #expect(v.platform == platform)
        #expect(v.iPad == iPad)
        #expect(v.crawler == crawler)
    }

    @Test func choosesWhereEachPlatformGoes() {
        let full = DynamicLink(prefix: "https://ex.page.link", parameters: [
            "link": "https://e.com/deep", "apn": "a.b", "afl": "https://e.com/afl", "ibi": "c.d", "isi": "123", "ifl": "https://e.com/ifl",
            "ipfl": "https://e.com/ipfl", "ofl": "https://e.com/ofl",
        ])
        let bare = DynamicLink(prefix: "https://ex.page.link", parameters: ["link": "https://e.com/deep", "apn": "a.b", "ibi": "c.d", "isi": "123", "efr": "1"])
        let ios = LinkVisitor(platform: .ios), iPad = LinkVisitor(platform: .ios, iPad: true)
        #expect(LinkAction.decide(full, visitor: ios, debug: false) == .interstitial)
        var forced = full
        forced.parameters["efr"] = "1"
        #expect(LinkAction.decide(forced, visitor: ios, debug: false) == .redirect("https://e.com/ifl"))
        #expect(LinkAction.decide(forced, visitor: iPad, debug: false) == .redirect("https://e.com/ipfl"))
        #expect(LinkAction.decide(bare, visitor: ios, debug: false) == .redirect("https://apps.apple.com/app/id123"))
        #expect(LinkAction.decide(full, visitor: LinkVisitor(platform: .android), debug: false) == .redirect("https://e.com/afl"))
        #expect(LinkAction.decide(bare, visitor: LinkVisitor(platform: .android), debug: false)
            == .redirect("https://play.google.com/store/apps/details?id=a.b"))
        #expect(LinkAction.decide(full, visitor: LinkVisitor(platform: .desktop), debug: false) == .redirect("https://e.com/ofl"))
        #expect(LinkAction.decide(bare, visitor: LinkVisitor(platform: .other), debug: false) == .redirect("https://e.com/deep"))
        #expect(LinkAction.decide(bare, visitor: LinkVisitor(platform: .desktop, crawler: true), debug: false) == .preview)
        #expect(LinkAction.decide(bare, visitor: LinkVisitor(platform: .android), debug: true) == .preview)
    }

    @Test func theCustomSchemeURLIsWhatTheIOSSDKParses() {
        let link = DynamicLink(prefix: "https://ex.page.link", parameters: [
            "link": "https://e.com/invite?inviter=u1", "ibi": "Com.Example.App", "utm_source": "mail", "imv": "2.0",
        ])
        #expect(LinkAction.customSchemeURL(link, inviter: "u1", iPad: false)
            == "com.example.app://google/link/?deep_link_id=https%3A%2F%2Fe.com%2Finvite%3Finviter%3Du1&match_type=unique&utm_source=mail&imv=2.0&invitation_id=u1")
    }

    /// A link's creator cannot make its domain send visitors to script or inline content: fallbacks must be
    /// http(s) and fall through otherwise; `al` may open an app but not `javascript:` or `data:`.
    @Test func redirectsNeverGoToScriptOrInlineContent() {
        let hostile = DynamicLink(prefix: "https://ex.page.link", parameters: [
            "link": "https://e.com/deep", "afl": "data:text/html,<script>alert(1)</script>", "al": "javascript://%0Aalert(1)",
            "ofl": "javascript:alert(document.cookie)", "ifl": "javascript://x/%0Aalert(1)", "ipfl": "data://x", "efr": "1",
            "ibi": "c.d", "isi": "123",
        ])
        let android = LinkAction.decide(hostile, visitor: LinkVisitor(platform: .android), debug: false)
        #expect(android == .redirect("https://e.com/deep"))
        let desktop = LinkAction.decide(hostile, visitor: LinkVisitor(platform: .desktop), debug: false)
        #expect(desktop == .redirect("https://e.com/deep"))
        let iPhone = LinkAction.decide(hostile, visitor: LinkVisitor(platform: .ios), debug: false)
        #expect(iPhone == .redirect("https://apps.apple.com/app/id123"))
        let iPad = LinkAction.decide(hostile, visitor: LinkVisitor(platform: .ios, iPad: true), debug: false)
        #expect(iPad == .redirect("https://apps.apple.com/app/id123"))
        var app = hostile
        app.parameters["al"] = "myapp://open/item/1"
        #expect(LinkAction.decide(app, visitor: LinkVisitor(platform: .android), debug: false) == .redirect("myapp://open/item/1"))
        // The iOS page's "open the app" button never becomes a script link, and a raw line break is no URL.
        let scheme = DynamicLink(prefix: "https://ex.page.link", parameters: ["link": "https://a.com/x", "ibi": "JavaScript"])
        #expect(LinkAction.customSchemeURL(scheme, inviter: nil, iPad: false) == nil)
        #expect(LinkURL("https://a.com/\nalert(document.domain)//") == nil)
        #expect(LinkURL("https://a.com/ok") != nil)
    }

    @Test func pagesEscapeEverythingFromTheLink() {
        let link = DynamicLink(prefix: "https://ex.page.link", parameters: [
            "link": "https://e.com/?q=\"><script>alert(1)</script>", "st": "<script>alert('t')</script>", "sd": "a & b \"c\"",
            "si": "javascript:alert(1)", "ibi": "c.d",
        ])
        for html in [LinkPages.preview(link, url: "https://ex.page.link/x"), LinkPages.interstitial(link, url: "https://ex.page.link/x", inviter: "<u>", iPad: false)] {
            #expect(!html.contains("<script>"))
            #expect(html.contains("&lt;script&gt;alert(&#39;t&#39;)&lt;/script&gt;"))
            #expect(html.contains("a &amp; b &quot;c&quot;"))
            #expect(!html.contains("javascript:"))
            #expect(!html.contains("\"><script"))
        }
    }
}

/// Hands out 1, 2, 3, … as random bits.
final class Counter: Sendable {
    private let n = Mutex<UInt64>(0)
    func next() -> UInt64 {
        n.withLock {
            $0 += 1
            return $0
        }
    }
}
