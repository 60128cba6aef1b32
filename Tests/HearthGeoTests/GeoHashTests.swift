import HearthGeo
import Testing

@Suite("GeoHash encoding")
struct GeoHashTests {
    /// Published values: Wikipedia's Jutland example and GeoFire's own test vectors.
    @Test(arguments: [
        (57.64911, 10.40744, 10, "u4pruydqqv"),
        (42.6, -5.6, 5, "ezs42"),
        (37.7853074, -122.4054274, 10, "9q8yywe56g"),
        (38.98719, -77.250783, 10, "dqcjf17sy6"),
        (29.3760648, 47.9818853, 10, "tj4p5gerfz"),
        (78.216667, 15.55, 10, "umghcygjj7"),
        (-54.933333, -67.616667, 10, "4qpzmren1k"),
        (-90.0, -180.0, 10, "0000000000"),
        (90.0, 180.0, 10, "zzzzzzzzzz"),
        (-90.0, 180.0, 10, "pbpbpbpbpb"),
        (90.0, -180.0, 10, "bpbpbpbpbp"),
        (37.7853074, -122.4054274, 1, "9"),
        (37.7853074, -122.4054274, 5, "9q8yy"),
    ])
    func encodesKnownValues(latitude: Double, longitude: Double, precision: Int, expected: String) {
        #expect(GeoHash.encode(GeoPoint(latitude: latitude, longitude: longitude), precision: precision) == expected)
    }

    @Test func defaultPrecisionIsGeoFires() {
        #expect(GeoHash.encode(GeoPoint(latitude: 57.64911, longitude: 10.40744)).count == 10)
    }

    /// GeoFire puts a coordinate on a cell edge in the west/south cell (`value > mid`).
    @Test func edgesGoWestAndSouthLikeGeoFire() {
        #expect(GeoHash.encode(GeoPoint(latitude: 0, longitude: 0)) == "7zzzzzzzzz")
    }

    @Test func decodesTheCell() throws {
        let cell = try #require(GeoHash.decode("u4pruydqqv"))
        #expect(cell.contains(GeoPoint(latitude: 57.64911, longitude: 10.40744)))
        #expect(abs(cell.center.latitude - 57.64911) < 1e-5 && abs(cell.center.longitude - 10.40744) < 1e-5)
        // 10 characters: 25 bits of longitude, 25 of latitude.
        #expect(abs(cell.longitudeSpan - 360 / 33_554_432) < 1e-12)
        #expect(abs(cell.northEast.latitude - cell.southWest.latitude - 180 / 33_554_432) < 1e-12)
        let ezs42 = try #require(GeoHash.decode("ezs42"))
        #expect(abs(ezs42.center.latitude - 42.605) < 0.001 && abs(ezs42.center.longitude - -5.603) < 0.001)
    }

    @Test func rejectsInvalidGeohashes() {
        #expect(GeoHash.decode("") == nil)
        #expect(GeoHash.decode("u4pa") == nil)  // "a" is not in the alphabet
        #expect(GeoHash.decode("U4PR") == nil)
        #expect(GeoHash.decode(String(repeating: "0", count: 23)) == nil)
        #expect(GeoHash.isValid("u4pruydqqv"))
        #expect(!GeoHash.isValid("u4pruydqqi"))
    }

    @Test func decodeInvertsEncodeForRandomPoints() throws {
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<2_000 {
            let p = GeoPoint(latitude: .random(in: -90...90, using: &rng), longitude: .random(in: -180...180, using: &rng))
            for precision in [1, 4, 7, 10, 12] {
                let hash = GeoHash.encode(p, precision: precision)
                let cell = try #require(GeoHash.decode(hash))
                #expect(cell.contains(p), "\(p) not in the cell of \(hash)")
                // The encoding of a prefix is the prefix of the encoding.
                #expect(GeoHash.encode(p, precision: 12).hasPrefix(hash))
            }
        }
    }

    @Test func alphabetIsSortedSoRangesFollowLocality() {
        let letters = GeoHash.alphabet.map { String($0) }
        #expect(letters == letters.sorted())
        #expect(letters.count == 32)
        #expect(letters.allSatisfy { $0 < "~" })
    }
}
