/// Geohashes as GeoFire writes them: base32 strings (`0123456789bcdefghjkmnpqrstuvwxyz`) whose
/// bits alternately halve the longitude and the latitude range, longitude first.
///
/// ```swift
/// GeoHash.encode(GeoPoint(latitude: 57.64911, longitude: 10.40744))  // "u4pruydqqv"
/// GeoHash.decode("u4pruydqqv")?.center                               // ≈ 57.64911, 10.40744
/// let ranges = GeoHash.queryBounds(center: here, radiusMeters: 1_000)
/// ```
public enum GeoHash {
    /// The base32 alphabet, in sort order (digits, then lowercase letters without a, i, l and o).
    public static let alphabet: [Character] = Array("0123456789bcdefghjkmnpqrstuvwxyz")

    /// The precision GeoFire stores: 10 characters (50 bits), cells of about 1.2 m × 0.6 m.
    public static let defaultPrecision = 10

    /// The longest supported geohash: 22 characters (110 bits).
    public static let maximumPrecision = 22

    static let values: [UInt8: Int] = {
        var map: [UInt8: Int] = [:]
        for (i, c) in alphabet.enumerated() { map[c.asciiValue!] = i }
        return map
    }()

    /// The geohash of `point` with `precision` characters (1…22).
    ///
    /// A coordinate exactly on a cell edge goes to the west/south cell, as in GeoFire. `point`
    /// should be ``GeoPoint/isValid``; out-of-range coordinates are clamped.
    public static func encode(_ point: GeoPoint, precision: Int = defaultPrecision) -> String {
        let precision = min(max(precision, 1), maximumPrecision)
        var lat = (min: -90.0, max: 90.0)
        var lon = (min: -180.0, max: 180.0)
        let latitude = point.latitude.isNaN ? 0 : point.latitude
        let longitude = point.longitude.isNaN ? 0 : point.longitude
        var out: [Character] = []
        out.reserveCapacity(precision)
        var value = 0
        var bits = 0
        var even = true
        while out.count < precision {
            if even {
                let mid = (lon.min + lon.max) / 2
                if longitude > mid {
                    value = value << 1 | 1
                    lon.min = mid
                } else {
                    value <<= 1
                    lon.max = mid
                }
            } else {
                let mid = (lat.min + lat.max) / 2
                if latitude > mid {
                    value = value << 1 | 1
                    lat.min = mid
                } else {
                    value <<= 1
                    lat.max = mid
                }
            }
            even.toggle()
            bits += 1
            if bits == 5 {
                out.append(alphabet[value])
                value = 0
                bits = 0
            }
        }
        return String(out)
    }

    /// The cell a geohash stands for (nil when it is empty or has a character outside ``alphabet``);
    /// its ``GeoBox/center`` is the usual decoded point.
    public static func decode(_ geohash: String) -> GeoBox? {
        guard !geohash.isEmpty, geohash.utf8.count <= maximumPrecision else { return nil }
        var lat = (min: -90.0, max: 90.0)
        var lon = (min: -180.0, max: 180.0)
        var even = true
        for byte in geohash.utf8 {
            guard let value = values[byte] else { return nil }
            for shift in stride(from: 4, through: 0, by: -1) {
                let bit = (value >> shift) & 1 == 1
                if even {
                    let mid = (lon.min + lon.max) / 2
                    if bit { lon.min = mid } else { lon.max = mid }
                } else {
                    let mid = (lat.min + lat.max) / 2
                    if bit { lat.min = mid } else { lat.max = mid }
                }
                even.toggle()
            }
        }
        return GeoBox(
            southWest: GeoPoint(latitude: lat.min, longitude: lon.min), northEast: GeoPoint(latitude: lat.max, longitude: lon.max))
    }

    /// Whether `geohash` is non-empty, at most 22 characters, and uses only ``alphabet``.
    public static func isValid(_ geohash: String) -> Bool {
        !geohash.isEmpty && geohash.utf8.count <= maximumPrecision && geohash.utf8.allSatisfy { values[$0] != nil }
    }
}
