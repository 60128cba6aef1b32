/// A half-open range of geohash strings, `start <= g < end`, as one database range query
/// (`orderByChild("g").startAt(start).endBefore(end)`).
///
/// An `end` of `prefix + "~"` matches every geohash starting with `prefix`, as in GeoFire: `~`
/// sorts after every character of the geohash alphabet.
public struct GeoHashRange: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The smallest matching geohash (inclusive).
    public var start: String
    /// The first geohash past the range (exclusive).
    public var end: String

    /// The range `start ..< end`.
    public init(start: String, end: String) {
        self.start = start
        self.end = end
    }

    /// Whether `geohash` lies in the range (compared character by character, as the database orders strings).
    public func contains(_ geohash: String) -> Bool {
        !geohash.utf8.lexicographicallyPrecedes(start.utf8) && geohash.utf8.lexicographicallyPrecedes(end.utf8)
    }

    /// `[start, end)`.
    public var description: String { "[\(start), \(end))" }
}
