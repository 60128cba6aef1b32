import HearthCore
extension StorageEvaluator {
    /// `size toBase64 toHexString`.
    static func bytesMethod(_ b: [UInt8], _ name: StorageMethodName) -> StorageValue? {
        switch name {
        case .size: .int(Int64(b.count))
        case .toBase64: .string(StorageHashing.base64(b))
        case .toHexString: .string(StorageHashing.hex(b))
        default: nil
        }
    }

    /// `date day dayOfWeek dayOfYear hours minutes month nanos seconds time toMillis year`, in UTC.
    static func timestampMethod(_ t: StorageTimestamp, _ name: StorageMethodName) throws(StorageEvalError) -> StorageValue? {
        let (day, second) = t.dayAndSecond
        switch name {
        case .date:
            return .timestamp(StorageTimestamp(seconds: day * 86_400)!)
        case .day: return .int(t.civil.day)
        case .month: return .int(t.civil.month)
        case .year: return .int(t.civil.year)
        case .dayOfWeek: return .int(CivilDate.dayOfWeek(days: day))
        case .dayOfYear:
            let year = t.civil.year
            return .int(day - CivilDate.days(year: year, month: 1, day: 1) + 1)
        case .hours: return .int(second / 3600)
        case .minutes: return .int(second / 60 % 60)
        case .seconds: return .int(second % 60)
        case .nanos: return .int(Int64(t.nanos))
        case .time:
            guard let d = StorageDuration(seconds: second, nanos: Int64(t.nanos)) else { throw StorageEvalError(.overflow) }
            return .duration(d)
        case .toMillis: return .int(t.millis)
        default: return nil
        }
    }

    /// `seconds nanos` (protobuf parts: both carry the duration's sign).
    static func durationMethod(_ d: StorageDuration, _ name: StorageMethodName) -> StorageValue? {
        switch name {
        case .seconds: .int(d.truncatedSeconds)
        case .nanos: .int(d.signedNanos)
        default: nil
        }
    }

    /// `distance latitude longitude`.
    static func latlngMethod(_ lat: Double, _ lng: Double, _ name: StorageMethodName, _ args: [StorageValue]) throws(StorageEvalError) -> StorageValue? {
        switch name {
        case .latitude: return .float(lat)
        case .longitude: return .float(lng)
        case .distance:
            guard case .latlng(let lat2, let lng2) = args[0] else { throw StorageEvalError.type("distance()", args[0]) }
            return .float(StorageMath.distance(lat, lng, lat2, lng2))
        default: return nil
        }
    }

    /// `bind(map)`: fills `$(name)` placeholders from the map.
    static func pathMethod(_ p: StoragePathValue, _ name: StorageMethodName, _ args: [StorageValue]) throws(StorageEvalError) -> StorageValue? {
        guard name == .bind else { return nil }
        guard case .map(let m) = args[0] else { throw StorageEvalError.type("bind()", args[0]) }
        var segments: [StoragePathValue.Segment] = []
        for segment in p.segments {
            guard case .placeholder(let key) = segment else {
                segments.append(segment)
                continue
            }
            switch m[key] {
            case .string(let s)?: segments.append(.literal(s))
            case .int(let i)?: segments.append(.literal(String(i)))
            case nil: segments.append(segment)
            case let other?: throw StorageEvalError.type("bind() value", other)
            }
        }
        return .path(StoragePathValue(segments: segments))
    }
}
