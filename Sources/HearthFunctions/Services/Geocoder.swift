/// Public: `HTTPClient` is in this file's public API.
public import AsyncHTTPClient
import Foundation
import NIOHTTP1
import HearthCore

/// Turns an address into a place on the map, for a function that stores a listing's coordinates, say.
///
/// Use the one the server is configured with, `context.services.geocoder`; tests inject a double
/// (`FixedGeocoder` in HearthTesting).
public protocol Geocoder: Sendable {
    /// The best match for `address`; nil when the service knows no such place. Throws
    /// ``OutsideServiceError`` when the service fails (unreachable, too slow, refusing).
    func geocode(_ address: String) async throws -> GeocodedPlace?
}

/// A place a ``Geocoder`` found.
public struct GeocodedPlace: Sendable, Hashable, Codable {
    /// Degrees north (WGS 84).
    public var latitude: Double
    /// Degrees east (WGS 84).
    public var longitude: Double
    /// The city, town, village or municipality it lies in, when the service names one.
    public var city: String?
    /// The service's full name of the place (`"Alexanderplatz, Mitte, Berlin, 10178, Deutschland"`).
    public var displayName: String?

    /// A place at `latitude`, `longitude`.
    public init(latitude: Double, longitude: Double, city: String? = nil, displayName: String? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.city = city
        self.displayName = displayName
    }
}

/// A ``Geocoder`` on an OpenStreetMap Nominatim-compatible search API:
/// `GET {baseURL}/search?q=…&format=jsonv2&addressdetails=1&limit=1`.
///
/// Nominatim's usage policy asks every application to identify itself with its own `User-Agent` (and the
/// public instance allows about one request a second): pass a name and a contact, such as
/// `"StaysBackend/1.0 (ops@example.com)"`.
public struct NominatimGeocoder: Geocoder {
    /// The public OpenStreetMap instance.
    public static let defaultBaseURL = "https://nominatim.openstreetmap.org"

    let transport: ServiceTransport
    /// Sent as `User-Agent` with every request.
    public let userAgent: String

    /// A geocoder that calls `baseURL` through `httpClient` (in a function: `context.httpClient`). Throws
    /// ``OutsideServiceError`` when `baseURL` is not an http(s) URL or `userAgent` is empty.
    public init(baseURL: String = Self.defaultBaseURL, userAgent: String, httpClient: HTTPClient, options: OutsideServiceOptions = .init()) throws {
        let agent = userAgent.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !agent.isEmpty else {
            throw OutsideServiceError(service: "Nominatim", message: "a User-Agent naming the application is required (Nominatim's usage policy)")
        }
        self.userAgent = agent
        transport = ServiceTransport(
            service: "Nominatim", baseURL: try ServiceTransport.checkedBaseURL(baseURL, service: "Nominatim"), httpClient: httpClient,
            options: options, secrets: [])
    }

    /// The first search result for `address` (nil for none, or for a blank address without asking).
    public func geocode(_ address: String) async throws -> GeocodedPlace? {
        let query = address.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !query.isEmpty else { return nil }
        let path = "/search?q=\(ServiceTransport.queryEncoded(query))&format=jsonv2&addressdetails=1&limit=1"
        let answer = try await transport.send(.GET, path, headers: [("User-Agent", userAgent), ("Accept", "application/json")])
        guard (200...299).contains(answer.status) else { throw transport.statusError(answer, "answered HTTP \(answer.status)") }
        guard case .array(let results) = try? JSONValue.parse(answer.body) else { throw transport.unreadable(answer, "not a JSON array") }
        guard let first = results.first else { return nil }
        guard let latitude = Self.coordinate(first["lat"]), let longitude = Self.coordinate(first["lon"]),
            (-90...90).contains(latitude), (-180...180).contains(longitude)
        else { throw transport.unreadable(answer, "no lat/lon in the first result") }
        let address = first["address"]
        let city = ["city", "town", "village", "municipality"].lazy.compactMap { address?[$0]?.stringValue }.first
        return GeocodedPlace(latitude: latitude, longitude: longitude, city: city, displayName: first["display_name"]?.stringValue)
    }

    /// Nominatim writes coordinates as strings (`"52.5170365"`); numbers are taken too.
    private static func coordinate(_ value: JSONValue?) -> Double? {
        guard let value else { return nil }
        return value.doubleValue ?? value.stringValue.flatMap(Double.init)
    }
}
