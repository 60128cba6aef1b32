/// Public: `JSONValue` is in this file's public API.
public import HearthCore

/// What ``Functions/countBy(_:into:namespace:name:retry:key:)`` counts a value under: the entry's key below
/// the target and the label stored beside its count.
public struct CountKey: Sendable, Hashable {
    /// Identifies the entry (`"lego"`); values with equal keys count together. Stored as the child's key
    /// (see ``storedKey``); an empty key is not counted.
    public var key: String
    /// Stored as the entry's `name` (say, the name as the user wrote it); nil stores none.
    public var label: JSONValue?

    /// A key and its label: `CountKey(SearchKey.normalize(name), label: .string(name))`.
    public init(_ key: String, label: JSONValue? = nil) {
        self.key = key
        self.label = label
    }

    /// The database key the entry is stored under: ``key`` with `%`, `.`, `#`, `$`, `[`, `]`, `/` and control
    /// characters written as `%XX` (UTF-8, upper-case hex), so that any text makes a valid key, cut to at most
    /// 768 bytes at a character boundary. A key without those characters is stored as it is.
    public var storedKey: String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for character in key {
            var piece: [UInt8] = []
            for unit in character.utf8 {
                switch unit {
                case UInt8(ascii: "%"), UInt8(ascii: "."), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "["),
                    UInt8(ascii: "]"), UInt8(ascii: "/"), 0..<0x20, 0x7F:
                    piece += [UInt8(ascii: "%"), hex[Int(unit >> 4)], hex[Int(unit & 0xF)]]
                default:
                    piece.append(unit)
                }
            }
            if out.count + piece.count > Limits.maxKeyBytes { break }
            out += piece
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension Functions {
    /// Keeps a count of the values at `source` per key, at `{target}/{key}` as `{"name": label, "count": n}`:
    /// the number of wishes per gift name, of members per team, of listings per city.
    ///
    /// ```swift
    /// try functions.countBy("/wishes/{uid}/{wishId}", into: "topGifts") { wish in
    ///     guard let name = wish["name"]?.stringValue else { return nil }
    ///     return CountKey(SearchKey.normalize(name), label: .string(name))
    /// }
    /// // Readers: db.reference("topGifts").queryOrdered(byChild: "count").queryStarting(atValue: 1).queryLimited(toLast: 10)
    /// ```
    ///
    /// Registers an `onValueWritten(source)` trigger. For each event, `key` is asked for the key of the value
    /// before and after the change (nil: not counted, as an absent value is). When the keys differ, the old
    /// entry's count goes down by one and the new one's up by one, both in one atomic write
    /// (``AdminDatabase/atomically(once:namespace:_:)``) that claims the event's id: a retried event counts
    /// once, and concurrent events never lose a count. An entry whose count reaches exactly 0 is removed. A
    /// change that keeps the key (a description edited, the name's case changed when the key ignores case)
    /// writes nothing; the stored `name` is the label of the last value counted in, and other children of an
    /// entry are kept.
    ///
    /// Counts are not clamped at 0. Events can run out of order (a retried create after its delete), so a
    /// count can be -1 for a moment, until the other event brings it back; clamping would make that final
    /// count wrong forever. Readers show only entries with `count > 0`: order by `count` and start at 1
    /// (`queryStarting(atValue: 1)`, REST `orderBy="count"&startAt=1`), with `.indexOn: ["count"]` at `target`.
    ///
    /// - Parameters:
    ///   - source: the pattern of the counted values, `/wishes/{uid}/{wishId}` (as for ``onValueWritten(_:namespace:name:retry:_:)``).
    ///   - target: where the entries live (`topGifts`), in the same database as the source.
    ///   - namespace: the database (default: the project's).
    ///   - name: the function's stable name (default: `countBy:{target}:{source}`, with the namespace if given).
    ///   - retry: as for every trigger.
    ///   - key: the entry a value counts under (see ``CountKey``; its ``CountKey/storedKey`` is the child's key);
    ///     nil for a value that is not counted. It must depend only on the value: it is asked again on a retry.
    public mutating func countBy(
        _ source: String, into target: String, namespace: String? = nil, name: String? = nil, retry: RetryPolicy = .default,
        key: @escaping @Sendable (JSONValue) -> CountKey?
    ) throws(FunctionsError) {
        let aggregate = try CountAggregate(target: target, key: key)
        let functionName = name ?? "countBy:\(namespace.map { $0 + ":" } ?? "")\(aggregate.target):\(source)"
        try onValueWritten(source, namespace: namespace, name: functionName, retry: retry) { event, context in
            try await aggregate.apply(eventID: event.id, before: event.before, after: event.after, namespace: event.namespace, in: context.database)
        }
    }
}

/// The counting of ``Functions/countBy(_:into:namespace:name:retry:key:)``, apart from its trigger so that tests
/// can apply crafted events (out of order, repeated).
package struct CountAggregate: Sendable {
    /// The entries' parent, validated.
    package let target: Path
    let key: @Sendable (JSONValue) -> CountKey?

    package init(target: String, key: @escaping @Sendable (JSONValue) -> CountKey?) throws(FunctionsError) {
        do {
            self.target = try Path.validated(target)
        } catch {
            throw FunctionsError("Invalid count target \"\(target)\": \(error.message)")
        }
        guard !self.target.isRoot else { throw FunctionsError("A count target is a location below the root, not \"/\"") }
        self.key = key
    }

    /// The entry a value counts under: nil when `key` says so or gives an empty key.
    func entry(of value: JSONValue) -> (key: String, label: JSONValue?)? {
        guard value != .null, let counted = key(value) else { return nil }
        let stored = counted.storedKey
        return stored.isEmpty ? nil : (stored, counted.label)
    }

    /// Applies one event: -1 on the old entry, +1 on the new one, once per `eventID`. Returns whether it wrote
    /// (false: the keys are equal, or the event was applied before).
    @discardableResult
    package func apply(eventID: String, before: JSONValue, after: JSONValue, namespace: String?, in database: AdminDatabase) async throws
        -> Bool
    {
        let old = entry(of: before)
        let new = entry(of: after)
        // Decided by the event alone, so a retry decides the same: nothing to write, nothing to claim.
        if old?.key == new?.key { return false }
        let target = self.target.description.drop { $0 == "/" }
        let applied: Void? = try await database.atomically(once: eventID, namespace: namespace) { data, writes in
            if let old { try Self.add(-1, to: "\(target)/\(old.key)", label: old.label, data: data, writes: &writes) }
            if let new { try Self.add(1, to: "\(target)/\(new.key)", label: new.label, data: data, writes: &writes) }
        }
        return applied != nil
    }

    /// Records `count + delta` at `entry` (removing the entry at exactly 0). An increment stores `label` as
    /// the entry's name; a decrement keeps the name there, or stores `label` where the entry was absent.
    private static func add(_ delta: Int64, to entry: String, label: JSONValue?, data: AtomicSnapshot, writes: inout AtomicWrites) throws {
        let stored = try data.value(entry)
        let count: Int64 =
            switch stored["count"] {
            case .int(let n)?: n
            case .double(let d)? where d.isFinite && d.rounded() == d && abs(d) < 9e15: Int64(d)
            default: 0
            }
        let next = count + delta
        if next == 0 {
            writes[entry] = .null
            return
        }
        writes["\(entry)/count"] = .int(next)
        if let label, delta > 0 || stored["name"] == nil {
            writes["\(entry)/name"] = label
        }
    }
}
