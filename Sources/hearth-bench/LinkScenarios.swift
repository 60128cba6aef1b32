import Foundation

/// Dynamic Links: how many short-link redirects the server answers per second, and whether every
/// answered redirect was counted (counts are buffered in memory and flushed about once a second).
extension Scenarios {
    static func linkRedirects(_ c: BenchConfig, server: HearthServerProcess) throws -> [MetricRow] {
        let name = "link-redirects"
        let conn = try HTTPConnection(port: server.port)
        // --dev accepts the server's own origin as a link domain.
        let origin = "http://127.0.0.1:\(server.port)"
        let body = #"{"dynamicLinkInfo":{"domainUriPrefix":"\#(origin)","link":"https://example.com/bench?x=1"},"suffix":{"option":"SHORT"}}"#
        let created = try conn.expect(200, "POST", "/v1/shortLinks?key=bench", body: body, authorization: nil, "creating a short link")
        guard let json = try created.json() as? [String: Any], let shortLink = json["shortLink"] as? String, shortLink.hasPrefix(origin + "/")
        else { throw BenchError("create answered \(created.text)") }
        let path = String(shortLink.dropFirst(origin.count))
        let check = try conn.request("GET", path, headers: [("User-Agent", LoadRequest.desktopUserAgent)], authorization: nil)
        guard check.status == 302, check.headers["location"] == "https://example.com/bench?x=1" else {
            throw BenchError("GET \(path) answered \(check.status) \(check.headers)")
        }
        let before = try desktopClicks(conn, shortLink)
        let r = try load(c, server: server, request: .redirect(path))
        var rows = loadRows(name, r, rateMetric: "redirects/s (\(c.connections) conns)", target: .atLeast(20_000))
        // Stats add the unflushed counts to the saved ones, so every answered redirect shows at once.
        let counted = try desktopClicks(conn, shortLink) - before
        rows.append(
            MetricRow(
                name, "clicks counted per redirect answered", Double(counted) / Double(max(1, r.ok)), target: .atLeast(1),
                note: "\(counted) clicks for \(r.ok) redirects (requests cut off at the end may add a few)"))
        return rows
    }

    /// The DESKTOP CLICK count of a short link, from the stats API.
    private static func desktopClicks(_ conn: HTTPConnection, _ shortLink: String) throws -> Int {
        let encoded = shortLink.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? shortLink
        let r = try conn.expect(200, "GET", "/v1/\(encoded)/linkStats?durationDays=1", "reading link stats")
        guard let json = try r.json() as? [String: Any] else { throw BenchError("stats answered \(r.text)") }
        let rows = json["linkEventStats"] as? [[String: Any]] ?? []
        let click = rows.first { $0["platform"] as? String == "DESKTOP" && $0["event"] as? String == "CLICK" }
        return Int(click?["count"] as? String ?? "0") ?? 0
    }
}
