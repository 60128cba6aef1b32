import Synchronization

/// Generates Firebase push ids: 8 base-64 characters of milliseconds, then 12 random characters that
/// are incremented (not redrawn) within one millisecond, so ids sort in creation order.
public final class PushIDGenerator: Sendable {
    static let alphabet = Array("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz".utf8)

    private struct State {
        var lastTime: Int64 = -1
        var lastRandom: [UInt8] = Array(repeating: 0, count: 12)
        var rng: any RandomNumberGenerator & Sendable
    }

    private let state: Mutex<State>

    /// - Parameter random: injected for deterministic tests; defaults to the system generator.
    public init(random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()) {
        self.state = Mutex(State(rng: random))
    }

    /// A new id for the given time in milliseconds since 1970.
    public func next(millis: Int64) -> String {
        state.withLock { s in
            if millis == s.lastTime {
                var i = 11
                while i >= 0, s.lastRandom[i] == 63 {
                    s.lastRandom[i] = 0
                    i -= 1
                }
                if i >= 0 { s.lastRandom[i] += 1 }
            } else {
                for i in 0..<12 { s.lastRandom[i] = UInt8.random(in: 0..<64, using: &s.rng) }
                s.lastTime = millis
            }
            var out = [UInt8](repeating: 0, count: 20)
            var t = max(millis, 0)
            for i in stride(from: 7, through: 0, by: -1) {
                out[i] = PushIDGenerator.alphabet[Int(t % 64)]
                t /= 64
            }
            for i in 0..<12 { out[8 + i] = PushIDGenerator.alphabet[Int(s.lastRandom[i])] }
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// A new id that also sorts after `floor` (the last id another process committed): when the
    /// clock-based id would not, the successor of `floor` (same time, suffix plus one). Nodes
    /// sharing a database pass the namespace's last push id, so ids follow commit order across them.
    public func next(millis: Int64, after floor: String?) -> String {
        let id = next(millis: millis)
        guard let floor, id <= floor, let (time, random) = Self.parse(floor) else { return id }
        state.withLock { s in
            s.lastTime = time
            s.lastRandom = random
        }
        return next(millis: time)
    }

    /// The time and suffix digits of an id this generator could have made; nil for any other string.
    static func parse(_ id: String) -> (Int64, [UInt8])? {
        let bytes = Array(id.utf8)
        guard bytes.count == 20 else { return nil }
        var digits: [UInt8] = []
        for byte in bytes {
            guard let digit = alphabet.firstIndex(of: byte) else { return nil }
            digits.append(UInt8(digit))
        }
        let time = digits[0..<8].reduce(Int64(0)) { $0 * 64 + Int64($1) }
        return (time, Array(digits[8...]))
    }
}
