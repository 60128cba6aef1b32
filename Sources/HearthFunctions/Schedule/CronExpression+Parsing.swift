extension CronExpression {
    /// Parses a five-field expression or a macro.
    ///
    /// Rejects, with a ``CronError`` naming the field and token: a wrong number of fields (a
    /// leading seconds field included), unknown macros (`@reboot` too: jobs run by time only),
    /// out-of-range numbers, unknown names, reversed ranges, steps below 1, and day-of-month
    /// values that never occur in the selected months (`0 0 30 2 *`), so a parsed expression
    /// always fires again.
    public init(_ text: String) throws(CronError) {
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        if words.count == 1, words[0].hasPrefix("@") {
            guard let fields = CronExpression.macros[words[0].lowercased()] else {
                throw CronError(
                    .unknownMacro, field: nil, token: words[0],
                    "unknown macro \(words[0]); expected one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly"
                )
            }
            try self.init(fields: fields.split(separator: " ").map(String.init), description: words[0].lowercased())
            return
        }
        guard words.count == 5 else {
            let expected = "expected 5 fields (minute hour day-of-month month day-of-week)"
            let detail =
                switch words.count {
                case 0: "empty cron expression: \(expected) or a macro such as @daily"
                case 6: "\(expected), found 6: a leading seconds field is not supported"
                default: "\(expected), found \(words.count)"
                }
            throw CronError(.fieldCount, field: nil, token: words.count == 0 ? "" : text, detail)
        }
        try self.init(fields: words, description: words.joined(separator: " "))
    }

    static let macros: [String: String] = [
        "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
        "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
    ]

    private init(fields: [String], description: String) throws(CronError) {
        minutes = try CronExpression.parse(fields[0], .minute)
        hours = try CronExpression.parse(fields[1], .hour)
        daysOfMonth = try CronExpression.parse(fields[2], .dayOfMonth)
        months = try CronExpression.parse(fields[3], .month)
        let weekdays = try CronExpression.parse(fields[4], .dayOfWeek)
        daysOfWeek = (weekdays | weekdays >> 7) & 0x7F  // 7 is Sunday too
        matchesEitherDay = !fields[2].hasPrefix("*") && !fields[4].hasPrefix("*")
        self.description = description
        try checkFires()
    }

    /// Longest each month can be (February in a leap year), indexed by month.
    private static let longestMonth = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

    /// When only day-of-month decides the day, some selected day must exist in some selected month.
    /// (With either-day matching, a weekday always comes; with a `*` day-of-month, the 1st is in it.)
    private func checkFires() throws(CronError) {
        guard !matchesEitherDay, daysOfMonth & (1 << 1) == 0 else { return }
        let selectedMonths = (1...12).filter { months & (1 << UInt64($0)) != 0 }
        let firstDay = daysOfMonth.firstSetBit(from: 1) ?? 1
        if selectedMonths.contains(where: { firstDay <= CronExpression.longestMonth[$0] }) { return }
        let names = selectedMonths.map { CronField.monthNames[$0 - 1] }.joined(separator: ", ")
        throw CronError(
            .neverFires, field: .dayOfMonth, token: String(firstDay),
            "\(firstDay) never occurs in \(names), so the schedule would never fire")
    }

    /// One field: a comma-separated list of `*`, `n`, `a-b`, each optionally followed by `/step`.
    private static func parse(_ text: String, _ field: CronField) throws(CronError) -> UInt64 {
        var bits: UInt64 = 0
        for element in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard !element.isEmpty else {
                throw CronError(.invalidValue, field: field, token: text, "empty list element in '\(text)'")
            }
            let parts = element.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2 else {
                throw CronError(.invalidStep, field: field, token: String(element), "'\(element)' has more than one step")
            }
            var step = 1
            if parts.count == 2 {
                guard let n = number(parts[1]) else {
                    throw CronError(.invalidStep, field: field, token: String(parts[1]), "step '\(parts[1])' is not a number")
                }
                guard n >= 1 else {
                    throw CronError(.invalidStep, field: field, token: String(parts[1]), "step \(n) must be at least 1")
                }
                step = n
            }
            let range = try bounds(of: parts[0], in: element, field, stepped: parts.count == 2)
            for value in stride(from: range.lowerBound, through: range.upperBound, by: step) {
                bits |= 1 << UInt64(value)
            }
        }
        return bits
    }

    /// The values a list element's base covers: `*` is the whole field, `a` alone is `a`, or `a` to
    /// the field's end when a step follows (`5/15` = `5-59/15`, as cronie reads it).
    private static func bounds(
        of base: Substring, in element: Substring, _ field: CronField, stepped: Bool
    ) throws(CronError) -> ClosedRange<Int> {
        if base == "*" { return field.bounds }
        let ends = base.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard !ends.contains(where: \.isEmpty) else {
            throw CronError(.invalidValue, field: field, token: String(element), "'\(element)' is not a value, range or *")
        }
        let low = try value(ends[0], field)
        guard ends.count == 2 else { return stepped ? low...field.bounds.upperBound : low...low }
        var high = try value(ends[1], field)
        // FRI-SUN: Sunday named at the end of a range is the 7 that ends the week.
        if field == .dayOfWeek, high == 0, low > 0, ends[1].uppercased() == "SUN" { high = 7 }
        guard low <= high else {
            throw CronError(.invalidRange, field: field, token: String(base), "range \(base) ends before it starts")
        }
        return low...high
    }

    private static func value(_ token: Substring, _ field: CronField) throws(CronError) -> Int {
        if let names = field.names, let index = names.firstIndex(of: token.uppercased()) {
            return index + field.bounds.lowerBound
        }
        guard let n = number(token) else {
            let accepted =
                switch field {
                case .month: "a number or a month name (JAN–DEC)"
                case .dayOfWeek: "a number or a weekday name (SUN–SAT)"
                default: "a number"
                }
            throw CronError(.invalidValue, field: field, token: String(token), "'\(token)' is not \(accepted)")
        }
        guard field.bounds.contains(n) else {
            let b = field.bounds
            throw CronError(.outOfRange, field: field, token: String(token), "\(token) is out of range \(b.lowerBound)–\(b.upperBound)")
        }
        return n
    }

    /// A run of ASCII digits (no sign, no spaces), or nil. Large values saturate so they are
    /// reported as out of range rather than as not a number.
    private static func number(_ token: Substring) -> Int? {
        guard !token.isEmpty, token.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(token) ?? Int.max
    }
}
