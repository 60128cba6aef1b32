import Foundation

/// Inputs shaped to make the server's work grow faster than their size (issue 30 §4), each sent once at
/// the largest size the server accepts, without credentials where rules apply: the time of the one
/// request. Each was quadratic once (minutes at these sizes); linear-ish, each takes about as long as
/// a plain request of its size.
extension Scenarios {
    /// The server's request body limit (`maxBodyBytes`, 16 MiB) and the storage metadata limit (1 MiB).
    static let adversarialBodyBytes = 16 * 1024 * 1024 - 4096
    static let adversarialMetadataBytes = 1024 * 1024 - 1024
    /// A query string that fits the common 8 KiB request-head limits.
    static let adversarialBoundBytes = 7 * 1024

    static func adversarial(_ c: BenchConfig, server: HearthServerProcess) throws -> [MetricRow] {
        let name = "adversarial"
        let ns = "adversarial"
        let conn = try HTTPConnection(port: server.port, timeout: 600)
        let scale = c.quick ? 16 : 1
        // `.validate` reading newData at the parent: what made a long multi-path update quadratic in the rules.
        let rules = #"{"rules":{".read":true,".write":true,"patch":{"$k":{".validate":"newData.parent().exists()"}}}}"#
        try conn.expect(200, "PUT", "/.settings/rules.json?ns=\(ns)", body: rules, "installing rules")
        var rows: [MetricRow] = []

        /// Sends one request as a signed-out client, times it, and checks the status.
        func timed(_ metric: String, _ method: String, _ target: String, _ body: [UInt8]?, expect status: Int, _ what: String) throws {
            let t0 = nowNanos()
            let r = try conn.request(method, target, body: body, authorization: nil)
            let ms = Double(nowNanos() - t0) / 1e6
            guard r.status == status else {
                throw BenchError("\(what): \(method) answered HTTP \(r.status) (expected \(status)) \(r.text.prefix(300))")
            }
            let size = body?.count ?? target.utf8.count
            rows.append(MetricRow(name, metric, ms, unit: "ms", note: "\(what); \(formatNumber(Double(size) / 1_048_576)) MiB"))
        }

        /// `{…}` members in descending key order, as many as fit in `limit` bytes.
        func descendingObject(_ limit: Int, member: (Int) -> String) -> (body: [UInt8], count: Int) {
            var members: [String] = []
            var size = 2
            var i = 0
            while true {
                let m = member(i)
                if size + m.utf8.count + 1 > limit { break }
                members.append(m)
                size += m.utf8.count + 1
                i += 1
            }
            return (Array(("{" + members.reversed().joined(separator: ",") + "}").utf8), members.count)
        }
        func key(_ i: Int) -> String { "k" + String(i).leftPadded(to: 7) }

        // 1. PUT of an object whose keys arrive in descending order.
        let put = descendingObject(adversarialBodyBytes / scale) { "\"\(key($0))\":1" }
        try timed("PUT, keys in descending order", "PUT", "/put.json?ns=\(ns)&print=silent", put.body, expect: 204, "\(put.count) keys")

        // 2. PUT of as many server values as fit, keys descending, one priority too.
        var servers = descendingObject(adversarialBodyBytes / scale - 64) { i in
            "\"\(key(i))\":{\".sv\":" + (i % 2 == 0 ? "\"timestamp\"" : "{\"increment\":1}") + "}"
        }
        servers.body.removeLast()
        servers.body += Array(#",".priority":{".sv":"timestamp"}}"#.utf8)
        try timed("PUT, server values under one parent", "PUT", "/values.json?ns=\(ns)&print=silent", servers.body, expect: 204, "\(servers.count) server values")

        // 3. PATCH mixing n paths with n `k/.priority` entries, under a `.validate` that reads newData.
        let pairs = descendingObject(adversarialBodyBytes / scale) { i in "\"\(key(i))\":1,\"p\(key(i))/.priority\":1" }
        try timed(
            "PATCH, n paths and n priorities", "PATCH", "/patch.json?ns=\(ns)&print=silent", pairs.body, expect: 204,
            "\(pairs.count) paths + \(pairs.count) priorities")

        // 4. A query bound `[1,1,1,…` (not closed) that used to be re-parsed at every comma.
        let bound = "%5B" + String(repeating: "1%2C", count: (adversarialBoundBytes - 64) / 4) + "1"
        try timed(
            "GET, startAt=[1,1,1,… bound", "GET", "/put.json?ns=\(ns)&orderBy=%22%24key%22&startAt=\(bound)", nil, expect: 400,
            "\(adversarialBoundBytes / 1024) KiB query string")

        // 5. Storage download tokens: one metadata update adding as many tokens as fit (refused over the cap).
        let bucket = "bench-adversarial"
        try conn.expect(200, "POST", "/v0/b/\(bucket)/o?name=tokens.txt", body: "x", contentType: "text/plain", "uploading an object")
        var tokens: [String] = []
        var size = 40
        while size < adversarialMetadataBytes / scale {
            let t = UUID().uuidString.lowercased()
            tokens.append(t)
            size += t.utf8.count + 1
        }
        let tokenBody = Array(#"{"downloadTokens":"\#(tokens.joined(separator: ","))"}"#.utf8)
        let t0 = nowNanos()
        let r = try conn.request("PATCH", "/v0/b/\(bucket)/o/tokens.txt", body: tokenBody)
        let ms = Double(nowNanos() - t0) / 1e6
        guard r.status == 400 else { throw BenchError("adding \(tokens.count) download tokens: HTTP \(r.status) \(r.text.prefix(300))") }
        rows.append(
            MetricRow(
                name, "storage PATCH, download tokens over the cap", ms, unit: "ms",
                note: "\(tokens.count) tokens (refused: the cap is 100); \(formatNumber(Double(tokenBody.count) / 1_048_576)) MiB"))
        return rows
    }
}

extension String {
    /// Zero-padded on the left to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
