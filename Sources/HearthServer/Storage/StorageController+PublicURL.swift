import HearthCore
import HearthStore
import Logging
import Hummingbird

/// `GET /{bucket}/{name…}`: where google-cloud-storage's `blob.public_url` and v4 signed URLs
/// (`?X-Goog-Signature=…`) point when it talks to an emulator host.
///
/// Hearth has no public ACLs and cannot check Google's URL signatures, so these reads follow the
/// Cloud Storage JSON API's access: open in `--dev` (as the emulator serves them), otherwise only
/// with the admin credential. Apps hand out Firebase download URLs (`/v0/b/…?alt=media&token=…`)
/// for public reading instead.
extension StorageController {
    /// Whether `path` has the shape `/{bucket}/{name}` of a public object URL. A Realtime Database
    /// path ends in `.json` and its keys have no dots, so a bucket name with a dot
    /// (`demo.appspot.com`) can never be one.
    static func mayBePublicObject(_ path: String) -> Bool {
        let rest = path.dropFirst()
        guard let slash = rest.firstIndex(of: "/") else { return false }
        return !rest.hasSuffix(".json") || rest[..<slash].contains(".")
    }

    /// The object's bytes, or nil when the request is not for an object of an existing bucket (the
    /// other services answer it).
    func publicObject(_ request: Request) async -> Response? {
        guard request.method == .get || request.method == .head else { return nil }
        guard Self.mayBePublicObject(request.uri.path) else { return nil }
        let path = request.uri.path.dropFirst()
        guard let slash = path.firstIndex(of: "/") else { return nil }
        let bucketSegment = path[..<slash]
        let nameSegment = path[path.index(after: slash)...]
        guard !bucketSegment.isEmpty, !nameSegment.isEmpty, let bucket = percentDecode(bucketSegment),
            let name = percentDecode(nameSegment)
        else { return nil }
        do {
            guard try await service.catalog.read({ tx in try tx.bucket(bucket) }) != nil else { return nil }
            try requireAdmin(request)
            guard let object = try await service.object(bucket: bucket, name: name) else { throw StorageError.noSuchObject(bucket, name) }
            return try await download(request, object)
        } catch let error as StorageError {
            return Self.cloudError(error)
        } catch {
            logger.error("storage request failed", metadata: ["hearth.error": "\(error)"])
            return Self.cloudError(StorageError(status: 500, message: "Internal error", reason: "backendError"))
        }
    }
}
