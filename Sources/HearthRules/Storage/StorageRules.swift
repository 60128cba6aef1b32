/// A compiled Firebase Storage security rules file.
///
/// ```swift
/// let rules = try StorageRules(source: """
///     rules_version = '2';
///     service firebase.storage {
///       match /b/{bucket}/o {
///         match /users/{uid}/{file=**} {
///           allow read: if request.auth != null;
///           allow write: if request.auth.uid == uid
///                        && request.resource.size <= 5 * 1024 * 1024
///                        && request.resource.contentType.matches('image/.*');
///         }
///       }
///     }
///     """)
/// let decision = rules.evaluate(StorageRulesRequest(
///     method: .get, bucket: "demo.appspot.com", objectName: "users/alice/avatar.jpg",
///     auth: StorageRulesAuth(uid: "bob"), time: now))
/// if !decision.allowed { logger.debug("denied", metadata: ["why": "\(decision.reason)"]) }
/// ```
///
/// Compiling checks syntax, names, argument counts and literal regular expressions; errors carry
/// the line and column. Evaluation is pure and bounded: deny by default, any `allow` of a matching
/// block that evaluates to `true` grants, an error inside a condition makes that condition false,
/// function calls nest at most 20 deep and each request has a fixed work budget.
public struct StorageRules: Sendable {
    /// The rules file as given.
    public let source: String
    /// `rules_version`: 1 (the default when the file does not say) or 2. Version 2 lets
    /// `{name=**}` match zero or more segments anywhere in a path and allows `let` in functions.
    public let version: Int
    let blocks: [StorageMatchBlock]
    let functions: [StorageFunction]

    /// A documented default for servers with no rules configured: any signed-in user may read and
    /// write everything.
    public static let defaultSource = """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            match /{allPaths=**} {
              allow read, write: if request.auth != null;
            }
          }
        }
        """

    /// Compiles a rules file; the error names the line and column (1-based) of the problem.
    public init(source: String) throws(RulesError) {
        var parser = try StorageParser(source)
        let root = try parser.parseFile()
        var resolver = StorageResolver(locator: parser.lexer.locator, version: parser.version)
        try resolver.resolve(root: root)
        self.source = source
        version = parser.version
        blocks = resolver.blocks
        functions = resolver.functions
    }

    /// Every `match` block's full path with the methods its `allow`s cover, for inspection:
    /// (`/b/{bucket}/o/users/{uid}`, line, `allow read: if …;`).
    public var allowStatements: [(matchPath: String, line: Int, text: String)] {
        blocks.flatMap { $0.allows.map { ($0.matchPath, $0.line, $0.text) } }
    }

    /// Decides one request. Never throws and never traps: errors inside conditions deny.
    public func evaluate(_ request: StorageRulesRequest) -> StorageRulesDecision {
        let target = ["b", request.bucket, "o"] + request.path
        let method = request.method.bit
        var evaluator = StorageEvaluator(functions: functions, request: request, target: target)
        var matchedBlocks = 0
        var tried = 0
        var last: (rule: StorageAllowRule, failure: StorageEvalError?)?
        for block in blocks {
            guard let captures = StoragePathMatcher.match(block.pattern, target, version: version) else { continue }
            matchedBlocks += 1
            for rule in block.allows where rule.methods.contains(method) {
                tried += 1
                guard let condition = rule.condition else { return StorageRulesDecision(.granted(rule)) }
                switch evaluator.check(condition, captures: captures) {
                case .success(true): return StorageRulesDecision(.granted(rule))
                case .success(false): last = (rule, nil)
                case .failure(let e): last = (rule, e)
                }
            }
        }
        if let last { return StorageRulesDecision(.denied(request.method, tried: tried, last: last.rule, failure: last.failure)) }
        if matchedBlocks > 0 { return StorageRulesDecision(.noAllow(request.method, matchedBlocks: matchedBlocks)) }
        return StorageRulesDecision(.noMatch(request.method))
    }
}
