import HearthGeo
import Testing

@Suite("GeoPoint and GeoBox")
struct GeoPointTests {
    @Test func validatesCoordinates() {
        #expect(GeoPoint(latitude: 52.52, longitude: 13.405).isValid)
        #expect(GeoPoint(latitude: 90, longitude: -180).isValid)
        #expect(!GeoPoint(latitude: 90.000_001, longitude: 0).isValid)
        #expect(!GeoPoint(latitude: 0, longitude: -180.5).isValid)
        #expect(!GeoPoint(latitude: .nan, longitude: 0).isValid)
        #expect(!GeoPoint(latitude: 0, longitude: .infinity).isValid)
    }

    @Test func distancesOnTheSphere() {
        let r = GeoPoint.earthRadiusMeters
        let north = GeoPoint(latitude: 90, longitude: 0)
        let south = GeoPoint(latitude: -90, longitude: 45)
        #expect(abs(north.distance(to: south) - .pi * r) < 1e-3)
        // A quarter of the equator.
        #expect(abs(GeoPoint(latitude: 0, longitude: 0).distance(to: GeoPoint(latitude: 0, longitude: 90)) - .pi * r / 2) < 1e-3)
        // One degree of arc across the antimeridian, not 359.
        let across = GeoPoint(latitude: 0, longitude: 179.5).distance(to: GeoPoint(latitude: 0, longitude: -179.5))
        #expect(abs(across - .pi * r / 180) < 1e-3)
        #expect(abs(across - 111_195.08) < 0.1)
        #expect(GeoPoint(latitude: 12.3, longitude: 45.6).distance(to: GeoPoint(latitude: 12.3, longitude: 45.6)) == 0)
    }

    /// Published great-circle distances (mean radius): London–New York ≈ 5,570 km, Berlin–Paris ≈ 878 km.
    @Test func knownCityDistances() {
        let london = GeoPoint(latitude: 51.5074, longitude: -0.1278)
        let newYork = GeoPoint(latitude: 40.7128, longitude: -74.0060)
        let berlin = GeoPoint(latitude: 52.5200, longitude: 13.4050)
        let paris = GeoPoint(latitude: 48.8566, longitude: 2.3522)
        #expect(abs(london.distance(to: newYork) - 5_570_000) < 3_000)
        #expect(abs(berlin.distance(to: paris) - 877_500) < 2_000)
        #expect(abs(london.distance(to: newYork) - newYork.distance(to: london)) < 1e-6)
    }

    @Test func boxContainsAndCenter() {
        let box = GeoBox(southWest: GeoPoint(latitude: 10, longitude: 20), northEast: GeoPoint(latitude: 20, longitude: 40))
        #expect(box.isValid && !box.crossesAntimeridian)
        #expect(box.contains(GeoPoint(latitude: 10, longitude: 40)))
        #expect(!box.contains(GeoPoint(latitude: 9.999, longitude: 30)))
        #expect(!box.contains(GeoPoint(latitude: 15, longitude: 40.001)))
        #expect(box.center == GeoPoint(latitude: 15, longitude: 30))
        #expect(box.longitudeSpan == 20)
    }

    @Test func boxAcrossTheAntimeridian() {
        let fiji = GeoBox(southWest: GeoPoint(latitude: -21, longitude: 176), northEast: GeoPoint(latitude: -12, longitude: -178))
        #expect(fiji.crossesAntimeridian)
        #expect(fiji.longitudeSpan == 6)
        #expect(fiji.center == GeoPoint(latitude: -16.5, longitude: 179))
        #expect(fiji.contains(GeoPoint(latitude: -18, longitude: 178.4)))
        #expect(fiji.contains(GeoPoint(latitude: -18, longitude: -179)))
        #expect(fiji.contains(GeoPoint(latitude: -18, longitude: 180)))
        #expect(!fiji.contains(GeoPoint(latitude: -18, longitude: 0)))
        #expect(!fiji.contains(GeoPoint(latitude: -18, longitude: -177)))
        #expect(!GeoBox(southWest: GeoPoint(latitude: 5, longitude: 0), northEast: GeoPoint(latitude: 4, longitude: 1)).isValid)
    }

    @Test func regionsMatchAndMeasureFromTheirCenter() throws {
        let center = GeoPoint(latitude: 52.52, longitude: 13.405)
        let circle = GeoRegion.circle(center: center, radiusMeters: 1_000)
        let near = GeoPoint(latitude: 52.525, longitude: 13.405)  // ≈ 556 m north
        let match = try #require(circle.match(key: "a", location: near))
        #expect(abs(match.distance - 556) < 1)
        #expect(circle.match(key: "b", location: GeoPoint(latitude: 52.53, longitude: 13.405)) == nil)  // ≈ 1.1 km
        #expect(circle.match(key: "c", location: GeoPoint(latitude: 91, longitude: 0)) == nil)
        #expect(!GeoRegion.circle(center: center, radiusMeters: -1).isValid)
        #expect(GeoRegion.circle(center: center, radiusMeters: -1).queryBounds.isEmpty)
        let matches = [GeoMatch(key: "b", location: near, distance: 5), GeoMatch(key: "a", location: near, distance: 5),
                       GeoMatch(key: "c", location: near, distance: 1)]
        #expect(matches.sorted(by: GeoMatch.nearestFirst).map(\.key) == ["c", "a", "b"])
    }
}
