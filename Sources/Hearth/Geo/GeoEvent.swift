/// Public: `GeoPoint` is in this file's public API.
public import HearthGeo

/// A change to the set of keys a ``GeoQuery`` matches.
///
/// Distances are meters from the query's center (a box query measures from the box's center).
public enum GeoEvent: Sendable, Hashable {
    /// A key is now in the region: it was written there, moved in, or was there when the query started.
    case entered(key: String, location: GeoPoint, distance: Double)
    /// A key in the region has a new location, still inside.
    case moved(key: String, location: GeoPoint, distance: Double)
    /// A key left the region: it moved out or was removed.
    case exited(key: String)
    /// Every range's initial data has arrived: the `entered` events before this one are the
    /// query's initial set. Sent once.
    case ready

    /// The key the event is about (nil for ``ready``).
    public var key: String? {
        switch self {
        case .entered(let key, _, _), .moved(let key, _, _), .exited(let key): return key
        case .ready: return nil
        }
    }
}
