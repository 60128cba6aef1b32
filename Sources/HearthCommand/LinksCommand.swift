import ArgumentParser
import Foundation
import HearthLinks
import HearthSQLite
import HearthServer
import HearthStore

/// `hearth links create|list|stats`: short links in a data folder, without the server (works while it runs).
struct LinksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "links",
        abstract: "Manage the short links (Dynamic Links) in a data folder (works while the server runs).",
        subcommands: [Create.self, List.self, Stats.self]
    )

    /// The links database of a data folder.
    static func service(_ location: AccountsLocation, domains: [LinkDomain] = []) throws -> LinkService {
        try FileManager.default.createDirectory(atPath: location.folder, withIntermediateDirectories: true)
        let store = try SQLiteLinkStore(path: "\(location.folder)/\(location.projectID).links.sqlite")
        return LinkService(store: store, domains: domains)
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a short link from a long link (https://ex.page.link/?link=…&apn=…) or from --domain and --link.",
            discussion: "The domain is not checked against the server's --link-domains: use one the server is configured with.")
        @OptionGroup var location: AccountsLocation
        @Argument(help: "A long dynamic link.") var longLink: String?
        @Option(help: "The domain URI prefix (https://ex.page.link or https://ex.com/links), with --link.") var domain: String?
        @Option(help: "The deep link (http or https).") var link: String?
        @Option(help: "More long-link parameters, e.g. --param apn=com.example.app (repeatable).") var param: [String] = []
        @Option(help: "Uid of the user who shares the link (returned as invitationId by reopenAttribution).") var inviter: String?
        @Flag(help: "A short suffix (4+ characters) instead of an unguessable one (17).") var short = false

        func run() async throws {
            var dynamicLink: DynamicLink
            var warnings: [LinkWarning] = []
            do {
                if let longLink {
                    guard domain == nil, self.link == nil else { throw LinkError(.invalidArgument, "give a long link or --domain and --link, not both") }
                    (dynamicLink, warnings) = try DynamicLink.parse(longLink)
                } else {
                    guard let domain, let deep = self.link else { throw LinkError(.invalidArgument, "give a long link, or --domain and --link") }
                    guard let prefix = LinkDomain(domain) else { throw LinkError(.invalidArgument, "--domain must look like https://ex.page.link") }
                    dynamicLink = DynamicLink(prefix: prefix.prefix, parameters: ["link": deep])
                }
                for p in param {
                    let parts = p.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2, DynamicLink.parameterNames.contains(String(parts[0])) else {
                        throw LinkError(.invalidArgument, "--param \(p): use name=value with one of \(DynamicLink.parameterNames.joined(separator: ", "))")
                    }
                    dynamicLink.parameters[String(parts[0])] = String(parts[1])
                }
                guard let prefix = LinkDomain(dynamicLink.prefix) else { throw LinkError(.invalidArgument, "the link's domain \(dynamicLink.prefix) is not an http(s) prefix") }
                let service = try LinksCommand.service(location, domains: [prefix])
                let made = try await service.create(link: dynamicLink, option: short ? .short : .unguessable, inviter: inviter, warnings: warnings)
                try await service.store.close()
                print(made.shortLink)
                for w in made.warnings { FileHandle.standardError.write(Data("warning: \(w.code.rawValue): \(w.message)\n".utf8)) }
            } catch {
                throw fail(error)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List short links: suffix, short link, created (UTC), inviter, long link.")
        @OptionGroup var location: AccountsLocation
        @Option(help: "At most this many links.") var limit = 1000

        func run() async throws {
            do {
                let service = try LinksCommand.service(location)
                var after: String?
                var left = limit
                while left > 0 {
                    let page = try await service.store.links(after: after, limit: min(left, 500))
                    for r in page {
                        let created = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(r.created) / 1000))
                        print([r.suffix, r.shortLink, created, r.inviter ?? "-", r.longLink].joined(separator: "\t"))
                    }
                    guard page.count == min(left, 500), let last = page.last else { break }
                    after = last.suffix
                    left -= page.count
                }
                try await service.store.close()
            } catch {
                throw fail(error)
            }
        }
    }

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Clicks of a short link by UTC day and platform (CLICK, REDIRECT, APP_RE_OPEN), then totals.",
            discussion: "The server saves counts about once a second; the last second of clicks may not show yet.")
        @OptionGroup var location: AccountsLocation
        @Argument(help: "The short link or its suffix.") var link: String
        @Option(help: "Days to cover, today (UTC) included.") var days = 30

        func run() async throws {
            do {
                guard (1...3650).contains(days) else { throw LinkError(.invalidArgument, "--days must be 1-3650") }
                let service = try LinksCommand.service(location)
                let resolved: LinkService.Resolved?
                if link.contains("/") {
                    resolved = try await service.resolve(url: link)
                } else {
                    resolved = try await service.resolve(suffix: link)
                }
                guard let record = resolved?.record else { throw LinkError(.notFound, "no short link \(link) in \(location.folder)") }
                let counts = try await service.counts(suffix: record.suffix, days: days)
                try await service.store.close()
                print("\(record.shortLink) → \(record.longLink)")
                print(["day", "platform", "event", "count"].joined(separator: "\t"))
                let formatter = ISO8601DateFormatter()
                formatter.formatOptions = [.withFullDate]
                var totals: [String: Int64] = [:]
                for c in counts {
                    let day = formatter.string(from: Date(timeIntervalSince1970: Double(c.key.day) * 86_400))
                    print([day, c.key.platform.rawValue, c.key.event.rawValue, String(c.count)].joined(separator: "\t"))
                    totals["\(c.key.platform.rawValue)\t\(c.key.event.rawValue)", default: 0] += c.count
                }
                print("total (\(days) days)")
                for (key, n) in totals.sorted(by: { $0.key < $1.key }) { print("\(key)\t\(n)") }
                if totals.isEmpty { print("no clicks") }
            } catch {
                throw fail(error)
            }
        }
    }
}
