/// Public: `HTTPClient` is in this file's public API.
public import AsyncHTTPClient
import Foundation
import NIOHTTP1
import HearthCore

/// Tells the weather, for a function that switches a listing's heating from the temperature outside, say.
///
/// Use the one the server is configured with, `context.services.weather`; tests inject a double
/// (`FixedWeather` in HearthTesting).
public protocol WeatherProvider: Sendable {
    /// The temperature in `city` now, in °C. Throws ``OutsideServiceError`` (status 404 for a city the service
    /// does not know).
    func currentTemperature(city: String) async throws -> Double
}

/// A ``WeatherProvider`` on OpenWeather's current weather API:
/// `GET {baseURL}/data/2.5/weather?q={city}&units=metric&appid={key}`, answering `main.temp`.
///
/// The API key travels in the query string; it is removed from every error this client throws.
public struct OpenWeatherClient: WeatherProvider {
    /// OpenWeather's API origin.
    public static let defaultBaseURL = "https://api.openweathermap.org"

    let transport: ServiceTransport
    let apiKey: String

    /// A client with `apiKey` that calls `baseURL` through `httpClient` (in a function: `context.httpClient`).
    /// Throws ``OutsideServiceError`` when `baseURL` is not an http(s) URL or the key is empty.
    public init(baseURL: String = Self.defaultBaseURL, apiKey: String, httpClient: HTTPClient, options: OutsideServiceOptions = .init()) throws {
        let key = apiKey.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !key.isEmpty else { throw OutsideServiceError(service: "OpenWeather", message: "an API key is required") }
        self.apiKey = key
        transport = ServiceTransport(
            service: "OpenWeather", baseURL: try ServiceTransport.checkedBaseURL(baseURL, service: "OpenWeather"), httpClient: httpClient,
            options: options, secrets: [key])
    }

    /// `main.temp` of the current weather in `city`, in °C.
    public func currentTemperature(city: String) async throws -> Double {
        let name = city.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw OutsideServiceError(service: "OpenWeather", message: "no city given") }
        let path = "/data/2.5/weather?q=\(ServiceTransport.queryEncoded(name))&units=metric&appid=\(ServiceTransport.queryEncoded(apiKey))"
        let answer = try await transport.send(.GET, path, headers: [("Accept", "application/json")])
        switch answer.status {
        case 200...299: break
        case 404: throw OutsideServiceError(service: "OpenWeather", message: "no city named \"\(name.prefix(100))\" is known", status: 404)
        case 401: throw transport.statusError(answer, "refused the API key")
        default: throw transport.statusError(answer, "answered HTTP \(answer.status)")
        }
        guard let json = try? JSONValue.parse(answer.body) else { throw transport.unreadable(answer, "not JSON") }
        guard let temperature = json["main"]?["temp"]?.doubleValue, temperature.isFinite else {
            throw transport.unreadable(answer, "no main.temp")
        }
        return temperature
    }
}
