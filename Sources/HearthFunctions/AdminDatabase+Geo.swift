import HearthCore
import HearthDatabase
/// Public: `GeoPoint`, `GeoBox` and `GeoMatch` are in this file's public API.
public import HearthGeo
import HearthStore

extension AdminDatabase {
    /// The children of `path` stored in GeoFire's layout (`{g: geohash, l: [lat, lng]}`, as the SDK's
    /// `setLocation` writes them) whose location is within `radiusMeters` of `center`, nearest first
    /// (equal distances by key).
    ///
    /// Reads one indexed range of `g` per geohash range (``GeoHash/queryBounds(center:radiusMeters:)``)
    /// in a single consistent snapshot, then filters by true distance. Declare `".indexOn": ["g"]` on
    /// `path` in the rules so the store answers from the index instead of reading every child.
    ///
    /// ```swift
    /// let near = try await context.database.geoQuery(at: "/couchLocations", center: here, radiusMeters: 5_000)
    /// return near.prefix(20).map(\.key)
    /// ```
    /// Throws ``FunctionsError`` for an invalid path or namespace, a center that is not
    /// ``GeoPoint/isValid`` or a radius that is negative or not a number.
    public func geoQuery(at path: String, center: GeoPoint, radiusMeters: Double, namespace: String? = nil) async throws -> [GeoMatch] {
        guard center.isValid else { throw FunctionsError("The center must have a latitude in -90…90 and a longitude in -180…180") }
        guard radiusMeters >= 0 else { throw FunctionsError("The radius must be a number of meters ≥ 0") }
        return try await geoQuery(at: path, region: .circle(center: center, radiusMeters: radiusMeters), namespace: namespace)
    }

    /// The children of `path` in GeoFire's layout whose location is in `box` (edges included; a box
    /// may cross the antimeridian), nearest to the box's center first. See
    /// ``geoQuery(at:center:radiusMeters:namespace:)``.
    public func geoQuery(at path: String, in box: GeoBox, namespace: String? = nil) async throws -> [GeoMatch] {
        guard box.isValid else { throw FunctionsError("The box's corners must be valid points, south-west below north-east") }
        return try await geoQuery(at: path, region: .box(box), namespace: namespace)
    }

    private func geoQuery(at path: String, region: GeoRegion, namespace: String?) async throws -> [GeoMatch] {
        let location: Path
        do {
            location = try Path.validated(path)
        } catch {
            throw FunctionsError("Invalid path \"\(path)\": \(error.message)")
        }
        let order = Query.Order.child(Path("g"))
        let queries = region.queryBounds.map { range in
            Query(
                order: order, start: Query.Bound(value: .string(range.start)), end: Query.Bound(value: .string(range.end), strict: true))
        }
        let name = namespace ?? defaultNamespace
        guard NamespaceRegistry.isValid(name) else { throw FunctionsError("Invalid namespace \"\(name)\"") }
        let nodes: [Node]
        do {
            nodes = try await service.withNamespace(name) { namespace in
                try await namespace.database.store.snapshot { reader in try queries.map { try reader.query(location, $0) } }
            }
        } catch DatabaseError.namespace(let error) where error.code == .notFound {
            throw FunctionsError("There is no database \"\(name)\"")
        }
        var found: [String: GeoPoint] = [:]
        for node in nodes {
            for (key, child) in node.children where found[key.string] == nil {
                if let point = Self.geoFireLocation(child) { found[key.string] = point }
            }
        }
        return found.compactMap { region.match(key: $0.key, location: $0.value) }.sorted(by: GeoMatch.nearestFirst)
    }

    /// The location in a child's `l` (`[latitude, longitude]`); nil when absent or malformed.
    private static func geoFireLocation(_ child: Node) -> GeoPoint? {
        let l = child.child(Key("l"))
        guard let latitude = l.child(Key("0")).leafValue?.doubleValue, let longitude = l.child(Key("1")).leafValue?.doubleValue
        else { return nil }
        return GeoPoint(latitude: latitude, longitude: longitude)
    }
}
