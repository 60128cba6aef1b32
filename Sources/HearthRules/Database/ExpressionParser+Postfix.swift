extension ExpressionParser {
    /// A primary followed by any number of `.name`, `.name(args)` and `[index]`: member access,
    /// method calls (on snapshots and strings, with their argument counts and types checked) and
    /// index access, each checked against the type of what it follows.
    mutating func parsePostfix() throws(RulesError) -> (Expr, StaticType) {
        var (e, t) = try parsePrimary()
        while true {
            skipSpace()
            let here = i
            if take(".") {
                skipSpace()
                let nameAt = i
                guard let name = identifier() else { throw fail("Expected a name after '.'") }
                if scalarsAhead("(") {
                    (e, t) = try call(e, t, name, at: nameAt)
                } else {
                    (e, t) = try property(e, t, name, at: nameAt)
                }
            } else if take("[") {
                skipSpace()
                let argAt = i
                let (index, it) = try parseConditional()
                try expect("]")
                if t == .snapshot {
                    // `root['exists']()`: a literal method name in brackets is a call.
                    if case .literal(.string(let name)) = index, scalarsAhead("(") {
                        (e, t) = try call(e, t, name, at: argAt)
                        continue
                    }
                    throw fail("No such method/property: snapshots have no [] access (use child())", at: here)
                }
                guard t == .map || t == .any else { throw fail("[] access needs an object, not a \(t.name)", at: here) }
                if Self.isSnapshotValue(e) {
                    throw fail("No such method/property: a snapshot's value has no [] access (use child(...).val())", at: here)
                }
                guard [.string, .number, .any].contains(it) else { throw fail("A \(it.name) cannot index an object", at: argAt) }
                (e, t) = (.index(e, index), .any)
            } else {
                return (e, t)
            }
        }
    }

    /// Whether `e` is `<snapshot>.val()` or `.getPriority()`.
    static func isSnapshotValue(_ e: Expr) -> Bool {
        if case .snapshot(_, let method, _) = e, method == .val || method == .getPriority { return true }
        return false
    }

    mutating func scalarsAhead(_ s: Unicode.Scalar) -> Bool {
        skipSpace()
        return i < scalars.count && scalars[i] == s
    }

    mutating func property(_ e: Expr, _ t: StaticType, _ name: String, at position: Int) throws(RulesError) -> (Expr, StaticType) {
        switch t {
        case .query:
            guard let field = QueryField(rawValue: name) else { throw fail("No such property: query.\(name)", at: position) }
            let type: StaticType
            switch field {
            case .orderByKey, .orderByValue, .orderByPriority: type = .boolean
            case .orderByChild: type = .any
            case .limitToFirst, .limitToLast: type = .any
            case .startAt, .endAt, .equalTo: type = .any
            }
            return (.queryField(field), type)
        case .string:
            guard name == "length" else { throw fail("No such property: strings have length, not \(name)", at: position) }
            return (.member(e, name), .number)
        case .map, .any:
            // `data.val().a` is a compile error in Firebase (children are read with child()); a
            // string value's `length` is the one property.
            if Self.isSnapshotValue(e) && name != "length" {
                throw fail("No such method/property: \(name) (a snapshot's value has no properties; use child('\(name)').val())", at: position)
            }
            return (.member(e, name), .any)
        case .snapshot:
            throw fail("No such method/property: \(name) (snapshot methods are called, e.g. \(name)())", at: position)
        default:
            throw fail("No such property: a \(t.name) has no \(name)", at: position)
        }
    }

    mutating func call(_ e: Expr, _ t: StaticType, _ name: String, at position: Int) throws(RulesError) -> (Expr, StaticType) {
        try expect("(")
        if t == .snapshot {
            guard let method = SnapshotMethod(rawValue: name) else {
                throw fail("No such method/property: \(name)", at: position)
            }
            skipSpace()
            let argAt = i
            var args: [(Expr, StaticType)] = []
            if method == .hasChildren, scalarsAhead("[") {
                args.append(try stringList())
                try expect(")")
            } else {
                args = try arguments()
            }
            let arity: ClosedRange<Int>
            let result: StaticType
            switch method {
            case .val, .getPriority: (arity, result) = (0...0, .any)
            case .parent: (arity, result) = (0...0, .snapshot)
            case .child: (arity, result) = (1...1, .snapshot)
            case .hasChild: (arity, result) = (1...1, .boolean)
            case .hasChildren: (arity, result) = (0...1, .boolean)
            case .exists, .isNumber, .isString, .isBoolean: (arity, result) = (0...0, .boolean)
            }
            guard arity.contains(args.count) else {
                throw fail("\(name)() takes \(arity.lowerBound == arity.upperBound ? "\(arity.lowerBound)" : "\(arity.lowerBound) or \(arity.upperBound)") argument(s)", at: position)
            }
            if method == .hasChildren, let a = args.first, a.1 != .list {
                throw fail("hasChildren() takes an array literal of child names, e.g. hasChildren(['a', 'b'])", at: argAt)
            }
            if method == .child || method == .hasChild, let a = args.first, ![.string, .any, .null].contains(a.1) {
                throw fail("\(name)() takes a string path, not a \(a.1.name)", at: argAt)
            }
            if method == .val || method == .getPriority || method == .parent || method == .child {
                // Nothing more to check.
            }
            return (.snapshot(e, method, args.map(\.0)), result)
        }
        guard t == .string || t == .any else {
            throw fail("No such method: a \(t.name) has no \(name)()", at: position)
        }
        if name == "matches" {
            skipSpace()
            guard i < scalars.count, scalars[i] == "/" else { throw fail("matches() takes a regular expression literal, e.g. /^a+$/", at: i) }
            let regex = try regexLiteral()
            try expect(")")
            return (.matches(e, regex), .boolean)
        }
        guard let method = StringMethod(rawValue: name) else { throw fail("No such method: \(name)()", at: position) }
        let argAt = i
        let args = try arguments()
        let arity: Int
        let result: StaticType
        switch method {
        case .contains, .beginsWith, .endsWith: (arity, result) = (1, .boolean)
        case .replace: (arity, result) = (2, .string)
        case .toLowerCase, .toUpperCase: (arity, result) = (0, .string)
        }
        guard args.count == arity else { throw fail("\(name)() takes \(arity) argument(s)", at: position) }
        for a in args where ![.string, .any, .null].contains(a.1) {
            throw fail("\(name)() takes strings, not a \(a.1.name)", at: argAt)
        }
        return (.string(e, method, args.map(\.0)), result)
    }

    mutating func arguments() throws(RulesError) -> [(Expr, StaticType)] {
        var args: [(Expr, StaticType)] = []
        if take(")") { return args }
        while true {
            args.append(try parseConditional())
            if take(")") { return args }
            try expect(",")
        }
    }

    mutating func stringList() throws(RulesError) -> (Expr, StaticType) {
        try expect("[")
        let at = i
        var items: [Expr] = []
        if !take("]") {
            while true {
                skipSpace()
                let itemAt = i
                let (e, t) = try parseConditional()
                guard [.string, .any, .null].contains(t) else { throw fail("hasChildren() names must be strings", at: itemAt) }
                items.append(e)
                if take("]") { break }
                try expect(",")
            }
        }
        if items.isEmpty { throw fail("hasChildren() needs at least one child name", at: at) }
        return (.stringList(items), .list)
    }
}
