/// Polls `condition` every few milliseconds until it holds or `timeout` passes; returns whether it
/// held (the tests' one way to wait for something asynchronous).
func eventually(timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return try await condition()
}
