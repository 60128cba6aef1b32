@testable import HearthGeo
import Testing

/// Query bounds checked against a brute-force scan: seeded random points around seeded random centers
/// (and the hard places: both poles, the antimeridian), for every radius the brief names.
@Suite("GeoHash query bounds")
struct QueryBoundsTests {
    static let radii: [Double] = [10, 100, 1_000, 50_000, 1_000_000]

    /// Random centers plus fixed ones at the poles, next to them, on and beside the antimeridian.
    static func centers(seed: UInt64, count: Int) -> [GeoPoint] {
        var rng = SeededGenerator(seed: seed)
        var centers = [
            GeoPoint(latitude: 90, longitude: 0), GeoPoint(latitude: -90, longitude: 0),
            GeoPoint(latitude: 89.9999, longitude: 45), GeoPoint(latitude: -89.9995, longitude: -120),
            GeoPoint(latitude: 89.99, longitude: 180), GeoPoint(latitude: -89.5, longitude: -180),
            GeoPoint(latitude: 0, longitude: 180), GeoPoint(latitude: 0, longitude: -180),
            GeoPoint(latitude: 65.2, longitude: 179.9999), GeoPoint(latitude: -33.1, longitude: -179.99995),
            GeoPoint(latitude: 0, longitude: 0), GeoPoint(latitude: 51.4779, longitude: -0.0015),
        ]
        for _ in 0..<count {
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: centers.append(GeoPoint(latitude: .random(in: 88...90, using: &rng), longitude: .random(in: -180...180, using: &rng)))
            case 1: centers.append(GeoPoint(latitude: .random(in: -90 ... -88, using: &rng), longitude: .random(in: -180...180, using: &rng)))
            case 2:
                let side: Double = Bool.random(using: &rng) ? 180 : -180
                centers.append(GeoPoint(latitude: .random(in: -80...80, using: &rng), longitude: side - (side > 0 ? 1 : -1) * .random(in: 0...0.5, using: &rng)))
            default: centers.append(GeoPoint(latitude: .random(in: -90...90, using: &rng), longitude: .random(in: -180...180, using: &rng)))
            }
        }
        return centers
    }

    @Test(arguments: radii)
    func circleCoverHasNoFalseNegatives(radius: Double) {
        var rng = SeededGenerator(seed: UInt64(radius))
        var checked = 0
        for center in Self.centers(seed: UInt64(radius) &+ 1, count: 60) {
            let ranges = GeoHash.queryBounds(center: center, radiusMeters: radius)
            #expect(!ranges.isEmpty)
            for _ in 0..<400 {
                // Mostly near the edge, where a cover is most likely to be short.
                let fraction = Bool.random(using: &rng) ? Double.random(in: 0.98...1.02, using: &rng) : .random(in: 0...1.02, using: &rng)
                let p = destination(from: center, bearing: .random(in: 0..<360, using: &rng), meters: radius * fraction)
                guard center.distance(to: p) <= radius else { continue }
                checked += 1
                let hash = GeoHash.encode(p)
                #expect(covered(hash, by: ranges), "\(p) (\(hash)) within \(radius) m of \(center) is outside \(ranges)")
            }
            // The circle's extreme points: due north, south, east and west on the edge.
            for bearing in [0.0, 90, 180, 270] {
                let p = destination(from: center, bearing: bearing, meters: radius * 0.999_999)
                if center.distance(to: p) <= radius { #expect(covered(GeoHash.encode(p), by: ranges), "\(p) edge of \(center)") }
            }
        }
        #expect(checked > 10_000)
    }

    @Test(arguments: radii)
    func circleCoverIsFewRanges(radius: Double) {
        for center in Self.centers(seed: UInt64(radius) &+ 2, count: 300) {
            let ranges = GeoHash.queryBounds(center: center, radiusMeters: radius)
            let splits = GeoHash.rectangles(center: center, radiusMeters: radius).count
            #expect(ranges.count <= 9 * splits, "\(ranges.count) ranges for \(radius) m at \(center)")
            #expect(splits <= 2)
            Self.expectWellFormed(ranges)
        }
    }

    /// Away from the poles the cover hugs the circle: nothing 20–40 radii away is read.
    @Test(arguments: [10.0, 100, 1_000, 50_000])
    func circleCoverIsTight(radius: Double) {
        var rng = SeededGenerator(seed: UInt64(radius) &+ 3)
        for _ in 0..<200 {
            let center = GeoPoint(latitude: .random(in: -60...60, using: &rng), longitude: .random(in: -180...180, using: &rng))
            let ranges = GeoHash.queryBounds(center: center, radiusMeters: radius)
            for _ in 0..<50 {
                let p = destination(from: center, bearing: .random(in: 0..<360, using: &rng), meters: radius * .random(in: 20...40, using: &rng))
                #expect(!covered(GeoHash.encode(p), by: ranges), "\(p) is \(center.distance(to: p)) m from \(center), r = \(radius)")
            }
        }
    }

    /// A circle holding a pole holds every longitude near it.
    @Test func circleAroundAPoleCoversAllLongitudes() {
        for pole in [90.0, -90] {
            let center = GeoPoint(latitude: pole - (pole > 0 ? 1 : -1) * 0.00005, longitude: 10)  // ≈ 5.6 m from the pole
            let ranges = GeoHash.queryBounds(center: center, radiusMeters: 10)
            for longitude in stride(from: -180.0, through: 180, by: 7.5) {
                let p = GeoPoint(latitude: pole - (pole > 0 ? 1 : -1) * 0.00001, longitude: longitude)
                #expect(center.distance(to: p) <= 10)
                #expect(covered(GeoHash.encode(p), by: ranges), "\(p)")
            }
        }
    }

    @Test func circleAcrossTheAntimeridianIsSplit() {
        let center = GeoPoint(latitude: -17.7, longitude: 179.99)
        #expect(GeoHash.rectangles(center: center, radiusMeters: 5_000).count == 2)
        let ranges = GeoHash.queryBounds(center: center, radiusMeters: 5_000)
        let east = destination(from: center, bearing: 90, meters: 4_000)
        #expect(east.longitude < -179.9)
        #expect(covered(GeoHash.encode(east), by: ranges))
        #expect(covered(GeoHash.encode(destination(from: center, bearing: 270, meters: 4_000)), by: ranges))
        #expect(!covered(GeoHash.encode(GeoPoint(latitude: -17.7, longitude: 0)), by: ranges))
    }

    @Test func invalidInputsGiveNoRanges() {
        #expect(GeoHash.queryBounds(center: GeoPoint(latitude: 91, longitude: 0), radiusMeters: 10).isEmpty)
        #expect(GeoHash.queryBounds(center: GeoPoint(latitude: 0, longitude: 0), radiusMeters: -1).isEmpty)
        #expect(GeoHash.queryBounds(center: GeoPoint(latitude: 0, longitude: 0), radiusMeters: .nan).isEmpty)
        // Half the earth's circumference or more: everything, as one range.
        let world = GeoHash.queryBounds(center: GeoPoint(latitude: 0, longitude: 0), radiusMeters: 1e9)
        #expect(world.count == 1)
        #expect(covered("0000000000", by: world) && covered("zzzzzzzzzz", by: world) && covered("7zzzzzzzzz", by: world))
    }

    /// The ranges use GeoFire's spelling: `[prefix + c, prefix + c')` or `[prefix…, prefix + "~")`.
    @Test func rangesAreSpelledLikeGeoFire() {
        let ranges = GeoHash.queryBounds(center: GeoPoint(latitude: 57.64911, longitude: 10.40744), radiusMeters: 1_000)
        for range in ranges {
            #expect(range.end.hasSuffix("~") || range.end.count == range.start.count)
            #expect(range.start.allSatisfy { GeoHash.alphabet.contains($0) })
        }
        #expect(covered("u4pruydqqv", by: ranges))
        #expect(GeoHash.range(from: 0b1011, through: 0b1011, bits: 5) == GeoHashRange(start: "c", end: "c~"))
        #expect(GeoHash.range(from: 0b10, through: 0b10, bits: 2) == GeoHashRange(start: "h", end: "s"))
        #expect(GeoHash.range(from: 0b11, through: 0b11, bits: 2) == GeoHashRange(start: "s", end: "~"))
        #expect(GeoHash.range(from: 0, through: 0, bits: 0) == GeoHashRange(start: "", end: "~"))
    }

    // MARK: - Boxes

    static func boxes(seed: UInt64, count: Int) -> [GeoBox] {
        var rng = SeededGenerator(seed: seed)
        var boxes = [
            GeoBox(southWest: GeoPoint(latitude: -21, longitude: 176), northEast: GeoPoint(latitude: -12, longitude: -178)),
            GeoBox(southWest: GeoPoint(latitude: 89, longitude: -180), northEast: GeoPoint(latitude: 90, longitude: 180)),
            GeoBox(southWest: GeoPoint(latitude: -90, longitude: 179), northEast: GeoPoint(latitude: -89, longitude: -179)),
            GeoBox(southWest: GeoPoint(latitude: 10, longitude: 10), northEast: GeoPoint(latitude: 10, longitude: 10)),
            GeoBox(southWest: GeoPoint(latitude: -90, longitude: -180), northEast: GeoPoint(latitude: 90, longitude: 180)),
        ]
        for _ in 0..<count {
            let height = [0.0001, 0.01, 1, 20][Int.random(in: 0..<4, using: &rng)] * .random(in: 0.5...2, using: &rng)
            let width = [0.0001, 0.01, 1, 40][Int.random(in: 0..<4, using: &rng)] * .random(in: 0.5...2, using: &rng)
            let south = Double.random(in: -90...(90 - height), using: &rng)
            var west = Double.random(in: -180...180, using: &rng)
            if Bool.random(using: &rng) { west = 180 - width * .random(in: 0...1, using: &rng) }  // often across ±180
            var east = west + width
            if east > 180 { east -= 360 }
            boxes.append(GeoBox(southWest: GeoPoint(latitude: south, longitude: west), northEast: GeoPoint(latitude: south + height, longitude: east)))
        }
        return boxes
    }

    @Test func boxCoverHasNoFalseNegativesAndFewRanges() {
        var rng = SeededGenerator(seed: 99)
        var crossing = 0
        for box in Self.boxes(seed: 98, count: 400) {
            #expect(box.isValid)
            let ranges = GeoHash.queryBounds(box: box)
            if box.crossesAntimeridian { crossing += 1 }
            #expect(ranges.count <= (box.crossesAntimeridian ? 18 : 9), "\(ranges.count) ranges for \(box)")
            Self.expectWellFormed(ranges)
            let sw = box.southWest
            let ne = box.northEast
            var points = [sw, ne, GeoPoint(latitude: sw.latitude, longitude: ne.longitude), GeoPoint(latitude: ne.latitude, longitude: sw.longitude), box.center]
            for _ in 0..<200 {
                var longitude = sw.longitude + box.longitudeSpan * .random(in: 0...1, using: &rng)
                if longitude > 180 { longitude -= 360 }
                points.append(GeoPoint(latitude: .random(in: sw.latitude...ne.latitude, using: &rng), longitude: longitude))
            }
            for p in points where box.contains(p) {
                #expect(covered(GeoHash.encode(p), by: ranges), "\(p) in \(box) is outside \(ranges)")
            }
            // Outside, well away from the box in latitude: not read (unless the box is huge).
            if ne.latitude - sw.latitude < 1, box.longitudeSpan < 1, ne.latitude < 80, sw.latitude > -80 {
                let far = GeoPoint(latitude: ne.latitude + 5, longitude: sw.longitude)
                #expect(!covered(GeoHash.encode(far), by: ranges))
            }
        }
        #expect(crossing > 100)
    }

    static func expectWellFormed(_ ranges: [GeoHashRange]) {
        for range in ranges { #expect(range.start.utf8.lexicographicallyPrecedes(range.end.utf8), "\(range)") }
        for (a, b) in zip(ranges, ranges.dropFirst()) {
            #expect(a.end.utf8.lexicographicallyPrecedes(b.start.utf8), "\(a) and \(b) overlap or touch")
        }
    }
}
