import Foundation
import HearthCore
import HearthFunctions

extension Settings {
    /// The outside services server functions reach as `context.services`: a Nominatim-compatible geocoder, an
    /// openHAB smart home and OpenWeather. Flags > `HEARTH_*` > the config file's `services` object.
    ///
    /// A secret given twice within one layer (a token and a token file) is read from the file; a later layer's
    /// secret, in either form, replaces an earlier layer's.
    struct OutsideServicesSettings {
        var geocoderURL: String?
        var geocoderUserAgent: String?
        var openHABURL: String?
        var openHABToken: String?
        var openHABTokenFile: String?
        var openWeatherURL: String?
        var openWeatherKey: String?
        var openWeatherKeyFile: String?

        /// The config file's `services`: `{"geocoder": {"baseUrl", "userAgent"}, "openhab": {"baseUrl", "tokenFile",
        /// "token"}, "openweather": {"baseUrl", "apiKeyFile", "apiKey"}}`.
        mutating func apply(_ members: [JSONMember], file path: String) throws {
            for m in members {
                guard case .object(let fields) = m.value, ["geocoder", "openhab", "openweather"].contains(m.key) else {
                    throw Failure(description: "config file \(path): unknown or mistyped setting \"services.\(m.key)\"")
                }
                for f in fields {
                    switch (m.key, f.key, f.value) {
                    case ("geocoder", "baseUrl", .string(let v)): geocoderURL = v
                    case ("geocoder", "userAgent", .string(let v)): geocoderUserAgent = v
                    case ("openhab", "baseUrl", .string(let v)): openHABURL = v
                    case ("openhab", "token", .string(let v)): setOpenHABToken(v)
                    case ("openhab", "tokenFile", .string(let v)): setOpenHABTokenFile(v)
                    case ("openweather", "baseUrl", .string(let v)): openWeatherURL = v
                    case ("openweather", "apiKey", .string(let v)): setOpenWeatherKey(v)
                    case ("openweather", "apiKeyFile", .string(let v)): setOpenWeatherKeyFile(v)
                    default: throw Failure(description: "config file \(path): unknown or mistyped setting \"services.\(m.key).\(f.key)\"")
                    }
                }
            }
        }

        mutating func apply(environment env: [String: String]) {
            if let v = env["HEARTH_GEOCODER_URL"] { geocoderURL = v }
            if let v = env["HEARTH_GEOCODER_USER_AGENT"] { geocoderUserAgent = v }
            if let v = env["HEARTH_OPENHAB_URL"] { openHABURL = v }
            if let v = env["HEARTH_OPENHAB_TOKEN"] { setOpenHABToken(v) }
            if let v = env["HEARTH_OPENHAB_TOKEN_FILE"] { setOpenHABTokenFile(v) }
            if let v = env["HEARTH_OPENWEATHER_URL"] { openWeatherURL = v }
            if let v = env["HEARTH_OPENWEATHER_KEY"] { setOpenWeatherKey(v) }
            if let v = env["HEARTH_OPENWEATHER_KEY_FILE"] { setOpenWeatherKeyFile(v) }
        }

        mutating func setOpenHABToken(_ token: String) {
            openHABToken = token
            openHABTokenFile = nil
        }

        mutating func setOpenHABTokenFile(_ file: String) {
            openHABTokenFile = file
            openHABToken = nil
        }

        mutating func setOpenWeatherKey(_ key: String) {
            openWeatherKey = key
            openWeatherKeyFile = nil
        }

        mutating func setOpenWeatherKeyFile(_ file: String) {
            openWeatherKeyFile = file
            openWeatherKey = nil
        }

        /// Why the geocoder is off although functions may want one: the public Nominatim needs a user agent.
        var geocoderNotice: String? {
            guard geocoderURL.map({ $0.isEmpty }) ?? true, geocoderUserAgent.map({ $0.isEmpty }) ?? true else { return nil }
            return "no geocoder for functions: the public Nominatim (\(NominatimGeocoder.defaultBaseURL)) needs a User-Agent naming the app and a contact (--geocoder-user-agent, HEARTH_GEOCODER_USER_AGENT), or give --geocoder-url"
        }

        /// The services configured, checked: a URL that is not http(s), an unreadable token or key file, a token
        /// without an openHAB URL or an OpenWeather URL without a key is refused.
        ///
        /// - The geocoder is on with `geocoderURL`, or with a user agent alone (then on the public Nominatim);
        ///   without a user agent it sends ``defaultUserAgent``.
        /// - openHAB is on with its URL (a token is optional).
        /// - OpenWeather is on with its key.
        func configuration() throws -> OutsideServicesConfiguration {
            var configuration = OutsideServicesConfiguration()
            let agent = geocoderUserAgent?.trimmingCharacters(in: .whitespacesAndNewlines)
            if let url = geocoderURL, !url.isEmpty {
                configuration.nominatim = .init(
                    baseURL: try Self.checkedURL(url, "the geocoder URL (--geocoder-url, HEARTH_GEOCODER_URL)"),
                    userAgent: agent.flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultUserAgent)
            } else if let agent, !agent.isEmpty {
                configuration.nominatim = .init(userAgent: agent)
            }
            let token = try Self.secret(openHABToken, file: openHABTokenFile, "the openHAB token file")
            if let url = openHABURL, !url.isEmpty {
                configuration.openHAB = .init(baseURL: try Self.checkedURL(url, "the openHAB URL (--openhab-url, HEARTH_OPENHAB_URL)"), token: token)
            } else if token != nil {
                throw Failure(description: "an openHAB token needs the openHAB server's URL (--openhab-url, HEARTH_OPENHAB_URL)")
            }
            let key = try Self.secret(openWeatherKey, file: openWeatherKeyFile, "the OpenWeather API key file")
            let weatherURL = try openWeatherURL.flatMap { $0.isEmpty ? nil : $0 }.map {
                try Self.checkedURL($0, "the OpenWeather URL (--openweather-url, HEARTH_OPENWEATHER_URL)")
            }
            if let key {
                configuration.openWeather = .init(baseURL: weatherURL ?? OpenWeatherClient.defaultBaseURL, apiKey: key)
            } else if weatherURL != nil {
                throw Failure(
                    description: "the OpenWeather URL needs an API key (--openweather-key-file, HEARTH_OPENWEATHER_KEY_FILE or HEARTH_OPENWEATHER_KEY)")
            }
            return configuration
        }

        /// What a self-hosted geocoder given by URL alone is told the client is.
        static let defaultUserAgent = "Hearth server functions (self-hosted)"

        /// `url` if it is an http(s) URL with a host and no query or fragment (trailing slashes dropped).
        static func checkedURL(_ url: String, _ name: String) throws -> String {
            var trimmed = url.trimmingCharacters(in: .whitespaces)
            while trimmed.hasSuffix("/") { trimmed.removeLast() }
            guard let parsed = URL(string: trimmed), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), let host = parsed.host,
                !host.isEmpty, parsed.query == nil, parsed.fragment == nil
            else {
                throw Failure(description: "\(name) must be an http(s) URL such as https://host[:port][/path], got \"\(url)\"")
            }
            return trimmed
        }

        /// The secret read from `file` (trimmed) or given inline; nil when neither or empty.
        static func secret(_ inline: String?, file: String?, _ name: String) throws -> String? {
            var value = inline
            if let file {
                guard let data = FileManager.default.contents(atPath: file) else { throw Failure(description: "cannot read \(name) \(file)") }
                value = String(decoding: data, as: UTF8.self)
            }
            guard let trimmed = value?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else {
                if file != nil { throw Failure(description: "\(name) \(file!) is empty") }
                return nil
            }
            return trimmed
        }
    }
}
