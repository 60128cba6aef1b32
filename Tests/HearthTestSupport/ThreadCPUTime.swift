#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// CPU seconds `body` takes on this thread: unlike wall time, it does not grow when other tests share the cores,
/// so a bound on it tells linear from quadratic without depending on how busy the machine is.
///
/// Shared by the complexity tests of several test targets (adversarial inputs, the rules overlay, multi-path
/// updates). It lives in a target of its own that imports only the C library, so `timespec` has one defining
/// module wherever it is used.
public func threadCPUSeconds(_ body: () throws -> Void) rethrows -> Double {
    func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
    let start = now()
    try body()
    return now() - start
}
