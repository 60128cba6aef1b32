/// A cron expression that does not parse, or that describes a schedule that never fires.
///
/// The message names the field and the offending token, so it can be shown to whoever wrote
/// the expression as is:
///
/// ```swift
/// do { _ = try CronExpression("61 * * * *") } catch {
///     print(error)   // minute field: 61 is out of range 0–59
/// }
/// ```
public struct CronError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of mistake this is; stable across releases, so callers can match on it.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case fieldCount = "field-count"
            case unknownMacro = "unknown-macro"
            case invalidValue = "invalid-value"
            case outOfRange = "out-of-range"
            case invalidRange = "invalid-range"
            case invalidStep = "invalid-step"
            case neverFires = "never-fires"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// Not five fields (and not a macro).
        public static let fieldCount = Code(.fieldCount)
        /// An `@` word that is not one of the supported macros.
        public static let unknownMacro = Code(.unknownMacro)
        /// A token that is neither a number nor a name the field accepts, or an empty list element.
        public static let invalidValue = Code(.invalidValue)
        /// A number outside the field's range.
        public static let outOfRange = Code(.outOfRange)
        /// A range whose end comes before its start.
        public static let invalidRange = Code(.invalidRange)
        /// A step that is not a positive number.
        public static let invalidStep = Code(.invalidStep)
        /// The fields are valid one by one but no date ever matches them all (`0 0 30 2 *`).
        public static let neverFires = Code(.neverFires)

        /// A short stable name, such as `out-of-range`.
        public var description: String { base.rawValue }
    }

    /// What kind of mistake this is.
    public let code: Code
    /// The field the problem is in; nil when it concerns the expression as a whole.
    public let field: CronField?
    /// The offending token as written (empty when there is none, as for a missing field).
    public let token: String
    /// A complete sentence, prefixed with the field's name when there is one.
    public let message: String

    init(_ code: Code, field: CronField?, token: String, _ detail: String) {
        self.code = code
        self.field = field
        self.token = token
        self.message = field.map { "\($0) field: \(detail)" } ?? detail
    }

    /// The message.
    public var description: String { message }
}

/// The five fields of a cron expression, in the order they are written.
public enum CronField: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The first field, 0–59.
    case minute
    /// The second field, 0–23.
    case hour
    /// The third field, 1–31.
    case dayOfMonth
    /// The fourth field, 1–12 or `JAN`–`DEC`.
    case month
    /// The fifth field, 0–7 (0 and 7 are Sunday) or `SUN`–`SAT`.
    case dayOfWeek

    /// The name used in error messages: `minute`, `hour`, `day-of-month`, `month`, `day-of-week`.
    public var description: String {
        switch self {
        case .minute: "minute"
        case .hour: "hour"
        case .dayOfMonth: "day-of-month"
        case .month: "month"
        case .dayOfWeek: "day-of-week"
        }
    }

    /// The smallest and largest number the field accepts as written (day-of-week accepts 7 for Sunday).
    var bounds: ClosedRange<Int> {
        switch self {
        case .minute: 0...59
        case .hour: 0...23
        case .dayOfMonth: 1...31
        case .month: 1...12
        case .dayOfWeek: 0...7
        }
    }

    /// Three-letter names, upper case, indexed from the field's lower bound; nil for numeric-only fields.
    var names: [String]? {
        switch self {
        case .month: CronField.monthNames
        case .dayOfWeek: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]
        default: nil
        }
    }

    static let monthNames = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
}
