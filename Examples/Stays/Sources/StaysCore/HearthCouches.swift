import Foundation
import Hearth
import HearthCore
import HearthGeo

struct HearthCouches: CouchRepository {
    let auth: Auth
    let database: Database

    /// `/couches/{couchId}` as its host writes it (`photos` are the trigger's; `createdAt` the server's clock).
    struct Write: Encodable {
        var hostId: String
        var title: String
        var description: String
        var address: String
        var city: String
        var location: LatLng
        var capacity: Int
        var createdAt : Hearth.ServerValue = .timestamp
    }

    func create(_ draft: CouchDraft) async throws(AppError) -> String {
        guard let uid = auth.currentUser?.uid else { throw .notSignedIn }
        let ref = database.reference("couches").childByAutoId()
        let value = Write(
            hostId: uid, title: draft.title, description: draft.description, address: draft.place.address, city: draft.place.city,
            location: LatLng(draft.place.location), capacity: draft.capacity)
        try await mapped { try await ref.setValue(value) }
        return ref.key ?? ""
    }

    func update(_ couchID: String, with draft: CouchDraft) async throws(AppError) {
        guard isKey(couchID) else { throw .notFound }
        let fields: [String: any Encodable] = [
            "title": draft.title, "description": draft.description, "address": draft.place.address, "city": draft.place.city,
            "location": LatLng(draft.place.location), "capacity": draft.capacity,
        ]
        try await mapped { try await database.reference("couches").child(couchID).updateChildValues(fields) }
    }

    func couch(_ couchID: String) async throws(AppError) -> Couch? {
        guard isKey(couchID) else { return nil }
        return try await mapped { try await decodedValue(database.reference("couches").child(couchID), Couch.self, id: \.id) }
    }

    func couches(inCity city: String) async throws(AppError) -> [Couch] {
        try await query(child: "city", equalTo: city)
    }

    func couches(ofHost hostID: String) async throws(AppError) -> [Couch] {
        try await query(child: "hostId", equalTo: hostID)
    }

    private func query(child: String, equalTo value: String) async throws(AppError) -> [Couch] {
        try await mapped {
            let query = database.reference("couches").queryOrdered(byChild: child).queryEqual(toValue: .string(value))
            return try decodedChildren(try await query.getSnapshot(), Couch.self, id: \.id).sorted(by: Couch.newestFirst)
        }
    }
}

extension Couch {
    /// Newest first: later `createdAt`, then the greater key.
    static func newestFirst(_ a: Couch, _ b: Couch) -> Bool { (a.createdAt, a.id) > (b.createdAt, b.id) }
}
