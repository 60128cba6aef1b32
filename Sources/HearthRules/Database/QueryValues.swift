import HearthCore

/// The `query` variable of `.read` rules.
struct QueryValues {
    var orderByKey = true
    var orderByValue = false
    var orderByPriority = false
    var orderByChild: RuleValue = .null
    var startAt: RuleValue = .null
    var endAt: RuleValue = .null
    var equalTo: RuleValue = .null
    var limitToFirst: RuleValue = .null
    var limitToLast: RuleValue = .null

    init(_ query: Query?) {
        guard let query else { return }
        orderByKey = false
        switch query.order {
        case .key: orderByKey = true
        case .value: orderByValue = true
        case .priority: orderByPriority = true
        case .child(let p): orderByChild = .string(p.keys.map(\.string).joined(separator: "/"))
        }
        if let s = query.start, let e = query.end, s == e, !s.strict {
            equalTo = RuleValue(leaf: s.value)
        } else {
            if let s = query.start { startAt = RuleValue(leaf: s.value) }
            if let e = query.end { endAt = RuleValue(leaf: e.value) }
        }
        switch query.limit {
        case .first(let n)?: limitToFirst = .number(Double(n))
        case .last(let n)?: limitToLast = .number(Double(n))
        case nil: break
        }
    }

    func value(_ field: QueryField) -> RuleValue {
        switch field {
        case .orderByKey: .bool(orderByKey)
        case .orderByValue: .bool(orderByValue)
        case .orderByPriority: .bool(orderByPriority)
        case .orderByChild: orderByChild
        case .startAt: startAt
        case .endAt: endAt
        case .equalTo: equalTo
        case .limitToFirst: limitToFirst
        case .limitToLast: limitToLast
        }
    }
}
