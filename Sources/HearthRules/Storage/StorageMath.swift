#if canImport(Darwin)
internal import Darwin
#elseif canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#endif

/// The few libm functions the rules language needs (`math.pow`, `latlng.distance`).
enum StorageMath {
    /// Mean Earth radius in metres (the S2 library's value, which Firebase's geo types use).
    static let earthRadius = 6_371_010.0

    static func power(_ base: Double, _ exponent: Double) -> Double { pow(base, exponent) }

    /// Great-circle distance in metres (haversine).
    static func distance(_ lat1: Double, _ lng1: Double, _ lat2: Double, _ lng2: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians
        let dLng = (lng2 - lng1) * radians
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * radians) * cos(lat2 * radians) * sin(dLng / 2) * sin(dLng / 2)
        return 2 * earthRadius * asin(min(1, a.squareRoot()))
    }
}
