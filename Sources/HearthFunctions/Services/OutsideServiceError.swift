/// An outside service (geocoder, smart home, weather) failed: it could not be reached, did not answer in time,
/// refused the request or answered something unreadable.
///
/// Its ``description`` never holds a token or API key: the clients build the message themselves and redact
/// their secrets from anything they quote.
public struct OutsideServiceError: Error, Sendable, CustomStringConvertible, Hashable {
    /// Which service failed: `"Nominatim"`, `"openHAB"`, `"OpenWeather"` (or a test double's name).
    public var service: String
    /// What went wrong, for a log line or an error answer.
    public var message: String
    /// The HTTP status the service answered with; nil when there was no answer (unreachable, timeout) or the
    /// failure is not an HTTP one.
    public var status: Int?

    /// An error of `service`.
    public init(service: String, message: String, status: Int? = nil) {
        self.service = service
        self.message = message
        self.status = status
    }

    /// `openHAB: no item named Lamp (HTTP 404)`.
    public var description: String {
        "\(service): \(message)" + (status.map { " (HTTP \($0))" } ?? "")
    }

    /// True for a status of 404: the place, item or city does not exist.
    public var isNotFound: Bool { status == 404 }
}
