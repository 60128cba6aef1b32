extension StringProtocol {
    /// Whether the text ends with `suffix`, compared byte by byte.
    ///
    /// For routing on paths: `hasSuffix` compares characters, which walks grapheme boundaries backwards
    /// and cost a small request more than the rest of its routing (`docs/benchmarks.md`, issue 31).
    func hasUTF8Suffix(_ suffix: String) -> Bool {
        var text = utf8.reversed().makeIterator()
        for byte in suffix.utf8.reversed() {
            guard text.next() == byte else { return false }
        }
        return true
    }
}
