/// A latitude/longitude rectangle, given by its south-west and north-east corners.
///
/// A box whose west edge is east of its east edge (`southWest.longitude > northEast.longitude`)
/// crosses the antimeridian (±180°): `GeoBox(southWest: (-10, 170), northEast: (10, -170))` is 20° wide.
///
/// ```swift
/// let fiji = GeoBox(southWest: GeoPoint(latitude: -21, longitude: 176),
///                   northEast: GeoPoint(latitude: -12, longitude: -178))
/// fiji.crossesAntimeridian  // true
/// ```
public struct GeoBox: Sendable, Hashable, Codable {
    /// The south-west corner: the minimum latitude and the west edge.
    public var southWest: GeoPoint
    /// The north-east corner: the maximum latitude and the east edge.
    public var northEast: GeoPoint

    /// A box from its corners (not checked: see ``isValid``).
    public init(southWest: GeoPoint, northEast: GeoPoint) {
        self.southWest = southWest
        self.northEast = northEast
    }

    /// Whether both corners are valid points and the south edge is not north of the north edge.
    public var isValid: Bool {
        southWest.isValid && northEast.isValid && southWest.latitude <= northEast.latitude
    }

    /// Whether the box spans the antimeridian (its west edge lies east of its east edge).
    public var crossesAntimeridian: Bool { southWest.longitude > northEast.longitude }

    /// The box's width in degrees of longitude (0…360).
    public var longitudeSpan: Double {
        crossesAntimeridian ? northEast.longitude + 360 - southWest.longitude : northEast.longitude - southWest.longitude
    }

    /// The middle of the box (on the antimeridian-crossing side when it crosses).
    public var center: GeoPoint {
        var longitude = southWest.longitude + longitudeSpan / 2
        if longitude > 180 { longitude -= 360 }
        return GeoPoint(latitude: (southWest.latitude + northEast.latitude) / 2, longitude: longitude)
    }

    /// Whether `point` lies in the box, edges included.
    public func contains(_ point: GeoPoint) -> Bool {
        guard point.latitude >= southWest.latitude, point.latitude <= northEast.latitude else { return false }
        if crossesAntimeridian {
            return point.longitude >= southWest.longitude || point.longitude <= northEast.longitude
        }
        return point.longitude >= southWest.longitude && point.longitude <= northEast.longitude
    }
}
