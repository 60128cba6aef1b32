import HearthCore
import HearthDatabase
import HearthStore
import Hummingbird

extension DatabaseController {
    /// `GET …?shallow=values`, a Hearth extension (Firebase has no equivalent): the location's children one level
    /// deep, **primitive children as their values and object children as `{}`** (an empty object, which no stored
    /// value can be, so a `true` leaf and an object are never confused): `{"users":{},"motd":"Spring sale"}`. At a
    /// primitive location, the primitive; at an empty one, `null`. Like `shallow=true` it combines only with key
    /// paging (`orderBy="$key"`, `startAt`, `startAfter`, `limitToFirst`), and reads one row per child listed,
    /// never a child's subtree: the console's data tree pages through a node of 10⁶ children this way. Read rules
    /// apply as to `shallow=true`.
    func shallowValues(_ call: RestCall) async throws -> Response {
        try await call.namespace.underNewestRules({ _ in
            let query = try shallowQuery(call.parameters)
            let check = readCheck(call, query: query)
            let path = call.path
            let value: JSONValue = try await call.namespace.database.store.snapshot { reader in
                try check?(reader)
                let listing = try reader.shallow(path, query)
                switch listing.content {
                case .empty: return .null
                case .leaf(let leaf): return leaf.json
                case .children(let children):
                    var members: [JSONMember] = []
                    members.reserveCapacity(children.count)
                    for key in children.keys {
                        switch try reader.summary(path.child(key)) {
                        case .absent: continue
                        case .leaf(let leaf, _): members.append(JSONMember(key.string, leaf.json))
                        case .object: members.append(JSONMember(key.string, .object([])))
                        }
                    }
                    return .object(members)
                }
            }
            var writer = JSONWriter(pretty: call.pretty)
            writer.write(value)
            return render(call, writer.bytes)
        }, refused: { error in
            guard case .permissionDenied? = error as? DatabaseError else { return false }
            return true
        })
    }
}
