import HTTPTypes
import HearthCore
import HearthDatabase
import HearthStore
import HearthWire
import Hummingbird

extension DatabaseController {
    func checkWriteSizeLimit(_ p: [String: String]) throws {
        guard let v = p["writeSizeLimit"] else { return }
        guard ["tiny", "small", "medium", "large", "unlimited"].contains(v) else {
            throw RestError.badRequest("Invalid writeSizeLimit: use tiny, small, medium, large or unlimited")
        }
    }

    func commit(_ call: RestCall, _ request: WriteRequest) async throws -> WriteOutcome {
        try await service.commit(request, namespace: call.namespace, access: call.access)
    }

    func respondToWrite(_ call: RestCall, _ outcome: WriteOutcome) -> Response {
        switch outcome {
        case .committed(let echo, let etag):
            var headers = HTTPFields()
            if let etag { headers[.eTag] = etag }
            return render(call, echo.restBody, headers: headers)
        case .preconditionFailed(let current, let etag):
            var headers = HTTPFields()
            headers[.eTag] = etag
            return Responses.json(current.jsonBytes(), status: .preconditionFailed, headers: headers)
        }
    }

    func put(_ call: RestCall, request: Request) async throws -> Response {
        try checkWriteSizeLimit(call.parameters)
        let json = try await body(request)
        let ifMatch = request.headers[.ifMatchHeader]
        if call.isPriority {
            let outcome = try await commit(call, WriteRequest(
                path: call.path, operation: try service.priorityOperation(json), ifMatch: ifMatch, wantsETag: ifMatch != nil))
            return respondToWrite(call, outcome)
        }
        let parsed = try service.parseWrite(json, at: call.path)
        let outcome = try await commit(call, WriteRequest(path: call.path, operation: .set(parsed), ifMatch: ifMatch, wantsETag: ifMatch != nil))
        return respondToWrite(call, outcome)
    }

    func post(_ call: RestCall, request: Request) async throws -> Response {
        try checkWriteSizeLimit(call.parameters)
        let json = try await body(request)
        // The child is one level below the path; the writer names it when it commits.
        let parsed = try service.parseWrite(json, depth: call.path.count + 1)
        let outcome = try await commit(call, WriteRequest(path: call.path, operation: .push(parsed)))
        return respondToWrite(call, outcome)
    }

    func delete(_ call: RestCall, request: Request) async throws -> Response {
        let ifMatch = request.headers[.ifMatchHeader]
        // DELETE of `<path>/.priority` clears the priority; the node stays.
        let operation: WriteRequest.Operation = call.isPriority
            ? .setPriority(nil, placeholder: nil) : .set(ParsedWrite(node: .empty, placeholders: []))
        let outcome = try await commit(call, WriteRequest(path: call.path, operation: operation, ifMatch: ifMatch, wantsETag: ifMatch != nil))
        if case .committed(_, let etag) = outcome {
            var headers = HTTPFields()
            if let etag { headers[.eTag] = etag }
            return render(call, Array("null".utf8), headers: headers)
        }
        return respondToWrite(call, outcome)
    }

    func patch(_ call: RestCall, request: Request) async throws -> Response {
        try checkWriteSizeLimit(call.parameters)
        let json = try await body(request)
        let members: [JSONMember]
        switch json {
        case .null:
            let outcome = try await commit(call, WriteRequest(path: call.path, operation: .set(ParsedWrite(node: .empty, placeholders: []))))
            return respondToWrite(call, outcome)
        case .object(let m): members = m
        default: throw RestError.badRequest(ErrorMessage.invalidPatch)
        }
        let outcome = try await commit(call, WriteRequest(path: call.path, operation: try service.updateOperation(members, at: call.path)))
        return respondToWrite(call, outcome)
    }
}
