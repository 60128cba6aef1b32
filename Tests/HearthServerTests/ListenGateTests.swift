import HearthDatabase
@testable import HearthServer
import NIOCore
import Testing

@Suite("Listen gate")
struct ListenGateTests {
    static func event(_ sequence: UInt64) -> Delivery { .event(sequence: sequence, ByteBuffer(string: "e\(sequence)")) }

    /// Everything the outbox was given so far, as text.
    static func sent(_ outbox: RealtimeOutbox, count: Int) async -> [String] {
        var out: [String] = []
        var iterator = outbox.messages.makeAsyncIterator()
        while out.count < count, let buffer = await iterator.next() {
            _ = outbox.take(buffer)
            out.append(String(buffer: buffer))
        }
        return out
    }

    @Test("a re-registered listen's new gate sends each event once: what the old one sent is skipped")
    func takeOverSkipsSent() async {
        let outbox = RealtimeOutbox(byteLimit: 1 << 20) { _ in }
        let old = ListenGate(outbox: outbox, limit: 100)
        old.advance(to: 9)
        _ = old.resume()  // open
        let new = ListenGate(outbox: outbox, limit: 100)  // registered: holds from now on
        // Event 10 reaches both listeners before the old one is unregistered.
        #expect(old.offer(Self.event(10)) == nil)
        #expect(new.offer(Self.event(10)) == nil)
        new.takeOver(from: old)
        #expect(new.offer(Self.event(11)) == nil)
        #expect(new.resume() == nil)
        #expect(await Self.sent(outbox, count: 2) == ["e10", "e11"])
        #expect(new.seen == 11)
    }

    @Test("what a closed old gate still held goes out through the new one, before the new one's own")
    func takeOverKeepsHeld() async {
        let outbox = RealtimeOutbox(byteLimit: 1 << 20) { _ in }
        let old = ListenGate(outbox: outbox, limit: 100)
        old.advance(to: 5)
        _ = old.resume()
        // A re-check closes the old gate; events 6 and 7 wait behind it.
        guard case .recheck? = old.offer(.recheck(sequence: 5)) else {
            Issue.record("a recheck must go to the session")
            return
        }
        _ = old.offer(Self.event(6))
        let new = ListenGate(outbox: outbox, limit: 100)
        _ = old.offer(Self.event(7))
        _ = new.offer(Self.event(7))
        new.takeOver(from: old)
        _ = new.offer(Self.event(8))
        #expect(new.resume() == nil)
        #expect(await Self.sent(outbox, count: 3) == ["e6", "e7", "e8"])
        #expect(old.resume() == nil)  // the old gate gave everything away
    }
}
