import HearthCore
/// Public: `GeoRegion`, `GeoHashRange` and `GeoMatch` are in this file's public API.
public import HearthGeo
import Synchronization

/// A live geo query: the children of a location whose GeoFire location (see
/// ``DatabaseReference/setLocation(_:forKey:)``) lies in a circle or a box.
///
/// Iterating it listens to one range query per geohash range of the region
/// (`queryOrdered(byChild: "g").queryStarting(atValue: start).queryEnding(beforeValue: end)`, see
/// ``GeoHash/queryBounds(center:radiusMeters:)``), filters the results by true distance (or by the box),
/// and yields ``GeoEvent``s: an `entered` for every key inside, `ready` once every range has answered,
/// then `entered`, `moved` and `exited` as the data changes. Listening stops when iteration ends.
///
/// ```swift
/// let nearby = db.reference("couchLocations").geoQuery(center: here, radiusMeters: 5_000)
/// let nearest = try await nearby.matches().prefix(10)     // one shot
/// for try await event in nearby { … }                     // live
/// ```
/// Give the location an index on `g` in the rules (`".indexOn": ["g"]`) so the server can answer the
/// ranges from it.
public struct GeoQuery: AsyncSequence, Sendable {
    /// Iteration throws only ``DatabaseError``.
    public typealias Failure = DatabaseError

    /// The location whose children are queried.
    public let ref: DatabaseReference
    /// The circle or box asked for.
    public let region: GeoRegion
    /// The geohash ranges read (empty when the region is not valid: the query then matches nothing).
    public let ranges: [GeoHashRange]

    init(ref: DatabaseReference, region: GeoRegion) {
        self.ref = ref
        self.region = region
        self.ranges = region.queryBounds
    }

    /// The range queries the geo query is made of, one per entry of ``ranges``.
    public var queries: [DatabaseQuery] {
        ranges.map { range in
            ref.queryOrdered(byChild: "g").queryStarting(atValue: .string(range.start)).queryEnding(beforeValue: .string(range.end))
        }
    }

    /// The keys in the region now, nearest first (equal distances by key): every range read once, as
    /// ``DatabaseQueryable/getSnapshot()`` reads (from the server when online).
    public func matches() async throws(DatabaseError) -> [GeoMatch] {
        let queries = self.queries
        let nodes: [Node]
        do {
            nodes = try await withThrowingTaskGroup(of: Node.self) { group in
                for query in queries {
                    group.addTask { try await query.getSnapshot().node }
                }
                var all: [Node] = []
                for try await node in group { all.append(node) }
                return all
            }
        } catch {
            throw DatabaseEventStream<GeoEvent>.map(error)
        }
        var found: [String: GeoPoint] = [:]
        for node in nodes { found.merge(GeoFireLayout.locations(in: node)) { first, _ in first } }
        let region = self.region
        return found.compactMap { region.match(key: $0.key, location: $0.value) }.sorted(by: GeoMatch.nearestFirst)
    }

    /// Starts listening; iterate from one task.
    public func makeAsyncIterator() -> AsyncIterator {
        let (ticks, continuation) = AsyncThrowingStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let state = GeoQueryState(rangeCount: ranges.count)
        if ranges.isEmpty {
            continuation.yield()
            continuation.finish()
            return AsyncIterator(region: region, state: state, ticks: ticks.makeAsyncIterator())
        }
        let engine = ref.database.engine
        var ids: [Int] = []
        for (index, query) in queries.enumerated() {
            let spec: ViewSpec
            do {
                spec = try query.viewSpec()
            } catch {
                continuation.finish(throwing: error)
                break
            }
            let id = engine.makeSubscriptionID()
            ids.append(id)
            let sink: @Sendable (ViewUpdate) -> Void = { update in
                switch update {
                case .value(let node, _):
                    state.update(range: index, GeoFireLayout.locations(in: node))
                    continuation.yield()
                case .failed(let error): continuation.finish(throwing: error)
                case .finished: continuation.finish()
                case .children: break
                }
            }
            engine.commands.yield(.subscribe(Subscription(id: id, spec: spec, kind: .value, sink: sink)))
        }
        let subscribed = ids
        continuation.onTermination = { _ in
            for id in subscribed { engine.commands.yield(.unsubscribe(id)) }
        }
        return AsyncIterator(region: region, state: state, ticks: ticks.makeAsyncIterator())
    }

    /// Yields the events in order; not `Sendable`, so iterate from one task.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let region: GeoRegion
        let state: GeoQueryState
        var ticks: AsyncThrowingStream<Void, any Error>.AsyncIterator
        /// The keys reported inside, with the location last reported.
        var inside: [String: GeoPoint] = [:]
        var sentReady = false
        var pending: [GeoEvent] = []

        init(region: GeoRegion, state: GeoQueryState, ticks: AsyncThrowingStream<Void, any Error>.AsyncIterator) {
            self.region = region
            self.state = state
            self.ticks = ticks
        }

        /// The next event; nil once the database is closed or the task is cancelled. Throws when a
        /// range's listen fails (the rules refuse the read: ``DatabaseError/Code/permissionDenied``);
        /// the sequence ends after throwing.
        public mutating func next() async throws(DatabaseError) -> GeoEvent? {
            try await next(isolation: nil)
        }

        /// The next event, like ``next()``, without leaving the caller's actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(DatabaseError) -> GeoEvent? {
            while pending.isEmpty {
                let tick: Void?
                do {
                    tick = try await ticks.next(isolation: actor)
                } catch {
                    throw DatabaseEventStream<GeoEvent>.map(error)
                }
                guard tick != nil else { return nil }
                // Diff the current union of all ranges against what was reported: ranges that changed
                // together (a key moving from one range into another) have usually all been updated by now.
                let (current, complete) = state.current()
                pending = Self.diff(from: inside, to: current, region: region)
                inside = current.filter { region.contains($0.value) }
                if complete, !sentReady {
                    sentReady = true
                    pending.append(.ready)
                }
            }
            return pending.removeFirst()
        }

        /// The events that turn `old` (keys inside) into `new` (all keys read, inside or not).
        static func diff(from old: [String: GeoPoint], to new: [String: GeoPoint], region: GeoRegion) -> [GeoEvent] {
            var events: [GeoEvent] = []
            for key in old.keys.sorted() where new[key].map({ !region.contains($0) }) ?? true {
                events.append(.exited(key: key))
            }
            var entered: [GeoMatch] = []
            var moved: [GeoMatch] = []
            for (key, point) in new {
                guard let match = region.match(key: key, location: point) else { continue }
                if let before = old[key] {
                    if before != point { moved.append(match) }
                } else {
                    entered.append(match)
                }
            }
            events += entered.sorted(by: GeoMatch.nearestFirst).map { .entered(key: $0.key, location: $0.location, distance: $0.distance) }
            events += moved.sorted(by: GeoMatch.nearestFirst).map { .moved(key: $0.key, location: $0.location, distance: $0.distance) }
            return events
        }
    }
}

/// What each range of a live ``GeoQuery`` last reported, shared between the database's sinks and the iterator.
final class GeoQueryState: Sendable {
    private struct Ranges {
        var locations: [[String: GeoPoint]]
        var arrived: [Bool]
        /// For each key, the range that reported it last (it wins while two ranges disagree).
        var latest: [String: Int] = [:]
    }

    private let ranges: Mutex<Ranges>

    init(rangeCount: Int) {
        ranges = Mutex(Ranges(locations: Array(repeating: [:], count: rangeCount), arrived: Array(repeating: false, count: rangeCount)))
    }

    func update(range index: Int, _ locations: [String: GeoPoint]) {
        ranges.withLock { state in
            let previous = state.locations[index]
            state.locations[index] = locations
            state.arrived[index] = true
            for (key, point) in locations where previous[key] != point { state.latest[key] = index }
        }
    }

    /// Every key read by any range with its location, and whether every range has answered.
    func current() -> (locations: [String: GeoPoint], complete: Bool) {
        ranges.withLock { state in
            var all: [String: GeoPoint] = [:]
            for (index, locations) in state.locations.enumerated() {
                for (key, point) in locations where all[key] == nil || state.latest[key] == index { all[key] = point }
            }
            state.latest = state.latest.filter { all[$0.key] != nil }
            return (all, !state.arrived.contains(false))
        }
    }
}
