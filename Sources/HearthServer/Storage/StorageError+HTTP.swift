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
        case .insufficientStorage: 507
        case .backendError: 500
        }
    }

}
