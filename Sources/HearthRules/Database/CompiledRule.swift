/// One compiled rule.
struct CompiledRule: Sendable {
    let expr: Expr
    /// The expression as written (`true`/`false` for JSON booleans).
    let text: String
    /// Where it stands, e.g. `/users/$uid/.write`.
    let location: String
    let readsData: Bool
}
