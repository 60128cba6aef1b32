/// An open file, closed when the last reference goes away.
///
/// A write in flight on the thread pool holds a reference, so the descriptor cannot be closed
/// (and its number reused by another file) under it, whichever side finishes first.
final class FileDescriptor: Sendable {
    let value: Int32

    init(_ value: Int32) {
        self.value = value
    }

    deinit {
        Posix.closeFile(value)
    }
}
