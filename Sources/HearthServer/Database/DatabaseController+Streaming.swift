import HTTPTypes
import HearthCore
import HearthDatabase
import HearthRules
import HearthStore
import HearthWire
import Hummingbird
import Logging
import NIOCore

extension DatabaseController {
    /// `Accept: text/event-stream`: the current value, then every change in commit order.
    ///
    /// The listener is registered before the snapshot is read; buffered changes at or below the
    /// snapshot's sequence are dropped, so nothing is lost or repeated between snapshot and stream.
    func stream(_ call: RestCall, channel: (any Channel)?) async throws -> Response {
        let format: RenderFormat = call.parameters["format"] == "export" ? .export : .plain
        let path = call.path
        let query: Query?
        do {
            query = try Query(parameters: call.parameters)
        } catch {
            throw RestError.badRequest(error.message)
        }
        if let query { try await service.checkIndexUnderNewestRules(query, in: call.namespace, at: path) }
        let hub = call.namespace.hub
        let store = call.namespace.database.store
        // A stream opened with an ID token ends with `auth_revoked` once the token expires, checked
        // at every delivery and keep-alive (so at most one keep-alive interval late).
        let expiresAt = Self.credentialExpiry(call)
        let check = readCheck(call, query: query)
        // A client that stops reading is dropped once its unwritten events pass the budget; closing
        // the connection ends the stalled write, and with it what the stream holds.
        let budget = StreamBudget(limit: configuration.streamBufferBytes) { [logger] in
            logger.notice("stream client too slow; disconnecting", metadata: ["hearth.path": "\(path)"])
            channel?.close(promise: nil)
        }
        let (id, deliveries) = hub.register(
            location: path, format: format, isQuery: query != nil, checksRules: check != nil,
            dataDependent: call.namespace.rules.ruleSet.readDependsOnData(path), budget: budget)
        let initial: (Node, UInt64)
        do {
            initial = try await service.checkedRead(path, in: call.namespace, access: call.access, query: query, rulesQuery: query)
        } catch {
            hub.unregister(id: id, location: path)
            throw error
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        headers[.connection] = "keep-alive"
        headers[.accessControlAllowOrigin] = "*"
        // End the stream as soon as the client goes away, not at the next write.
        let peerClosed = PeerClosedHandler { hub.unregister(id: id, location: path) }
        if let channel {
            try? await channel.pipeline.addHandler(peerClosed, position: .first).get()
        }
        let body = ResponseBody { writer in
            defer {
                hub.unregister(id: id, location: path)
                if let channel { channel.pipeline.removeHandler(peerClosed, promise: nil) }
            }
            var seen = initial.1
            var checkedAt = initial.1
            // What a query stream last sent: a new result goes out only when it reads differently
            // (a priority change is invisible in the plain format).
            var lastPut = ServerSentEvent.put(path: .root, node: initial.0, format: format)
            try await writer.write(ByteBuffer(bytes: lastPut))
            deliveryLoop: for await delivery in deliveries {
                if let expiresAt, service.clock() >= expiresAt {
                    try await writer.write(ByteBuffer(bytes: ServerSentEvent.authRevoked))
                    break deliveryLoop
                }
                switch delivery {
                case .recheck(let sequence):
                    guard sequence > checkedAt, case .user = call.access else { continue }
                    // Under the namespace's current rules, which may have just changed.
                    let (allowed, at) = try await service.readDecision(path, in: call.namespace, access: call.access, query: query)
                    checkedAt = at
                    if !allowed {
                        try await writer.write(ByteBuffer(bytes: ServerSentEvent.cancel("Permission denied")))
                        break deliveryLoop
                    }
                case .keepAlive:
                    try await writer.write(ByteBuffer(bytes: ServerSentEvent.keepAlive))
                case .event(let sequence, let buffer):
                    defer { budget.give(buffer.readableBytes) }
                    guard sequence > seen else { continue }
                    seen = sequence
                    try await writer.write(buffer)
                case .requery(let sequence):
                    guard sequence > seen, let query else { continue }
                    let (node, at) = try await store.snapshot { reader in (try reader.query(path, query), try reader.sequence()) }
                    seen = max(seen, at)
                    let put = ServerSentEvent.put(path: .root, node: node, format: format)
                    if put != lastPut {
                        lastPut = put
                        try await writer.write(ByteBuffer(bytes: put))
                    }
                case .resync:
                    // Commits were lost on the way here: the whole value again, as a put at the root
                    // (what a client does with the stream's first event), then events after it.
                    let (node, at) = try await store.snapshot { reader in
                        (try query.map { try reader.query(path, $0) } ?? reader.read(path), try reader.sequence())
                    }
                    seen = max(seen, at)
                    let put = ServerSentEvent.put(path: .root, node: node, format: format)
                    if query == nil || put != lastPut {
                        lastPut = put
                        try await writer.write(ByteBuffer(bytes: put))
                    }
                }
            }
            logger.debug("stream ended", metadata: ["hearth.path": "\(path)"])
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// When the ID token a request came with expires, in milliseconds since 1970 (nil for the admin
    /// credential, overrides and signed-out requests).
    static func credentialExpiry(_ call: RestCall) -> Int64? {
        guard case .token = call.identity, case .object(let claims)? = call.access.auth?["token"] else { return nil }
        switch claims.first(where: { $0.key == "exp" })?.value {
        case .int(let seconds)?: return seconds.multipliedReportingOverflow(by: 1000).overflow ? nil : seconds * 1000
        case .double(let seconds)?: return Int64(exactly: (seconds * 1000).rounded(.down))
        default: return nil
        }
    }
}
