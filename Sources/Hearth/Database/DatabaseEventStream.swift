/// An asynchronous sequence of database events that fails with a ``DatabaseError``.
///
/// Observing starts when the sequence is created and stops when iteration ends (or the task is
/// cancelled). Events are buffered, so a slow consumer sees every one, in order.
public struct DatabaseEventStream<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = DatabaseError

    let base: AsyncThrowingStream<Element, any Error>

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Element, any Error>.AsyncIterator

        public mutating func next() async throws(DatabaseError) -> Element? {
            do {
                return try await base.next()
            } catch {
                throw DatabaseEventStream.map(error)
            }
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(DatabaseError) -> Element? {
            do {
                return try await base.next(isolation: actor)
            } catch {
                throw DatabaseEventStream.map(error)
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator()) }

    static func map(_ error: any Error) -> DatabaseError {
        error as? DatabaseError ?? DatabaseError(code: .server, path: "/", message: "Stream failed", cause: error)
    }
}
