#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A position on the earth in degrees (WGS 84): latitude −90…90, longitude −180…180.
///
/// ```swift
/// let berlin = GeoPoint(latitude: 52.5200, longitude: 13.4050)
/// let paris = GeoPoint(latitude: 48.8566, longitude: 2.3522)
/// berlin.distance(to: paris)  // ≈ 877 km, in meters
/// ```
public struct GeoPoint: Sendable, Hashable, Codable {
    /// Degrees north of the equator (negative: south).
    public var latitude: Double
    /// Degrees east of Greenwich (negative: west).
    public var longitude: Double

    /// A point at `latitude`, `longitude` (degrees). Not checked: see ``isValid``.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// The mean earth radius used for distances, in meters (IUGG R1: 6,371,008.8 m).
    public static let earthRadiusMeters = 6_371_008.8

    /// Whether both coordinates are finite and in range: latitude −90…90, longitude −180…180.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && (-90.0...90.0).contains(latitude) && (-180.0...180.0).contains(longitude)
    }

    /// The great-circle distance to `other` in meters (haversine formula on a sphere of radius
    /// ``earthRadiusMeters``). Accurate to about 0.5 % against the WGS 84 ellipsoid.
    public func distance(to other: GeoPoint) -> Double {
        let lat1 = latitude * .pi / 180
        let lat2 = other.latitude * .pi / 180
        let dLat = lat2 - lat1
        let dLon = (other.longitude - longitude) * .pi / 180
        let sinLat = sin(dLat / 2)
        let sinLon = sin(dLon / 2)
        let a = sinLat * sinLat + cos(lat1) * cos(lat2) * sinLon * sinLon
        return 2 * Self.earthRadiusMeters * asin(min(1, a.squareRoot()))
    }
}
