import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Testing

@testable import HearthServer

/// Every transition of `InlineResponseHandler`'s request machine, without a channel: what each part read does in each
/// state, including the parts HTTP's decoder never sends there.
@Suite("Inline responder state machine")
struct InlineStateMachineTests {
    typealias Machine = InlineStateMachine

    static let reply = InlineReply(status: .ok, headers: [:], body: ByteBuffer(string: "quick"))

    static func head(_ path: String, headers: HTTPFields = [:]) -> HTTPRequest {
        HTTPRequest(method: .post, scheme: "http", authority: "h", path: path, headerFields: headers)
    }

    /// `/fast` is answered at once, `/echo` after its body, anything else is not answered here.
    static func plan(_ head: HTTPRequest) -> InlinePlan? {
        switch head.path {
        case "/fast": .reply(reply)
        case "/echo": .afterBody { _, loop in loop.makeSucceededFuture(nil) }
        default: nil
        }
    }

    /// What a state is, without its associated values.
    static func name(_ state: Machine.State) -> String {
        switch state {
        case .idle: "idle"
        case .answering: "answering"
        case .collecting: "collecting"
        case .forwarding: "forwarding"
        case .awaiting: "awaiting"
        case .modifying: "modifying"
        }
    }

    /// What an action is: its kind and the path or body it carries.
    static func name(_ action: Machine.ReadAction) -> String {
        switch action {
        case .none: "none"
        case .passOn: "passOn"
        case .forward(let head): "forward \(head.path ?? "")"
        case .forwardCollected(let head, let body): "forwardCollected \(head.path ?? "") \(String(buffer: body))"
        case .write(let reply): "write \(String(buffer: reply.body))"
        case .await(let body, _): "await \(String(buffer: body))"
        }
    }

    static func read(_ machine: inout Machine, _ head: HTTPRequest) -> String {
        name(machine.headRead(head, allocator: ByteBufferAllocator(), plan: plan))
    }

    static func read(_ machine: inout Machine, body: String) -> String { name(machine.bodyRead(ByteBuffer(string: body))) }

    static func end(_ machine: inout Machine) -> String { name(machine.endRead(nil)) }

    static let echo = head("/echo", headers: [.contentLength: "5"])

    /// A machine awaiting the answer to an `/echo` whose body was "hello".
    static func awaiting() -> Machine {
        var machine = Machine(bodyLimit: 16)
        _ = read(&machine, echo)
        _ = read(&machine, body: "hello")
        #expect(end(&machine) == "await hello")
        return machine
    }

    @Test func aRequestAnsweredAtOnceIsWrittenAtItsEnd() {
        var machine = Machine(bodyLimit: 16)
        #expect(Self.read(&machine, Self.head("/fast")) == "none")
        #expect(Self.name(machine.state) == "answering")
        #expect(Self.read(&machine, body: "dropped") == "none")
        #expect(Self.end(&machine) == "write quick")
        #expect(Self.name(machine.state) == "idle")
        #expect(machine.downstream == 0)
    }

    @Test func aRequestNotAnsweredHereGoesDownstreamAndHoldsBackTheNext() {
        var machine = Machine(bodyLimit: 16)
        #expect(Self.read(&machine, Self.head("/slow")) == "forward /slow")
        #expect(Self.name(machine.state) == "forwarding")
        #expect(Self.read(&machine, body: "b") == "passOn")
        #expect(Self.end(&machine) == "passOn")
        #expect(Self.name(machine.state) == "idle")
        #expect(machine.downstream == 1)
        // Its response has not ended: a request that could be answered here goes downstream behind it.
        #expect(Self.read(&machine, Self.head("/fast")) == "forward /fast")
        #expect(Self.end(&machine) == "passOn")
        machine.responseEnded()
        machine.responseEnded()
        #expect(machine.downstream == 0)
        #expect(Self.read(&machine, Self.head("/fast")) == "none")
    }

    @Test(arguments: [[.connection: "close"], [.connection: "keep-alive"]] as [HTTPFields])
    func aRequestNamingTheConnectionIsNotAnsweredHere(headers: HTTPFields) {
        var machine = Machine(bodyLimit: 16)
        var asked = false
        let action = machine.headRead(Self.head("/fast", headers: headers), allocator: ByteBufferAllocator()) { head in
            asked = true
            return Self.plan(head)
        }
        #expect(Self.name(action) == "forward /fast")
        #expect(!asked)
    }

    @Test func aBodyIsCollectedThenAwaited() {
        var machine = Machine(bodyLimit: 16)
        #expect(Self.read(&machine, Self.echo) == "none")
        #expect(Self.name(machine.state) == "collecting")
        #expect(Self.read(&machine, body: "he") == "none")
        #expect(Self.read(&machine, body: "llo") == "none")
        #expect(Self.end(&machine) == "await hello")
        #expect(machine.isAwaiting)
        #expect(machine.downstream == 0)
    }

    @Test(arguments: [
        HTTPFields(),  // no declared length
        [.contentLength: "17"],  // more than the limit
        [.contentLength: "4", .expect: "100-continue"],
        [.contentLength: "x"],
    ])
    func aBodyItCannotBoundGoesDownstreamAtOnce(headers: HTTPFields) {
        var machine = Machine(bodyLimit: 16)
        #expect(Self.read(&machine, Self.head("/echo", headers: headers)) == "forward /echo")
        #expect(Self.name(machine.state) == "forwarding")
        #expect(machine.downstream == 1)
    }

    @Test func moreBodyThanTheLimitSendsWhatWasCollectedDownstream() {
        var machine = Machine(bodyLimit: 16)
        _ = Self.read(&machine, Self.echo)
        #expect(Self.read(&machine, body: "hello") == "none")
        #expect(Self.read(&machine, body: "0123456789ab") == "forwardCollected /echo hello")
        #expect(Self.name(machine.state) == "forwarding")
        #expect(machine.downstream == 1)
        #expect(Self.read(&machine, body: "more") == "passOn")
        #expect(Self.end(&machine) == "passOn")
    }

    @Test func partsAndReadsWhileAwaitingAreHeldInOrder() throws {
        var machine = Self.awaiting()
        #expect(Self.read(&machine, Self.head("/fast")) == "none")
        let r1 = machine.readRequested()
        #expect(r1 == false)
        #expect(Self.end(&machine) == "none")
        #expect(Self.read(&machine, Self.head("/slow")) == "none")
        #expect(Self.read(&machine, body: "x") == "none")
        #expect(machine.downstream == 0)
        let r2 = machine.answerArrived(Self.reply)
        let answered = try #require(r2)
        guard case .write(let reply) = answered.action else {
            Issue.record("expected the reply to be written")
            return
        }
        #expect(String(buffer: reply.body) == "quick")
        #expect(answered.readDeferred)
        #expect(answered.held.map(Self.describe) == ["head /fast", "end", "head /slow", "body x"])
        #expect(Self.name(machine.state) == "idle")
        let r3 = machine.readRequested()
        #expect(r3)
    }

    static func describe(_ part: HTTPRequestPart) -> String {
        switch part {
        case .head(let h): "head \(h.path ?? "")"
        case .body(let b): "body \(String(buffer: b))"
        case .end: "end"
        }
    }

    @Test func noAnswerPassesTheCollectedRequestOn() throws {
        var machine = Self.awaiting()
        let r4 = machine.answerArrived(nil)
        let answered = try #require(r4)
        guard case .forward(let head, let body) = answered.action else {
            Issue.record("expected the request to be passed on")
            return
        }
        #expect(head.path == "/echo")
        #expect(String(buffer: body) == "hello")
        #expect(!answered.readDeferred)
        #expect(answered.held.isEmpty)
        #expect(machine.downstream == 1)
        #expect(Self.name(machine.state) == "idle")
    }

    @Test func heldPartsNotYetReadWaitForTheNextAnswerFirst() throws {
        var machine = Self.awaiting()
        _ = Self.read(&machine, Self.head("/later"))
        let r5 = machine.answerArrived(Self.reply)
        _ = try #require(r5)
        // Replaying the held parts started another wait; the rest goes back ahead of anything read later.
        _ = Self.read(&machine, Self.echo)
        _ = Self.end(&machine)
        #expect(Self.read(&machine, Self.head("/read-later")) == "none")
        machine.holdAgain([.head(Self.head("/held")), .end(nil)])
        let r6 = machine.answerArrived(nil)
        let answered = try #require(r6)
        #expect(answered.held.map(Self.describe) == ["head /held", "end", "head /read-later"])
    }

    @Test func anAnswerNobodyAwaitsIsIgnored() {
        var machine = Machine(bodyLimit: 16)
        let r7 = machine.answerArrived(Self.reply)
        #expect(r7 == nil)
        _ = Self.read(&machine, Self.head("/slow"))
        let r8 = machine.answerArrived(nil)
        #expect(r8 == nil)
        #expect(Self.name(machine.state) == "forwarding")
        #expect(machine.downstream == 1)
    }

    @Test func readsAreDeferredOnlyWhileAwaiting() {
        var machine = Machine(bodyLimit: 16)
        let r9 = machine.readRequested()
        #expect(r9)
        _ = Self.read(&machine, Self.head("/fast"))
        let r10 = machine.readRequested()
        #expect(r10)
        machine = Self.awaiting()
        let r11 = machine.readRequested()
        #expect(!r11)
        let r12 = machine.answerArrived(nil)
        #expect(r12?.readDeferred == true)
    }

    // MARK: - Parts HTTP's decoder never sends there

    @Test func aBodyOrEndWithoutAHeadIsLeftToDownstream() {
        var machine = Machine(bodyLimit: 16)
        #expect(Self.read(&machine, body: "stray") == "passOn")
        #expect(Self.end(&machine) == "passOn")
        #expect(Self.name(machine.state) == "idle")
        #expect(machine.downstream == 0)
    }

    @Test func aHeadBeforeTheEndOfAnAnsweredRequestDropsTheReply() {
        var machine = Machine(bodyLimit: 16)
        _ = Self.read(&machine, Self.head("/fast"))
        #expect(Self.read(&machine, Self.head("/fast")) == "forward /fast")
        #expect(Self.name(machine.state) == "forwarding")
        #expect(Self.end(&machine) == "passOn")
        #expect(machine.downstream == 1)
    }

    @Test func aHeadBeforeTheEndOfAForwardedRequestIsForwarded() {
        var machine = Machine(bodyLimit: 16)
        _ = Self.read(&machine, Self.head("/slow"))
        #expect(Self.read(&machine, Self.head("/other")) == "forward /other")
        #expect(machine.downstream == 2)
    }

    @Test func aHeadBeforeTheEndOfACollectedRequestSendsBothDownstream() {
        var machine = Machine(bodyLimit: 16)
        _ = Self.read(&machine, Self.echo)
        _ = Self.read(&machine, body: "hel")
        #expect(Self.read(&machine, Self.head("/fast")) == "forwardCollected /echo hel")
        #expect(Self.name(machine.state) == "forwarding")
        #expect(machine.downstream == 2)
    }
}
