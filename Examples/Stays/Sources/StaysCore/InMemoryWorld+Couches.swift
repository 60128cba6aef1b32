import Foundation
import HearthGeo

/// Couches, their photos and the geocoder, as the rules, the storage trigger and the `geocode` callable treat them.
extension InMemoryWorld {
    /// What `/couches/$couchId` validates (rules.json); a refused write is `permissionDenied`.
    static func isValid(_ draft: CouchDraft) -> Bool {
        let location = draft.place.location
        return (1...100).contains(draft.title.utf16.count) && draft.description.utf16.count <= 5000
            && (1...300).contains(draft.place.address.utf16.count) && (1...100).contains(draft.place.city.utf16.count)
            && (-90...90).contains(location.latitude) && (-180...180).contains(location.longitude) && (1...50).contains(draft.capacity)
    }

    func createCouch(_ device: String, _ draft: CouchDraft) throws(AppError) -> String {
        try checkFailure()
        guard let uid = sessions[device], Self.isValid(draft) else { throw .permissionDenied }
        let id = newID("k")
        couches[id] = Couch(
            id: id, hostId: uid, title: draft.title, description: draft.description, address: draft.place.address, city: draft.place.city,
            location: draft.place.location, capacity: draft.capacity, createdAt: now())
        return id
    }

    func updateCouch(_ device: String, _ couchID: String, _ draft: CouchDraft) throws(AppError) {
        try checkFailure()
        guard let uid = sessions[device], var couch = couches[couchID], couch.hostId == uid, Self.isValid(draft) else { throw .permissionDenied }
        couch.title = draft.title
        couch.description = draft.description
        couch.address = draft.place.address
        couch.city = draft.place.city
        couch.location = draft.place.location
        couch.capacity = draft.capacity
        couches[couchID] = couch
    }

    func couch(_ couchID: String, device: String) throws(AppError) -> Couch? {
        try readable(device)
        return couches[couchID]
    }

    func couches(inCity city: String, device: String) throws(AppError) -> [Couch] {
        try readable(device)
        return couches.values.filter { $0.city == city }.sorted(by: Couch.newestFirst)
    }

    func couches(ofHost hostID: String, device: String) throws(AppError) -> [Couch] {
        try readable(device)
        return couches.values.filter { $0.hostId == hostID }.sorted(by: Couch.newestFirst)
    }

    func couches(near center: GeoPoint, radiusMeters: Double, device: String) throws(AppError) -> [NearbyCouch] {
        try readable(device)
        return couches.values.map { NearbyCouch(couch: $0, distance: haversineMeters(center, $0.location)) }
            .filter { $0.distance <= radiusMeters }
            .sorted { ($0.distance, $0.id) < ($1.distance, $1.id) }
    }

    /// storage.rules (uploader = the signed-in user, `image/*` under 10 MB) and the trigger (indexes only the host's
    /// uploads, with a download URL).
    func uploadPhoto(_ device: String, jpeg: Data, couchID: String) throws(AppError) -> CouchPhoto {
        try checkFailure()
        if let uploadFailure {
            self.uploadFailure = nil
            throw uploadFailure
        }
        guard let uid = sessions[device] else { throw .notSignedIn }
        guard jpeg.count < 10 * 1024 * 1024, Self.isID(couchID) else { throw .permissionDenied }
        let id = newID("p")
        let path = "couches/\(couchID)/\(id).jpg"
        objects[path] = jpeg
        // The trigger indexes a photo only when its uploader is the couch's host; anyone else's is deleted.
        guard var couch = couches[couchID], couch.hostId == uid else {
            objects[path] = nil
            throw .photoNotProcessed
        }
        let photo = CouchPhoto(id: id, path: path, url: "https://storage.stays.example.com/\(path)")
        couch.photos.append(photo)
        couches[couchID] = couch
        return photo
    }

    func geocode(_ device: String, address: String) throws(AppError) -> Place {
        try checkFailure()
        _ = try signedIn(device)
        guard !down.contains(.geocoder) else { throw .unavailable(.geocoder) }
        guard let entry = geocoder[Self.normalized(address)] else { throw .addressNotFound }
        return Place(address: address, city: entry.city, location: GeoPoint(latitude: entry.lat, longitude: entry.lng))
    }
}
