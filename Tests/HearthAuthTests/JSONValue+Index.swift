import HearthCore

extension JSONValue {
    /// The element at `index` of an array, or nil.
    subscript(index: Int) -> JSONValue? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }
}
