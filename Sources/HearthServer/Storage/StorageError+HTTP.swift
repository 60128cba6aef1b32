import HearthStorage

extension StorageError {
    /// The HTTP status every storage API answers the code with.
    var status: Int {
        switch code {
        case .invalid: 400
        case .required, .authError: 401
        case .forbidden: 403
        case .notFound: 404
        case .conflict: 409
        case .conditionNotMet: 412
        case .uploadTooLarge: 413
        case .requestedRangeNotSatisfiable: 416
        case .backendError: 500
        }
    }

    /// An error kept with a resumable session, as it was stored (older sessions kept the status beside it).
    init(stored failure: UploadSession.Failure) {
        self.init(Code(rawValue: failure.reason) ?? .backendError, failure.message)
    }
}
