import Foundation

/// Milliseconds since 1970 by the system clock, for tests that build a server's parts by hand.
public func wallClockMillis() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
