/// Second compile pass: flattens `match` blocks into full patterns, gives every function an index,
/// and resolves names (wildcards, parameters, `let`s, `request`, `resource`, functions, builtins,
/// methods) so evaluation never looks anything up by name. Unknown names, wrong argument counts
/// and invalid literal regexes are compile errors here.
struct StorageResolver {
    let locator: SourceLocator
    let version: Int
    private(set) var functions: [StorageFunction] = []
    private(set) var blocks: [StorageMatchBlock] = []

    /// What names mean inside one block.
    struct Scope {
        var pattern: [StoragePatternSegment] = []
        var captures: [String] = []
        /// Visible functions (inner declarations shadow outer ones) → index.
        var functions: [String: Int] = [:]
    }

    /// Scope plus the local slots of the function being compiled.
    struct Context {
        var scope: Scope
        var locals: [String] = []
    }

    init(locator: SourceLocator, version: Int) {
        self.locator = locator
        self.version = version
    }

    func error(_ message: String, at offset: Int) -> RulesError { locator.error(message, at: offset) }

    mutating func resolve(root: StorageSyntaxBlock) throws(RulesError) {
        try block(root, scope: Scope(), isRoot: true)
    }

    private mutating func block(_ syntax: StorageSyntaxBlock, scope outer: Scope, isRoot: Bool) throws(RulesError) {
        var scope = outer
        for (k, segment) in syntax.segments.enumerated() {
            let offset = syntax.segmentOffsets[k]
            switch segment {
            case .literal: break
            case .single(let name), .recursive(let name):
                if scope.captures.contains(name) { throw error("The wildcard '\(name)' is already bound by an enclosing match", at: offset) }
                scope.captures.append(name)
                if case .recursive = segment, version < 2, k != syntax.segments.count - 1 || !syntax.children.isEmpty {
                    throw error("With rules_version '1' a {name=**} wildcard must end the path and have no nested match; use rules_version = '2'", at: offset)
                }
            }
            scope.pattern.append(segment)
        }
        // Declare every function of this block first: calls may come before declarations.
        var declared: Set<String> = []
        let firstIndex = functions.count
        for f in syntax.functions {
            guard declared.insert(f.name).inserted else { throw error("Function '\(f.name)' is declared twice in this block", at: f.offset) }
            scope.functions[f.name] = functions.count
            functions.append(StorageFunction(name: f.name, arity: f.parameters.count, lets: [], body: .literal(.null)))
        }
        for (k, f) in syntax.functions.enumerated() {
            var context = Context(scope: scope, locals: f.parameters.map(\.name))
            var lets: [StorageExpr] = []
            for binding in f.lets {
                if context.locals.contains(binding.name) { throw error("'\(binding.name)' is already defined in this function", at: binding.offset) }
                lets.append(try resolve(binding.value, context))
                context.locals.append(binding.name)
            }
            let body = try resolve(f.body, context)
            functions[firstIndex + k] = StorageFunction(name: f.name, arity: f.parameters.count, lets: lets, body: body)
        }
        if !isRoot {
            let display = "/" + scope.pattern.map(\.text).joined(separator: "/")
            var allows: [StorageAllowRule] = []
            for a in syntax.allows {
                let condition = try a.condition.map { (c) throws(RulesError) in try resolve(c, Context(scope: scope)) }
                let location = locator.error("", at: a.offset)
                allows.append(StorageAllowRule(
                    methods: a.methods, condition: condition, line: location.line, column: location.column,
                    text: a.text, matchPath: display))
            }
            blocks.append(StorageMatchBlock(pattern: scope.pattern, allows: allows))
        }
        for child in syntax.children { try block(child, scope: scope, isRoot: false) }
    }
}
