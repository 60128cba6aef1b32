/// `request` and `resource` are read field by field: `request.auth.uid` or
/// `request.resource.size` never builds the whole map, and what is built is cached for the
/// rest of the request.
extension StorageEvaluator {
    struct RequestCache {
        var token: StorageValue?
        var auth: StorageValue?
        var incoming: StorageValue?
        var existing: StorageValue?
        var request: StorageValue?
    }

    /// `x.name` with fast paths for the request variables.
    @inline(never)
    mutating func evalMember(_ base: StorageExpr, _ name: String) throws(StorageEvalError) -> StorageValue {
        switch base {
        case .variable(.request):
            return try requestField(name)
        case .variable(.resource):
            return try Self.resourceField(request.existing, name)
        case .member(.variable(.request), "resource"):
            return try Self.resourceField(request.resource, name)
        case .member(.variable(.request), "auth"):
            guard let auth = request.auth else { throw StorageEvalError(.nullAccess(member: name)) }
            switch name {
            case "uid": return .string(auth.uid)
            case "token": return tokenValue()
            default: throw StorageEvalError(.missingKey(name))
            }
        default:
            return try member(try eval(base), name)
        }
    }

    private mutating func requestField(_ name: String) throws(StorageEvalError) -> StorageValue {
        switch name {
        case "auth": return authValue()
        case "method": return .string(request.method.rawValue)
        case "path": return .path(StoragePathValue(target))
        case "time": return .timestamp(requestTime)
        case "resource": return incomingValue()
        default: throw StorageEvalError(.missingKey(name))
        }
    }

    /// One field of a stored or incoming object, as `StorageRulesResource.value` would hold it.
    static func resourceField(_ r: StorageRulesResource?, _ name: String) throws(StorageEvalError) -> StorageValue {
        guard let r else { throw StorageEvalError(.nullAccess(member: name)) }
        func text(_ s: String?) -> StorageValue { s.map(StorageValue.string) ?? .null }
        switch name {
        case "name": return .string(r.name)
        case "bucket": return .string(r.bucket)
        case "size": return .int(r.size)
        case "contentType": return text(r.contentType)
        case "md5Hash": return text(r.md5Hash)
        case "metadata": return r.metadataValue
        default:
            guard case .map(let all) = r.value, let v = all[name] else { throw StorageEvalError(.missingKey(name)) }
            return v
        }
    }

    var requestTime: StorageTimestamp { StorageTimestamp(millis: request.time) ?? StorageTimestamp(seconds: 0)! }

    mutating func tokenValue() -> StorageValue {
        if let token = cache.token { return token }
        let converted = request.auth.map { StorageValue(json: $0.token) } ?? .null
        let token = converted.typeName == "map" ? converted : .map(StorageMap())
        cache.token = token
        return token
    }

    mutating func authValue() -> StorageValue {
        if let auth = cache.auth { return auth }
        var auth = StorageValue.null
        if let a = request.auth { auth = .map(StorageMap([("uid", .string(a.uid)), ("token", tokenValue())])) }
        cache.auth = auth
        return auth
    }

    mutating func incomingValue() -> StorageValue {
        if let v = cache.incoming { return v }
        let v = request.resource?.value ?? .null
        cache.incoming = v
        return v
    }

    mutating func existingValue() -> StorageValue {
        if let v = cache.existing { return v }
        let v = request.existing?.value ?? .null
        cache.existing = v
        return v
    }

    mutating func requestValue() -> StorageValue {
        if let v = cache.request { return v }
        let v = StorageValue.map(StorageMap([
            ("auth", authValue()), ("method", .string(request.method.rawValue)), ("path", .path(StoragePathValue(target))),
            ("resource", incomingValue()), ("time", .timestamp(requestTime)),
        ]))
        cache.request = v
        return v
    }
}
