/// Public: `HTTPClient` is in this file's public API.
public import AsyncHTTPClient
import Foundation
import Logging

/// The outside services a server's functions may call, reached as `context.services`: a geocoder, a smart
/// home and a weather provider, each nil when the server has none.
///
/// The server fills them from its configuration (`--geocoder-url`, `--openhab-url`, `--openweather-key-file`,
/// …; see ``OutsideServicesConfiguration``) with HTTP clients on the functions' shared `HTTPClient`. A test
/// sets the services themselves, usually doubles:
///
/// ```swift
/// let services = OutsideServices(weather: FixedWeather(["Berlin": 4.5]))
/// let server = LiveServer(functions: functions, outsideServices: services)
/// ```
public struct OutsideServices: Sendable {
    /// Address → place; nil when none is configured.
    public var geocoder: (any Geocoder)?
    /// Smart-home items; nil when none is configured.
    public var smartHome: (any SmartHomeClient)?
    /// Current temperatures; nil when none is configured.
    public var weather: (any WeatherProvider)?
    /// The HTTP services to make, on the functions' HTTP client, for the ones above left nil.
    public var configuration: OutsideServicesConfiguration

    /// Services given directly (any left nil is made from `configuration`, if it configures one).
    public init(
        geocoder: (any Geocoder)? = nil, smartHome: (any SmartHomeClient)? = nil, weather: (any WeatherProvider)? = nil,
        configuration: OutsideServicesConfiguration = OutsideServicesConfiguration()
    ) {
        self.geocoder = geocoder
        self.smartHome = smartHome
        self.weather = weather
        self.configuration = configuration
    }

    /// The geocoder, or an ``OutsideServiceError`` saying that none is configured.
    public func requireGeocoder() throws -> any Geocoder {
        guard let geocoder else { throw OutsideServiceError(service: "geocoder", message: "no geocoder is configured (--geocoder-url, --geocoder-user-agent)") }
        return geocoder
    }

    /// The smart home, or an ``OutsideServiceError`` saying that none is configured.
    public func requireSmartHome() throws -> any SmartHomeClient {
        guard let smartHome else { throw OutsideServiceError(service: "smart home", message: "no smart home is configured (--openhab-url)") }
        return smartHome
    }

    /// The weather provider, or an ``OutsideServiceError`` saying that none is configured.
    public func requireWeather() throws -> any WeatherProvider {
        guard let weather else { throw OutsideServiceError(service: "weather", message: "no weather service is configured (--openweather-key-file)") }
        return weather
    }

    /// These services with the configured HTTP clients made on `httpClient` for the ones left nil. A
    /// configuration that cannot make its client (a bad URL, which the command line refuses at start) is
    /// logged and leaves the service nil.
    package func resolved(httpClient: HTTPClient, logger: Logger) -> OutsideServices {
        var services = self
        let configuration = self.configuration
        func make<T>(_ name: String, _ body: () throws -> T?) -> T? {
            do { return try body() } catch {
                logger.error("\(name) for functions not set up: \(error)")
                return nil
            }
        }
        if services.geocoder == nil {
            services.geocoder = make("geocoder") { try configuration.nominatim.map { try $0.client(httpClient: httpClient, options: configuration.options) } }
        }
        if services.smartHome == nil {
            services.smartHome = make("smart home") { try configuration.openHAB.map { try $0.client(httpClient: httpClient, options: configuration.options) } }
        }
        if services.weather == nil {
            services.weather = make("weather") { try configuration.openWeather.map { try $0.client(httpClient: httpClient, options: configuration.options) } }
        }
        return services
    }
}

/// Which HTTP services the server's functions get, as `hearth serve` reads them from its flags,
/// environment and config file. Its descriptions never show a token or key.
public struct OutsideServicesConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// The geocoder (nil: none).
    public var nominatim: Nominatim?
    /// The smart home (nil: none).
    public var openHAB: OpenHAB?
    /// The weather provider (nil: none).
    public var openWeather: OpenWeather?
    /// Timeout, retries and answer size for all three.
    public var options: OutsideServiceOptions

    /// A configuration; the default configures nothing.
    public init(nominatim: Nominatim? = nil, openHAB: OpenHAB? = nil, openWeather: OpenWeather? = nil, options: OutsideServiceOptions = .init()) {
        self.nominatim = nominatim
        self.openHAB = openHAB
        self.openWeather = openWeather
        self.options = options
    }

    /// True when no service is configured.
    public var isEmpty: Bool { nominatim == nil && openHAB == nil && openWeather == nil }

    /// The configured services, secrets left out: `geocoder https://… , smart home http://…`.
    public var description: String {
        let parts = [nominatim?.description, openHAB?.description, openWeather?.description].compactMap { $0 }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }

    /// Throws ``OutsideServiceError`` for a URL that is not http(s), an empty user agent or key: what the
    /// clients would refuse.
    public func validate() throws {
        _ = try nominatim.map { try ServiceTransport.checkedBaseURL($0.baseURL, service: "Nominatim") }
        _ = try openHAB.map { try ServiceTransport.checkedBaseURL($0.baseURL, service: "openHAB") }
        _ = try openWeather.map { try ServiceTransport.checkedBaseURL($0.baseURL, service: "OpenWeather") }
        if let nominatim, nominatim.userAgent.trimmingCharacters(in: .whitespaces).isEmpty {
            throw OutsideServiceError(service: "Nominatim", message: "a User-Agent naming the application is required")
        }
        if let openWeather, openWeather.apiKey.trimmingCharacters(in: .whitespaces).isEmpty {
            throw OutsideServiceError(service: "OpenWeather", message: "an API key is required")
        }
    }

    /// A Nominatim-compatible geocoder.
    public struct Nominatim: Sendable, Hashable, CustomStringConvertible {
        /// The API's origin (default ``NominatimGeocoder/defaultBaseURL``).
        public var baseURL: String
        /// The `User-Agent` naming the application, as Nominatim's usage policy requires.
        public var userAgent: String

        /// The geocoder at `baseURL`.
        public init(baseURL: String = NominatimGeocoder.defaultBaseURL, userAgent: String) {
            self.baseURL = baseURL
            self.userAgent = userAgent
        }

        /// `geocoder <baseURL>`.
        public var description: String { "geocoder \(baseURL)" }

        /// The client on `httpClient`.
        public func client(httpClient: HTTPClient, options: OutsideServiceOptions = .init()) throws -> NominatimGeocoder {
            try NominatimGeocoder(baseURL: baseURL, userAgent: userAgent, httpClient: httpClient, options: options)
        }
    }

    /// An openHAB server.
    public struct OpenHAB: Sendable, Hashable, CustomStringConvertible {
        /// Its origin, such as `http://openhab.local:8080`.
        public var baseURL: String
        /// The API token sent as `Authorization: Bearer …`; nil sends none.
        public var token: String?

        /// The openHAB server at `baseURL`.
        public init(baseURL: String, token: String? = nil) {
            self.baseURL = baseURL
            self.token = token
        }

        /// `smart home (openHAB) <baseURL>`, and whether a token is set (never the token).
        public var description: String { "smart home (openHAB) \(baseURL)\(token == nil ? " without a token" : " with a token")" }

        /// The client on `httpClient`.
        public func client(httpClient: HTTPClient, options: OutsideServiceOptions = .init()) throws -> OpenHABClient {
            try OpenHABClient(baseURL: baseURL, token: token, httpClient: httpClient, options: options)
        }
    }

    /// OpenWeather's current weather API.
    public struct OpenWeather: Sendable, Hashable, CustomStringConvertible {
        /// The API's origin (default ``OpenWeatherClient/defaultBaseURL``).
        public var baseURL: String
        /// The API key (`appid`).
        public var apiKey: String

        /// The API at `baseURL` with `apiKey`.
        public init(baseURL: String = OpenWeatherClient.defaultBaseURL, apiKey: String) {
            self.baseURL = baseURL
            self.apiKey = apiKey
        }

        /// `weather (OpenWeather) <baseURL>` (never the key).
        public var description: String { "weather (OpenWeather) \(baseURL)" }

        /// The client on `httpClient`.
        public func client(httpClient: HTTPClient, options: OutsideServiceOptions = .init()) throws -> OpenWeatherClient {
            try OpenWeatherClient(baseURL: baseURL, apiKey: apiKey, httpClient: httpClient, options: options)
        }
    }
}
