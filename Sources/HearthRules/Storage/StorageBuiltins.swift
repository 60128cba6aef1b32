/// Every method name the language defines, over all receiver types. A call to any other name is a
/// compile error; whether the receiver supports it is decided at evaluation.
enum StorageMethodName: String, Sendable, CaseIterable {
    // string
    case lower, upper, matches, replace, split, toUtf8, trim
    // list / set
    case concat, hasAll, hasAny, hasOnly, join, removeAll, toSet, difference, intersection, union
    // map / map diff
    case diff, get, keys, values, addedKeys, affectedKeys, changedKeys, removedKeys, unchangedKeys
    // several types
    case size
    // bytes
    case toBase64, toHexString
    // timestamp / duration
    case date, day, dayOfWeek, dayOfYear, hours, minutes, month, nanos, seconds, time, toMillis, year
    // latlng
    case distance, latitude, longitude
    // path
    case bind

    var arity: Int {
        switch self {
        case .replace, .get: 2
        case .matches, .split, .concat, .hasAll, .hasAny, .hasOnly, .join, .removeAll, .difference,
            .intersection, .union, .diff, .distance, .bind:
            1
        default: 0
        }
    }

    /// Whether the first argument is a regular expression (compiled ahead of time if literal).
    var takesRegex: Bool { self == .matches || self == .replace || self == .split }
}

/// Global functions (`int(x)`) and namespace functions (`math.abs(x)`).
enum StorageBuiltin: String, Sendable, CaseIterable {
    case int, float, string, bool, path, debug
    case mathAbs = "math.abs", mathCeil = "math.ceil", mathFloor = "math.floor"
    case mathIsInfinite = "math.isInfinite", mathIsNaN = "math.isNaN", mathPow = "math.pow"
    case mathRound = "math.round", mathSqrt = "math.sqrt"
    case timestampDate = "timestamp.date", timestampValue = "timestamp.value"
    case durationAbs = "duration.abs", durationTime = "duration.time", durationValue = "duration.value"
    case hashingCrc32 = "hashing.crc32", hashingCrc32c = "hashing.crc32c"
    case hashingMd5 = "hashing.md5", hashingSha256 = "hashing.sha256"
    case latlngValue = "latlng.value"
    case firestoreGet = "firestore.get", firestoreExists = "firestore.exists"

    var arity: Int {
        switch self {
        case .mathPow, .durationValue, .latlngValue: 2
        case .timestampDate: 3
        case .durationTime: 4
        default: 1
        }
    }

    /// Namespaces that only hold functions (`math.abs`), so `math` alone is not a value.
    static let namespaces: Set<String> = ["math", "timestamp", "duration", "hashing", "latlng", "firestore"]

    /// Cloud Firestore's global functions, rejected with a pointer to `firestore.*`.
    static let firestoreOnly: Set<String> = ["get", "exists", "getAfter", "existsAfter"]
}
