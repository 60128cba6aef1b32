import Testing

/// Polls `condition` every few milliseconds until it holds or `timeout` passes; returns whether it
/// held (the tests' one way to wait for something asynchronous).
///
/// Do not write `#expect(await eventually { … })`: use ``expectEventually(timeout:_:sourceLocation:_:)``. Swift 6.3
/// can give a closure written inside an `#expect`/`#require` argument the same symbol as another closure of the same
/// type in the same enclosing closure, and then both call sites run one of the two bodies (seen here: a test waited
/// 15 s on the previous expectation's condition). `scripts/check-test-closures` refuses the pattern.
func eventually(timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return try await condition()
}

/// Expects `condition` to hold within `timeout` (see ``eventually(timeout:_:)``); records an issue at the caller
/// otherwise. Returns whether it held.
@discardableResult
func expectEventually(
    timeout: Duration = .seconds(30), _ comment: @autoclosure () -> Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let held = try await eventually(timeout: timeout, condition)
    if !held {
        let note = comment().map { ": \($0.rawValue)" } ?? ""
        Issue.record("Condition did not hold within \(timeout)\(note)", sourceLocation: sourceLocation)
    }
    return held
}
