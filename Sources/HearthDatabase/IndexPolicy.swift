/// What to do with a query that orders by a child or value without a matching `.indexOn`.
public enum IndexPolicy: String, Sendable, CaseIterable {
    /// Refuse it (`Index not defined…`), as Firebase does.
    case enforce
    /// Answer by scanning and log the index to add (the `--dev` default).
    case scan
}
