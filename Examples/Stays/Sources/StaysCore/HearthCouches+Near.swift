import Foundation
import Hearth
import HearthCore
import HearthGeo

extension HearthCouches {
    /// The couches within `radiusMeters` of `center`, nearest first, through the GeoFire index `/couchLocations`
    /// (`{g: geohash, l: [lat, lng]}`, kept by a trigger from each couch's `location`).
    func couches(near center: GeoPoint, radiusMeters: Double) async throws(AppError) -> [NearbyCouch] {
        guard radiusMeters > 0 else { return [] }
        return try await mapped {
            let matches = try await database.reference("couchLocations").geoQuery(center: center, radiusMeters: radiusMeters).matches()
            var found: [NearbyCouch] = []
            for match in matches.sorted(by: { ($0.distance, $0.key) < ($1.distance, $1.key) }) {
                // A location may outlive its couch for a moment (the trigger removes it after the couch).
                if let couch = try await decodedValue(database.reference("couches").child(match.key), Couch.self, id: \.id) {
                    found.append(NearbyCouch(couch: couch, distance: match.distance))
                }
            }
            return found
        }
    }
}

/// Meters between two points on a sphere of the earth's mean radius (haversine), for the in-memory world and the
/// distance of a city search's couches from the searched place.
func haversineMeters(_ a: GeoPoint, _ b: GeoPoint) -> Double {
    let radius = 6_371_008.8
    let (lat1, lat2) = (a.latitude * .pi / 180, b.latitude * .pi / 180)
    let dLat = lat2 - lat1
    let dLng = (b.longitude - a.longitude) * .pi / 180
    let h = sin(dLat / 2) * sin(dLat / 2) + cos(lat1) * cos(lat2) * sin(dLng / 2) * sin(dLng / 2)
    return 2 * radius * asin(min(1, sqrt(h)))
}
