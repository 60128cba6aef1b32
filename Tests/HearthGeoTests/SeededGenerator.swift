import HearthGeo

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A deterministic random number generator (SplitMix64), so every run checks the same points.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The point `meters` away from `start` along the great circle leaving it at `bearing` degrees
/// (clockwise from north), on the sphere ``GeoPoint/distance(to:)`` measures on.
func destination(from start: GeoPoint, bearing: Double, meters: Double) -> GeoPoint {
    let angle = meters / GeoPoint.earthRadiusMeters
    let lat1 = start.latitude * .pi / 180
    let lon1 = start.longitude * .pi / 180
    let theta = bearing * .pi / 180
    let lat2 = asin(min(1, max(-1, sin(lat1) * cos(angle) + cos(lat1) * sin(angle) * cos(theta))))
    let lon2 = lon1 + atan2(sin(theta) * sin(angle) * cos(lat1), cos(angle) - sin(lat1) * sin(lat2))
    var longitude = lon2 * 180 / .pi
    while longitude > 180 { longitude -= 360 }
    while longitude < -180 { longitude += 360 }
    return GeoPoint(latitude: min(90, max(-90, lat2 * 180 / .pi)), longitude: longitude)
}

/// Whether any of `ranges` holds `geohash`.
func covered(_ geohash: String, by ranges: [GeoHashRange]) -> Bool {
    ranges.contains { $0.contains(geohash) }
}
