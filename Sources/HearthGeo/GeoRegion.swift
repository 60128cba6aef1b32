/// The area a geo query asks for: a circle (center and radius in meters) or a box.
///
/// ```swift
/// let near = GeoRegion.circle(center: here, radiusMeters: 2_000)
/// near.contains(there)      // within 2 km?
/// near.queryBounds          // the geohash ranges to read
/// ```
public enum GeoRegion: Sendable, Hashable, Codable {
    /// Every point within `radiusMeters` (great-circle distance) of `center`.
    case circle(center: GeoPoint, radiusMeters: Double)
    /// Every point in the box, edges included.
    case box(GeoBox)

    /// The point distances are measured from: the circle's center, or the box's ``GeoBox/center``.
    public var center: GeoPoint {
        switch self {
        case .circle(let center, _): return center
        case .box(let box): return box.center
        }
    }

    /// Whether the region is well formed: a valid center and a radius ≥ 0, or a valid box.
    public var isValid: Bool {
        switch self {
        case .circle(let center, let radius): return center.isValid && radius >= 0
        case .box(let box): return box.isValid
        }
    }

    /// Whether `point` lies in the region.
    public func contains(_ point: GeoPoint) -> Bool {
        switch self {
        case .circle(let center, let radius): return center.distance(to: point) <= radius
        case .box(let box): return box.contains(point)
        }
    }

    /// The geohash ranges that cover the region (``GeoHash/queryBounds(center:radiusMeters:)``,
    /// ``GeoHash/queryBounds(box:)``).
    public var queryBounds: [GeoHashRange] {
        switch self {
        case .circle(let center, let radius): return GeoHash.queryBounds(center: center, radiusMeters: radius)
        case .box(let box): return GeoHash.queryBounds(box: box)
        }
    }

    /// The match for `key` at `location` if the location is valid and in the region, else nil.
    public func match(key: String, location: GeoPoint) -> GeoMatch? {
        guard location.isValid, contains(location) else { return nil }
        return GeoMatch(key: key, location: location, distance: center.distance(to: location))
    }
}
