import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// The request side of `InlineResponseHandler` without its I/O: each event (a request part read, a read of the socket
/// asked for, an awaited answer arriving, a response ending downstream) moves the machine and says what the handler
/// must do, so every transition is here, in one place, and testable without a channel.
///
/// A connection reads one request at a time: it is `idle` between requests; a request it answers is `answering`
/// (the reply is ready at the head) or `collecting` (its body is read first) until its end; a request handed on is
/// `forwarding` until its end; a collected request is `awaiting` its answer after its end, and everything read meanwhile
/// waits for it. Only an idle connection with nothing still being answered downstream answers a new request here, so
/// responses always leave in request order.
struct InlineStateMachine {
    /// Where the request being read is.
    enum State {
        /// Between requests.
        case idle
        /// Between the head and the end of a request answered here; the reply is written at its end.
        case answering(InlineReply)
        /// Between the head and the end of a request whose body is read here before deciding.
        case collecting(Collecting)
        /// Between the head and the end of a request handed downstream.
        case forwarding
        /// After the end of a collected request, until its answer (computed elsewhere) arrives.
        case awaiting(Awaiting)
        /// Only inside a transition that changes an associated value in place: leaving the old value in `state` would
        /// make the held parts or the collected body shared, and the change would copy them.
        case modifying
    }

    /// A request whose body is being read before deciding.
    struct Collecting {
        var head: HTTPRequest
        var body: ByteBuffer
        var finish: (ByteBuffer, any EventLoop) -> EventLoopFuture<InlineReply?>
    }

    /// A collected request whose answer is awaited.
    struct Awaiting {
        var head: HTTPRequest
        var body: ByteBuffer
        /// The parts read meanwhile, in order: nothing overtakes the awaited answer.
        var held: [HTTPRequestPart] = []
        /// A read of the socket was asked for meanwhile: it waits too, so `held` stays within what was already read.
        var readDeferred = false
    }

    /// What the handler does with a request part it read.
    enum ReadAction {
        /// Nothing now: the part is kept here (a reply waits for the end, a body is collected or dropped, or an answer
        /// is awaited).
        case none
        /// Pass the part read on unchanged.
        case passOn
        /// Pass this head on in place of the head read: its request goes downstream.
        case forward(HTTPRequest)
        /// Pass on the head and the body (when not empty) collected so far, then the part read: the request goes
        /// downstream after all.
        case forwardCollected(HTTPRequest, ByteBuffer)
        /// Write the reply: the request it answers has ended.
        case write(InlineReply)
        /// Compute the answer from the body with `finish`, and tell `answerArrived` what it was.
        case await(ByteBuffer, (ByteBuffer, any EventLoop) -> EventLoopFuture<InlineReply?>)
    }

    /// What the handler does when an awaited answer arrives.
    struct Answered {
        enum Action {
            /// Write the reply.
            case write(InlineReply)
            /// No reply: pass the whole request on (head, body when not empty, end).
            case forward(HTTPRequest, ByteBuffer)
        }

        var action: Action
        /// The parts read while the answer was awaited, to be read now, in order (see `holdAgain`).
        var held: [HTTPRequestPart]
        /// Whether a read of the socket was asked for meanwhile; it is due once the held parts are read.
        var readDeferred: Bool
    }

    /// The largest request body read here before answering; bigger ones go downstream.
    let bodyLimit: Int
    private(set) var state: State = .idle
    /// Requests handed downstream whose response has not ended yet. Beside `state`, not in it: responses end on the
    /// write side, whichever request is being read meanwhile.
    private(set) var downstream = 0

    init(bodyLimit: Int) {
        self.bodyLimit = bodyLimit
    }

    /// Whether an answer is awaited (parts read now are held).
    var isAwaiting: Bool {
        if case .awaiting = state { return true }
        return false
    }

    /// A request head was read. `plan` is asked only when this request may be answered here: the connection is
    /// between requests, no earlier response is still being written downstream, and the request does not ask to
    /// close the connection. `allocator` makes the buffer a collected body is read into.
    mutating func headRead(
        _ head: HTTPRequest, allocator: ByteBufferAllocator, plan: (HTTPRequest) -> InlinePlan?
    ) -> ReadAction {
        switch state {
        case .idle:
            if downstream == 0, head.headerFields[.connection] == nil, let plan = plan(head) {
                switch plan {
                case .reply(let reply):
                    state = .answering(reply)
                    return .none
                case .afterBody(let finish):
                    // Only a body of a declared, small size, and no `Expect: 100-continue` to answer first.
                    if head.headerFields[.expect] == nil, let length = head.headerFields[.contentLength].flatMap(Int.init),
                        length <= bodyLimit
                    {
                        state = .collecting(Collecting(head: head, body: allocator.buffer(capacity: length), finish: finish))
                        return .none
                    }
                }
            }
            return forward(head)
        case .awaiting:
            hold(.head(head))
            return .none
        case .answering, .forwarding:
            // A head before the end of the request being read (HTTP's decoder never does this): the reply, if any, is
            // dropped and what was read goes downstream, to be judged there.
            return forward(head)
        case .collecting(let request):
            // As above; the request being collected goes first, so nothing read is lost.
            state = .forwarding
            downstream += 2
            return .forwardCollected(request.head, request.body)
        case .modifying:
            preconditionFailure("InlineStateMachine entered from inside a transition")
        }
    }

    /// A piece of a request body was read.
    mutating func bodyRead(_ part: ByteBuffer) -> ReadAction {
        switch state {
        case .collecting(var request):
            state = .modifying
            guard request.body.readableBytes + part.readableBytes <= bodyLimit else {
                // More than the head declared: not ours to judge.
                state = .forwarding
                downstream += 1
                return .forwardCollected(request.head, request.body)
            }
            var part = part
            request.body.writeBuffer(&part)
            state = .collecting(request)
            return .none
        case .answering:
            // A body on a request answered here (a GET with a body) is read and dropped.
            return .none
        case .awaiting:
            hold(.body(part))
            return .none
        case .forwarding, .idle:
            // Idle: a body without a head (HTTP's decoder never does this) is left to downstream.
            return .passOn
        case .modifying:
            preconditionFailure("InlineStateMachine entered from inside a transition")
        }
    }

    /// The end of a request was read.
    mutating func endRead(_ trailers: HTTPFields?) -> ReadAction {
        switch state {
        case .collecting(let request):
            state = .awaiting(Awaiting(head: request.head, body: request.body))
            return .await(request.body, request.finish)
        case .answering(let reply):
            state = .idle
            return .write(reply)
        case .forwarding, .idle:
            // Idle: an end without a head (HTTP's decoder never does this) is left to downstream.
            state = .idle
            return .passOn
        case .awaiting:
            hold(.end(trailers))
            return .none
        case .modifying:
            preconditionFailure("InlineStateMachine entered from inside a transition")
        }
    }

    /// The awaited answer arrived: a reply, or nil to pass the request on. The connection is between requests
    /// afterwards; nil when no answer was awaited.
    mutating func answerArrived(_ reply: InlineReply?) -> Answered? {
        guard case .awaiting(let awaiting) = state else { return nil }
        state = .idle
        let action: Answered.Action
        if let reply {
            action = .write(reply)
        } else {
            downstream += 1
            action = .forward(awaiting.head, awaiting.body)
        }
        return Answered(action: action, held: awaiting.held, readDeferred: awaiting.readDeferred)
    }

    /// Held parts not yet read when one of them started another wait: they wait for that answer too, ahead of
    /// anything read later.
    mutating func holdAgain(_ parts: ArraySlice<HTTPRequestPart>) {
        guard case .awaiting(var awaiting) = state else { preconditionFailure("parts held again while no answer is awaited") }
        state = .modifying
        awaiting.held.insert(contentsOf: parts, at: 0)
        state = .awaiting(awaiting)
    }

    /// The handler is asked to read from the socket: whether to read now (false: the read waits for the awaited answer).
    mutating func readRequested() -> Bool {
        guard case .awaiting(var awaiting) = state else { return true }
        state = .modifying
        awaiting.readDeferred = true
        state = .awaiting(awaiting)
        return false
    }

    /// A response from downstream ended.
    mutating func responseEnded() {
        downstream -= 1
    }

    private mutating func forward(_ head: HTTPRequest) -> ReadAction {
        state = .forwarding
        downstream += 1
        return .forward(head)
    }

    private mutating func hold(_ part: HTTPRequestPart) {
        guard case .awaiting(var awaiting) = state else { return }
        state = .modifying
        awaiting.held.append(part)
        state = .awaiting(awaiting)
    }
}
