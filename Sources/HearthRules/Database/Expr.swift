/// A compiled rule expression. Names are resolved and methods are chosen at compile time, so
/// evaluation only walks this tree.
indirect enum Expr: Sendable {
    case literal(RuleValue)
    case auth, root, data, newData, now
    case capture(Int)
    case queryField(QueryField)
    /// `a.b` on a map or a string (`length`); null-safe on null.
    case member(Expr, String)
    /// `a[b]` on a map.
    case index(Expr, Expr)
    case snapshot(Expr, SnapshotMethod, [Expr])
    case string(Expr, StringMethod, [Expr])
    case matches(Expr, RuleRegex)
    case not(Expr)
    case negate(Expr)
    case arithmetic(ArithmeticOperator, Expr, Expr)
    case compare(CompareOperator, Expr, Expr)
    case equal(Expr, Expr, negated: Bool)
    case and(Expr, Expr)
    case or(Expr, Expr)
    case conditional(Expr, Expr, Expr)
    case stringList([Expr])
}

enum SnapshotMethod: String, Sendable, CaseIterable {
    case val, child, parent, hasChild, hasChildren, exists, getPriority, isNumber, isString, isBoolean
}

enum StringMethod: String, Sendable, CaseIterable {
    case contains, beginsWith, endsWith, replace, toLowerCase, toUpperCase
}

enum QueryField: String, Sendable, CaseIterable {
    case orderByKey, orderByChild, orderByValue, orderByPriority, startAt, endAt, equalTo, limitToFirst, limitToLast
}

enum ArithmeticOperator: Sendable { case add, subtract, multiply, divide, remainder }
enum CompareOperator: Sendable { case less, lessOrEqual, greater, greaterOrEqual }
