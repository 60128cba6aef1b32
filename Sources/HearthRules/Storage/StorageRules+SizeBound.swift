/// The largest upload the rules could allow, read from the rules before the bytes arrive.
///
/// An upload without a declared length is streamed to disk, and the rules can only be asked about
/// `request.resource.size` once it is complete. To stop at the first byte past what they allow,
/// each `allow` condition covering create or update is read for an upper bound on the size:
///
/// - `request.resource.size < c`, `<= c`, `== c` (either side) bound it by `c`, where `c` is an
///   expression that cannot depend on the request or the stored object (literals, arithmetic,
///   path wildcards, pure builtins and methods), evaluated once;
/// - `a && b` is bounded by the smaller of the bounds found; `a || b` by the larger, and only
///   when both have one;
/// - anything else (a function call, `!`, a size compared with something that depends on the
///   request) has no bound.
///
/// This is sound: a size past the bound makes every condition false whatever else the request
/// holds, so stopping there never refuses an upload the rules would accept. When some condition
/// has no bound, there is none, and the largest object is the limit.
extension StorageRules {
    /// The largest `request.resource.size` any `allow` covering `create` or `update` of
    /// `objectName` could accept; nil when the rules do not bound it, -1 when no rule can allow
    /// an upload there at all.
    public func uploadSizeBound(bucket: String, objectName: String) -> Int64? {
        let request = StorageRulesRequest(method: .create, bucket: bucket, objectName: objectName, time: 0)
        let target = ["b", request.bucket, "o"] + request.path
        var evaluator = StorageEvaluator(functions: functions, request: request, target: target)
        var bound: Int64 = -1
        for block in blocks {
            guard let captures = StoragePathMatcher.match(block.pattern, target, version: version) else { continue }
            for rule in block.allows where rule.methods.contains(StorageRulesMethod.create.bit) || rule.methods.contains(StorageRulesMethod.update.bit) {
                guard let condition = rule.condition,
                    let ruleBound = Self.sizeBound(condition, captures: captures, evaluator: &evaluator)
                else { return nil }
                bound = max(bound, ruleBound)
            }
        }
        return bound
    }

    /// An upper bound on the sizes for which `e` can be true (nil: none found).
    static func sizeBound(_ e: StorageExpr, captures: [StorageValue], evaluator: inout StorageEvaluator) -> Int64? {
        switch e {
        case .and(let terms):
            return terms.compactMap { sizeBound($0, captures: captures, evaluator: &evaluator) }.min()
        case .or(let terms):
            var bound: Int64 = -1
            for term in terms {
                guard let b = sizeBound(term, captures: captures, evaluator: &evaluator) else { return nil }
                bound = max(bound, b)
            }
            return bound
        case .chain(let lhs, let rest) where rest.count == 1:
            let (op, rhs) = (rest[0].op, rest[0].operand)
            if isUploadSize(lhs), isFixed(rhs) {
                return comparisonBound(op, evaluator.value(of: rhs, captures: captures))
            }
            if isUploadSize(rhs), isFixed(lhs) {
                let flipped: StorageBinaryOperator? = switch op {
                case .greater: .less
                case .greaterOrEqual: .lessOrEqual
                case .equal: .equal
                default: nil
                }
                return flipped.flatMap { comparisonBound($0, evaluator.value(of: lhs, captures: captures)) }
            }
            return nil
        default:
            return nil
        }
    }

    /// The largest integer `size` with `size op c`, for the operators that bound it from above.
    static func comparisonBound(_ op: StorageBinaryOperator, _ c: StorageValue?) -> Int64? {
        let limit: Double
        switch c {
        case .int(let i)?:
            switch op {
            case .less: return i == .min ? -1 : i - 1
            case .lessOrEqual, .equal: return i
            default: return nil
            }
        case .float(let d)?: limit = d
        default: return nil
        }
        guard limit.isFinite else { return nil }
        let bound = switch op {
        case .less: limit.rounded(.up) - 1
        case .lessOrEqual, .equal: limit.rounded(.down)
        default: Double.nan
        }
        guard !bound.isNaN else { return nil }
        if bound >= 9.2e18 { return nil }
        return max(-1, Int64(bound))
    }

    /// `request.resource.size`.
    static func isUploadSize(_ e: StorageExpr) -> Bool {
        if case .member(.member(.variable(.request), "resource"), "size") = e { return true }
        return false
    }

    /// Whether `e`'s value is the same for every request on the object (it reads neither
    /// `request`, nor `resource`, nor anything a function or `let` could reach).
    static func isFixed(_ e: StorageExpr) -> Bool {
        switch e {
        case .literal: return true
        case .variable(.capture): return true
        case .chain(let first, let rest): return isFixed(first) && rest.allSatisfy { isFixed($0.operand) }
        case .negate(let inner): return isFixed(inner)
        case .builtin(let b, let args): return b != .firestoreGet && b != .firestoreExists && args.allSatisfy(isFixed)
        case .method(let base, _, let args, _): return isFixed(base) && args.allSatisfy(isFixed)
        case .member(let base, _): return isFixed(base)
        case .list(let items): return items.allSatisfy(isFixed)
        default: return false
        }
    }
}
