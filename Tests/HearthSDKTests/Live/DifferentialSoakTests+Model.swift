// Firebase ordering, query shapes and observer checks for DifferentialSoakTests (split from it by aspect).

import Foundation
import Hearth
import HearthCore
import Testing
import FoundationNetworking

// MARK: - Firebase ordering (the model)

/// Firebase's order of index values: null < false < true < numbers < strings < objects; ties by key
/// (integer-like keys first, numerically, then the others as strings).
enum Model {
    static func category(_ v: JSONValue) -> Int {
        switch v {
        case .null: 0
        case .bool(false): 1
        case .bool(true): 2
        case .int, .double: 3
        case .string: 4
        case .array, .object: 5
        }
    }

    static func compareIndex(_ a: JSONValue, _ b: JSONValue) -> Int {
        let (ca, cb) = (category(a), category(b))
        if ca != cb { return ca < cb ? -1 : 1 }
        switch (a, b) {
        case let (.string(x), .string(y)):
            let (ux, uy) = (Array(x.utf16), Array(y.utf16))
            if ux == uy { return 0 }
            return ux.lexicographicallyPrecedes(uy) ? -1 : 1
        default:
            guard ca == 3, let x = a.doubleValue, let y = b.doubleValue else { return 0 }
            return x < y ? -1 : (x > y ? 1 : 0)
        }
    }

    static func integerKey(_ k: String) -> Int32? {
        guard let i = Int32(k), String(i) == k else { return nil }
        return i
    }

    static func compareKeys(_ a: String, _ b: String) -> Int {
        switch (integerKey(a), integerKey(b)) {
        case let (x?, y?): return x < y ? -1 : (x > y ? 1 : 0)
        case (.some, nil): return -1
        case (nil, .some): return 1
        case (nil, nil):
            let (ux, uy) = (Array(a.utf16), Array(b.utf16))
            if ux == uy { return 0 }
            return ux.lexicographicallyPrecedes(uy) ? -1 : 1
        }
    }

    /// The value a child is ordered by (its `score`; null when missing or when the child is not an object).
    static func index(_ child: JSONValue) -> JSONValue {
        child["score"] ?? .null
    }

    static func comparePosition(_ a: (key: String, index: JSONValue), _ b: (key: String, index: JSONValue)) -> Int {
        let c = compareIndex(a.index, b.index)
        return c != 0 ? c : compareKeys(a.key, b.key)
    }

    /// Whether a child passes a shape's bounds.
    static func admits(_ shape: Shape, key: String, index: JSONValue) -> Bool {
        if let s = shape.start {
            let c = compareIndex(index, s.value)
            if let k = s.key {
                let p = c != 0 ? c : compareKeys(key, k)
                if s.strict ? p <= 0 : p < 0 { return false }
            } else if s.strict ? c <= 0 : c < 0 {
                return false
            }
        }
        if let e = shape.end {
            let c = compareIndex(index, e.value)
            if let k = e.key {
                let p = c != 0 ? c : compareKeys(key, k)
                if e.strict ? p >= 0 : p > 0 { return false }
            } else if e.strict ? c >= 0 : c > 0 {
                return false
            }
        }
        return true
    }

    /// The children of `items` a shape selects, in its order.
    static func evaluate(_ shape: Shape, _ items: [String: JSONValue]) -> [(key: String, value: JSONValue)] {
        var rows = items.map { (key: $0.key, value: $0.value) }
        rows.sort { comparePosition(($0.key, index($0.value)), ($1.key, index($1.value))) < 0 }
        rows = rows.filter { admits(shape, key: $0.key, index: index($0.value)) }
        switch shape.limit {
        case .first(let n)?: return Array(rows.prefix(n))
        case .last(let n)?: return Array(rows.suffix(n))
        case nil: return rows
        }
    }

    /// Children by key (the order of a plain reference without priorities).
    static func byKey(_ items: [String: JSONValue]) -> [(key: String, value: JSONValue)] {
        items.map { (key: $0.key, value: $0.value) }.sorted { compareKeys($0.key, $1.key) < 0 }
    }

    /// A form in which equal data compares equal: object members sorted, null members and empty objects dropped,
    /// integral doubles as integers.
    static func canon(_ v: JSONValue) -> JSONValue {
        switch v {
        case .double(let d):
            if let i = Int64(exactly: d) { return .int(i) }
            return v
        case .object(let members):
            let kept = members.map { JSONMember($0.key, canon($0.value)) }.filter { $0.value != .null }
            if kept.isEmpty { return .null }
            return .object(kept.sorted { $0.key < $1.key })
        case .array(let items):
            return .array(items.map(canon))
        default:
            return v
        }
    }

    static func members(_ v: JSONValue) -> [String: JSONValue] {
        guard case .object(let members) = canon(v) else { return [:] }
        var out: [String: JSONValue] = [:]
        for m in members { out[m.key] = m.value }
        return out
    }

    static func render(_ rows: [(key: String, value: JSONValue)]) -> String {
        "[" + rows.map { "\($0.key)=\(short($0.value))" }.joined(separator: ", ") + "]"
    }

    static func short(_ v: JSONValue) -> String {
        let text = v.jsonString
        return text.count > 60 ? String(text.prefix(57)) + "..." : text
    }
}

// MARK: - Queries

struct Bound: Sendable, Hashable {
    var value: JSONValue
    var key: String?
    var strict: Bool

    var primitive: PrimitiveValue {
        switch value {
        case .bool(let b): .bool(b)
        case .int(let i): .int(i)
        case .double(let d): .double(d)
        case .string(let s): .string(s)
        default: .null
        }
    }

    /// The REST parameter value: JSON, then `,"key"` for a tie-breaker.
    var rest: String { value.jsonString + (key.map { ",\(JSONValue.string($0).jsonString)" } ?? "") }
}

enum Limit: Sendable, Hashable {
    case first(Int), last(Int)
}

/// A query on `/items` ordered by child `score`.
struct Shape: Sendable, Hashable, CustomStringConvertible {
    var start: Bound?
    var end: Bound?
    var limit: Limit?

    static let orderOnly = Shape()
    static let first3 = Shape(limit: .first(3))
    static let last3 = Shape(limit: .last(3))
    static let range2to7 = Shape(start: Bound(value: .int(2), strict: false), end: Bound(value: .int(7), strict: false))
    /// Numbers from 3.5 (ties after key k4) up to strings ≤ "m".
    static let mixedRange = Shape(
        start: Bound(value: .double(3.5), key: "k4", strict: false), end: Bound(value: .string("m"), strict: false))
    /// Strictly between 1 and "z", the last four.
    static let openRangeLast4 = Shape(
        start: Bound(value: .int(1), strict: true), end: Bound(value: .string("z"), strict: true), limit: .last(4))
    static let equal5 = Shape(start: Bound(value: .int(5), strict: false), end: Bound(value: .int(5), strict: false))
    /// Children without a score (equalTo null).
    static let missingScore = Shape(start: Bound(value: .null, strict: false), end: Bound(value: .null, strict: false))
    /// From false to 2 (ties up to key k5), the first two.
    static let first5 = Shape(limit: .first(5))
    static let fromA = Shape(start: Bound(value: .string("a"), strict: false))
    static let upTo4Last2 = Shape(end: Bound(value: .int(4), strict: false), limit: .last(2))
    static let boolsFirst2 = Shape(
        start: Bound(value: .bool(false), strict: false), end: Bound(value: .int(2), key: "k5", strict: false), limit: .first(2))

    func query(_ db: Database) -> DatabaseQuery {
        var q = db.reference("items").queryOrdered(byChild: "score")
        if let s = start {
            q = s.strict ? q.queryStarting(afterValue: s.primitive, childKey: s.key) : q.queryStarting(atValue: s.primitive, childKey: s.key)
        }
        if let e = end {
            q = e.strict ? q.queryEnding(beforeValue: e.primitive, childKey: e.key) : q.queryEnding(atValue: e.primitive, childKey: e.key)
        }
        switch limit {
        case .first(let n)?: q = q.queryLimited(toFirst: n)
        case .last(let n)?: q = q.queryLimited(toLast: n)
        case nil: break
        }
        return q
    }

    var restParameters: [URLQueryItem] {
        var items = [URLQueryItem(name: "orderBy", value: #""score""#)]
        if let s = start { items.append(URLQueryItem(name: s.strict ? "startAfter" : "startAt", value: s.rest)) }
        if let e = end { items.append(URLQueryItem(name: e.strict ? "endBefore" : "endAt", value: e.rest)) }
        switch limit {
        case .first(let n)?: items.append(URLQueryItem(name: "limitToFirst", value: "\(n)"))
        case .last(let n)?: items.append(URLQueryItem(name: "limitToLast", value: "\(n)"))
        case nil: break
        }
        return items
    }

    var description: String {
        var parts = ["score"]
        if let s = start { parts.append("\(s.strict ? "after" : "start") \(s.rest)") }
        if let e = end { parts.append("\(e.strict ? "before" : "end") \(e.rest)") }
        switch limit {
        case .first(let n)?: parts.append("first \(n)")
        case .last(let n)?: parts.append("last \(n)")
        case nil: break
        }
        return parts.joined(separator: " ")
    }
}

/// A query on `/items` answered by the server over admin REST.
func restQuery(port: Int, _ shape: Shape) async throws -> JSONValue {
    var components = URLComponents(string: "http://127.0.0.1:\(port)/items.json")!
    components.queryItems = shape.restParameters
    // URLComponents leaves `+` as is, and a query string's `+` is a space (as on Firebase's servers).
    components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
    var request = URLRequest(url: components.url!)
    request.setValue("Bearer owner", forHTTPHeaderField: "Authorization")
    let (data, response) = try await URLSession.shared.data(for: request)
    guard (response as? HTTPURLResponse)?.statusCode == 200 else {
        throw AdminRESTError(message: "GET \(components.url!): \(String(decoding: data, as: UTF8.self))")
    }
    return try JSONValue.parse(Array(data))
}

// MARK: - Observers

enum Target: CustomStringConvertible {
    /// A plain reference.
    case location(String)
    /// A query on `/items`.
    case items(Shape)
    /// `/own` ordered by key, the first `n` (a tagged listen on data that only grows).
    case ownFirst(Int)

    var description: String {
        switch self {
        case .location(let path): "/\(path)"
        case .items(let shape): "/items by \(shape)"
        case .ownFirst(let n): "/own by key first \(n)"
        }
    }

    /// Whether the observed data has children whose order the snapshot reports.
    var isList: Bool {
        switch self {
        case .location(let path): path == "items" || path == "own"
        case .items, .ownFirst: true
        }
    }

    /// Whether this observes `/own`, whose values only grow.
    var isOwn: Bool {
        switch self {
        case .location(let path): path == "own"
        case .ownFirst: true
        case .items: false
        }
    }

    func query(_ db: Database) -> any DatabaseQueryable {
        switch self {
        case .location(let path): db.reference(path)
        case .items(let shape): shape.query(db)
        case .ownFirst(let n): db.reference("own").queryOrderedByKey().queryLimited(toFirst: n)
        }
    }
}

/// One observer of one app; `start` (re)creates it.
final class Slot {
    let client: Int
    let target: Target
    let childEvents: Bool
    private(set) var snapshots: EventRecorder<DataSnapshot>?
    private(set) var events: EventRecorder<ChildEvent>?
    private(set) var generation = 0

    init(client: Int, _ target: Target, childEvents: Bool = false) {
        self.client = client
        self.target = target
        self.childEvents = childEvents
    }

    var label: String { "c\(client) \(childEvents ? "childEvents" : "snapshots")(\(target))#\(generation)" }

    func start(_ db: Database) {
        stop()
        generation += 1
        let query = target.query(db)
        if childEvents {
            events = EventRecorder(query.childEvents())
        } else {
            snapshots = EventRecorder(query.snapshots())
        }
    }

    func stop() {
        snapshots?.stop()
        events?.stop()
        snapshots = nil
        events = nil
    }
}

/// What the server holds, and what each observed location or query should show.
struct Expected {
    var items: [String: JSONValue]
    var counters: JSONValue
    var own: [String: JSONValue]

    func rows(_ target: Target) -> [(key: String, value: JSONValue)] {
        switch target {
        case .location("items"): Model.byKey(items)
        case .location("own"): Model.byKey(own)
        case .location: []
        case .items(let shape): Model.evaluate(shape, items)
        case .ownFirst(let n): Array(Model.byKey(own).prefix(n))
        }
    }

    func value(_ target: Target) -> JSONValue {
        switch target {
        case .location("counters"): return counters
        case .location(let path) where path.hasPrefix("items/"):
            return items[String(path.dropFirst("items/".count))] ?? .null
        default:
            return Model.canon(.object(rows(target).map { JSONMember($0.key, $0.value) }))
        }
    }
}

/// How one observer differs from the expected data (nil when it agrees).
func difference(_ slot: Slot, _ expected: Expected) -> String? {
    let want = expected.value(slot.target)
    if let recorder = slot.snapshots {
        if let error = recorder.error { return "\(slot.label): failed: \(error)" }
        if recorder.isFinished { return "\(slot.label): finished" }
        guard let last = recorder.all.last else { return "\(slot.label): no snapshot yet" }
        return difference(last, slot.target, expected, label: slot.label)
    }
    if let recorder = slot.events {
        if let error = recorder.error { return "\(slot.label): failed: \(error)" }
        if recorder.isFinished { return "\(slot.label): finished" }
        let state = fold(recorder.all).state
        let got = Model.canon(.object(state.keys.sorted().map { JSONMember($0, state[$0]!) }))
        if got != want { return "\(slot.label): folded events \(Model.short(got)) expected \(Model.short(want))" }
        return nil
    }
    return "\(slot.label): not started"
}

/// How a snapshot of `target` differs from the expected data (nil when it agrees).
func difference(_ snapshot: DataSnapshot, _ target: Target, _ expected: Expected, label: String) -> String? {
    let want = expected.value(target)
    let got = Model.canon(snapshot.value)
    if got != want { return "\(label): value \(Model.short(got)) expected \(Model.short(want))" }
    if target.isList {
        let rows = snapshot.children.map { (key: $0.key ?? "?", value: Model.canon($0.value)) }
        let wantRows = expected.rows(target)
        if rows.map(\.key) != wantRows.map(\.key) {
            return "\(label): children order \(rows.map(\.key)) expected \(wantRows.map(\.key)) (\(Model.render(wantRows)))"
        }
    }
    if snapshot.isFromCache { return "\(label): latest snapshot still isFromCache" }
    return nil
}

/// Child events folded into the children they describe, and events that cannot follow the ones before them.
func fold(_ events: [ChildEvent]) -> (state: [String: JSONValue], anomalies: [String]) {
    var state: [String: JSONValue] = [:]
    var anomalies: [String] = []
    for (i, event) in events.enumerated() {
        let key = event.snapshot.key ?? "?"
        let present = state[key] != nil
        switch event {
        case .added:
            if present { anomalies.append("#\(i) added \(key) already present") }
            state[key] = Model.canon(event.snapshot.value)
        case .changed, .moved:
            if !present { anomalies.append("#\(i) \(event.eventType) \(key) not present") }
            state[key] = Model.canon(event.snapshot.value)
        case .removed:
            if !present { anomalies.append("#\(i) removed \(key) not present") }
            state[key] = nil
        }
        if let previous = event.previousSiblingKey, state[previous] == nil, event.eventType != .childRemoved {
            anomalies.append("#\(i) \(event.eventType) \(key) after unknown \(previous)")
        }
    }
    return (state, anomalies)
}

/// Things that must hold for every snapshot an observer ever got: a limited query never shows more children than
/// its limit, a range query only children inside its range, listed in query order.
func invariantViolations(_ slot: Slot) -> [String] {
    var out: [String] = []
    if let recorder = slot.events {
        out += fold(recorder.all).anomalies.prefix(3).map { "\(slot.label): \($0)" }
    }
    guard let recorder = slot.snapshots else { return out }
    let snapshots = recorder.all
    if slot.target.isOwn {
        // Each app writes only its own child, one increasing number after the other, and the server applies them
        // in order: no observer may ever see one go back or go away.
        var seen: [String: Int64] = [:]
        for (i, snapshot) in snapshots.enumerated() {
            let values = Model.members(snapshot.value)
            for (key, last) in seen.sorted(by: { $0.key < $1.key }) {
                guard case .int(let now)? = values[key] else {
                    out.append(
                        "\(slot.label) snapshot #\(i): \(key) went from \(last) to \(Model.short(values[key] ?? .null)); snapshots: "
                            + history(snapshots, at: i))
                    continue
                }
                if now < last {
                    out.append(
                        "\(slot.label) snapshot #\(i): \(key) went back from \(last) to \(now) (fromCache \(snapshot.isFromCache)); snapshots: "
                            + history(snapshots, at: i))
                }
            }
            for (key, value) in values { if case .int(let n) = value { seen[key] = n } }
            if out.count > 5 { break }
        }
    }
    if case .location("counters") = slot.target {
        // `/counters/b` only ever grows (increments of 1 to 5): no observer may see it go back. (Not `a`: a
        // transaction made offline shows its stale result over newer server data until the server refuses it.)
        var last: Int64 = 0
        for (i, snapshot) in snapshots.enumerated() {
            let now: Int64
            switch snapshot.value["b"] {
            case .int(let n)?: now = n
            case nil: now = 0
            case let other?:
                out.append("\(slot.label) snapshot #\(i): b is \(Model.short(other))")
                continue
            }
            if now < last {
                out.append(
                    "\(slot.label) snapshot #\(i): b went back from \(last) to \(now) (fromCache \(snapshot.isFromCache)); snapshots: "
                        + history(snapshots, at: i))
            }
            last = now
            if out.count > 5 { break }
        }
    }
    guard case .items(let shape) = slot.target else { return out }
    for (i, snapshot) in snapshots.enumerated() {
        let rows = snapshot.children.map { (key: $0.key ?? "?", value: $0.value) }
        switch shape.limit {
        case .first(let n)?, .last(let n)?:
            if rows.count > n { out.append("\(slot.label) snapshot #\(i): \(rows.count) children over limit \(n)") }
        case nil: break
        }
        for row in rows where !Model.admits(shape, key: row.key, index: Model.index(row.value)) {
            out.append("\(slot.label) snapshot #\(i): \(row.key)=\(Model.short(row.value)) outside the range")
        }
        let sorted = rows.sorted { Model.comparePosition(($0.key, Model.index($0.value)), ($1.key, Model.index($1.value))) < 0 }
        if sorted.map(\.key) != rows.map(\.key) {
            out.append("\(slot.label) snapshot #\(i): children \(rows.map(\.key)) not in query order")
        }
        if out.count > 5 { break }
    }
    return out
}

/// An observer's snapshots, compactly (`~` marks one from the cache); with `at`, the few around that one
/// (which is marked `>`).
func history(_ snapshots: [DataSnapshot], at index: Int? = nil) -> String {
    let range = index.map { max(0, $0 - 3)..<min(snapshots.count, $0 + 2) } ?? snapshots.indices
    return range.map { i in
        (i == index ? ">" : "") + (snapshots[i].isFromCache ? "~" : "") + Model.short(Model.canon(snapshots[i].value))
    }.joined(separator: " ")
}

