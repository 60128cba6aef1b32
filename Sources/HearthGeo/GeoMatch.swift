/// One result of a geo query: a key, its stored location, and its distance in meters from the
/// query's center (a circle's center, or a box's ``GeoBox/center``).
public struct GeoMatch: Sendable, Hashable, Codable {
    /// The child's key under the queried location.
    public var key: String
    /// The stored location (`l`).
    public var location: GeoPoint
    /// Meters from the query's center (``GeoPoint/distance(to:)``).
    public var distance: Double

    /// A match for `key` at `location`, `distance` meters from the center.
    public init(key: String, location: GeoPoint, distance: Double) {
        self.key = key
        self.location = location
        self.distance = distance
    }

    /// Nearest first; equal distances by key, so the order is stable.
    public static func nearestFirst(_ a: GeoMatch, _ b: GeoMatch) -> Bool {
        a.distance != b.distance ? a.distance < b.distance : a.key < b.key
    }
}
