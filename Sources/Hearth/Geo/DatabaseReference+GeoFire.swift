import HearthCore
/// Public: `GeoPoint` and `GeoBox` are in this file's public API.
public import HearthGeo

extension DatabaseReference {
    /// Stores `point` for `key` in GeoFire's layout, at `child(key)`:
    /// `{"g": geohash, "l": [latitude, longitude]}` with the geohash (10 characters) also as the
    /// child's priority, exactly as GeoFire's clients write it — so GeoFire apps and Hearth apps can
    /// share the data. Replaces whatever `child(key)` held.
    ///
    /// ```swift
    /// let locations = db.reference("couchLocations")
    /// try await locations.setLocation(GeoPoint(latitude: 52.52, longitude: 13.405), forKey: "couch-1")
    /// ```
    /// Throws ``DatabaseError/Code/invalidData`` for a point that is not ``GeoPoint/isValid``.
    public func setLocation(_ point: GeoPoint, forKey key: String) async throws(DatabaseError) {
        let target = child(key)
        guard point.isValid else {
            throw .invalidData(target.path, "The latitude must be -90…90 and the longitude -180…180")
        }
        try await target.setValue(json: Self.geoFireJSON(point))
    }

    /// Removes `key`'s location (the whole `child(key)`).
    public func removeLocation(forKey key: String) async throws(DatabaseError) {
        try await child(key).removeValue()
    }

    /// The stored location of `key`, or nil when there is none in GeoFire's layout.
    public func location(forKey key: String) async throws(DatabaseError) -> GeoPoint? {
        GeoFireLayout.location(of: try await child(key).getSnapshot().node)
    }

    /// The keys whose location is within `radiusMeters` of `center`, live: see ``GeoQuery``.
    ///
    /// ```swift
    /// for try await event in db.reference("couchLocations").geoQuery(center: here, radiusMeters: 5_000) {
    ///     switch event {
    ///     case .entered(let key, _, let distance): show(key, distance)
    ///     case .moved(let key, _, let distance): update(key, distance)
    ///     case .exited(let key): hide(key)
    ///     case .ready: stopSpinner()
    ///     }
    /// }
    /// ```
    public func geoQuery(center: GeoPoint, radiusMeters: Double) -> GeoQuery {
        GeoQuery(ref: self, region: .circle(center: center, radiusMeters: radiusMeters))
    }

    /// The keys whose location is in `box` (which may cross the antimeridian), live: see ``GeoQuery``.
    public func geoQuery(in box: GeoBox) -> GeoQuery {
        GeoQuery(ref: self, region: .box(box))
    }

    static func geoFireJSON(_ point: GeoPoint) -> JSONValue {
        let hash = GeoHash.encode(point)
        return .object([
            JSONMember(".priority", .string(hash)),
            JSONMember("g", .string(hash)),
            JSONMember("l", .array([.double(point.latitude), .double(point.longitude)])),
        ])
    }
}

/// Reading GeoFire's `{g, l}` children.
enum GeoFireLayout {
    static let hashKey = Key("g")
    static let locationKey = Key("l")

    /// The location in `node.l` (`[latitude, longitude]`), nil when absent or not valid.
    static func location(of node: Node) -> GeoPoint? {
        let l = node.child(locationKey)
        guard let latitude = l.child(Key("0")).leafValue?.doubleValue, let longitude = l.child(Key("1")).leafValue?.doubleValue
        else { return nil }
        let point = GeoPoint(latitude: latitude, longitude: longitude)
        return point.isValid ? point : nil
    }

    /// Every child of `node` with a location, by key.
    static func locations(in node: Node) -> [String: GeoPoint] {
        var out: [String: GeoPoint] = [:]
        for (key, child) in node.children {
            if let point = location(of: child) { out[key.string] = point }
        }
        return out
    }
}
