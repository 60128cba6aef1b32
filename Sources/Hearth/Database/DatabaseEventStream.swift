/// An asynchronous sequence of database events that fails with a ``DatabaseError``.
///
/// Observing starts when the sequence is created and stops when iteration ends (or the task is
/// cancelled). Events are buffered, so a slow consumer sees every one, in order.
public struct DatabaseEventStream<Element: Sendable>: AsyncSequence, Sendable {
    /// Iteration throws only ``DatabaseError`` (typed throws), so `catch` needs no cast.
    public typealias Failure = DatabaseError

    let base: AsyncThrowingStream<Element, any Error>

    /// Yields the events in order; not `Sendable`, so iterate from one task.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Element, any Error>.AsyncIterator

        /// The next event. Returns nil once the database is closed. Throws when the path is not valid, or when the
        /// listen fails or the server revokes it (the rules refuse the read: ``DatabaseError/Code/permissionDenied``);
        /// the stream ends after throwing.
        public mutating func next() async throws(DatabaseError) -> Element? {
            do {
                return try await base.next()
            } catch {
                throw DatabaseEventStream.map(error)
            }
        }

        /// The next event, like ``next()``, without leaving the caller's actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(DatabaseError) -> Element? {
            do {
                return try await base.next(isolation: actor)
            } catch {
                throw DatabaseEventStream.map(error)
            }
        }
    }

    /// Starts reading the stream; each stream is meant to be iterated once.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator()) }

    static func map(_ error: any Error) -> DatabaseError {
        error as? DatabaseError ?? DatabaseError(code: .server, path: "/", message: "Stream failed", cause: error)
    }
}
