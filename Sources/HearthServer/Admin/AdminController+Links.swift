import HearthCore
import HearthLinks
import HearthStore
import Hummingbird

extension AdminController {
    /// `/.hearth/links…`, the short links of the project (404 when the server runs no links):
    ///
    /// - `GET /.hearth/links?pageSize=50&pageToken=…`: `{"links":[{"suffix","shortLink","link","longLink","createdAt",
    ///   "clicks"}],"domains":[…],"nextPageToken"?}`, in suffix order. `link` is the deep link, `createdAt`
    ///   milliseconds since 1970, `clicks` every `CLICK` counted so far (saved and not yet saved). `pageSize` is
    ///   1-100 (default 50); pass the answer's `nextPageToken` as `pageToken` for the next page. `domains` are the prefixes links may be made on.
    /// - `GET /.hearth/links/<suffix>/stats?days=30`: `{"from","to","days":[{"date":"2026-11-29","platform":"ios",
    ///   "event":"CLICK","count":3}]}`: the link's non-zero counters per UTC day over the last `days` days (1-3650,
    ///   today included), `platform` one of `ios`, `android`, `desktop`, `other`, `event` one of `CLICK`, `REDIRECT`,
    ///   `APP_RE_OPEN`. Firebase's `/v1/{shortLink}/linkStats` answers the same counters summed over the days.
    /// - `DELETE /.hearth/links/<suffix>`: removes the link and its counters (`{}`), 404 when there is none. The short
    ///   link answers 404 from then on.
    ///
    /// Links are made with the public `POST /v1/shortLinks` (the admin credential needs no API key).
    func links(_ request: Request, _ rest: Substring) async throws -> Response {
        guard let links else { throw AdminError(.notFound, "This server runs no short links (start it with a links domain).") }
        let parts = rest.split(separator: "/", omittingEmptySubsequences: true)
        switch (request.method, parts.count) {
        case (.get, 0): return try await listLinks(links.service, parseQueryString(request.uri.query))
        case (.get, 2) where parts[1] == "stats":
            return try await linkStats(links.service, try Self.suffix(parts[0]), parseQueryString(request.uri.query))
        case (.delete, 1):
            let suffix = try Self.suffix(parts[0])
            guard try await links.service.delete(suffix: suffix) else { throw AdminError(.notFound, "No short link with suffix \(suffix)") }
            return ConsoleController.json(.object([]))
        default:
            if parts.count < 2 || (parts.count == 2 && parts[1] == "stats") {
                throw AdminError(.methodNotAllowed, "\(request.method) is not allowed here")
            }
            throw AdminError(.notFound, "No admin endpoint at \(request.uri.path)")
        }
    }

    /// A suffix from the path, checked.
    private static func suffix(_ segment: Substring) throws -> String {
        guard LinkSuffixGenerator.isPlausible(segment) else { throw AdminError.badRequest("Not a link suffix: \(segment.prefix(80))") }
        return String(segment)
    }

    /// One page of links with their click totals.
    private func listLinks(_ service: LinkService, _ query: [String: String]) async throws -> Response {
        var pageSize = 50
        if let text = query["pageSize"] {
            guard let n = Int(text), (1...100).contains(n) else { throw AdminError.badRequest("pageSize must be a whole number from 1 to 100") }
            pageSize = n
        }
        let after = query["pageToken"].flatMap { $0.isEmpty ? nil : $0 }
        let records = try await service.store.links(after: after, limit: pageSize + 1)
        let page = records.prefix(pageSize)
        let allDays = Int(service.today) + 1
        var items: [JSONValue] = []
        for record in page {
            let clicks = try await service.counts(suffix: record.suffix, days: allDays).reduce(Int64(0)) {
                $0 + ($1.key.event == .click ? $1.count : 0)
            }
            let deep = (try? DynamicLink.parse(record.longLink))?.link.link
            items.append(.object([
                JSONMember("suffix", .string(record.suffix)), JSONMember("shortLink", .string(record.shortLink)),
                JSONMember("link", deep.map { .string($0) } ?? .null), JSONMember("longLink", .string(record.longLink)),
                JSONMember("createdAt", .int(record.created)), JSONMember("clicks", .int(clicks)),
            ]))
        }
        var members = [JSONMember("links", .array(items)), JSONMember("domains", .array(service.domains.map { .string($0.prefix) }))]
        if records.count > pageSize, let last = page.last { members.append(JSONMember("nextPageToken", .string(last.suffix))) }
        return ConsoleController.json(.object(members))
    }

    /// A link's counters per day.
    private func linkStats(_ service: LinkService, _ suffix: String, _ query: [String: String]) async throws -> Response {
        var days = 30
        if let text = query["days"] {
            guard let n = Int(text), (1...3650).contains(n) else { throw AdminError.badRequest("days must be a whole number from 1 to 3650") }
            days = n
        }
        guard try await service.resolve(suffix: suffix) != nil else { throw AdminError(.notFound, "No short link with suffix \(suffix)") }
        let counts = try await service.counts(suffix: suffix, days: days)
        let rows: [JSONValue] = counts.map {
            .object([
                JSONMember("date", .string(Self.date(day: $0.key.day))), JSONMember("platform", .string($0.key.platform.rawValue.lowercased())),
                JSONMember("event", .string($0.key.event.rawValue)), JSONMember("count", .int($0.count)),
            ])
        }
        let today = service.today
        return ConsoleController.json(.object([
            JSONMember("from", .string(Self.date(day: today - Int64(days) + 1))), JSONMember("to", .string(Self.date(day: today))),
            JSONMember("days", .array(rows)),
        ]))
    }

    /// Day number `day` (days since 1970-01-01) as `yyyy-MM-dd` in the proleptic Gregorian calendar.
    static func date(day: Int64) -> String {
        let (y, m, d) = CivilDate.civil(days: day)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(y)-\(two(m))-\(two(d))"
    }
}
