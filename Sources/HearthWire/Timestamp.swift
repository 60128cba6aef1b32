import Foundation

/// RFC 3339 in UTC with milliseconds and `Z` (`2024-05-01T10:20:30.123Z`), the form Google's APIs
/// (Identity Toolkit's `lastRefreshAt`, Cloud Storage's `timeCreated`/`updated`) use and
/// python-storage's parser requires.
public func rfc3339(milliseconds: Int64) -> String {
    let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    var style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    style.timeZone = TimeZone(identifier: "UTC")!
    return date.formatted(style)
}
