/// Parses a Storage rules file into an unresolved syntax tree:
///
/// ```
/// file     := ['rules_version' '=' string ';'] 'service' name '{' body '}'
/// body     := (match | function | allow)*            (allow only inside match)
/// match    := 'match' path '{' body '}'
/// allow    := 'allow' method (',' method)* [':' 'if' expr] ';'
/// function := 'function' name '(' [name (',' name)*] ')' '{' ('let' name '=' expr ';')* 'return' expr [';'] '}'
/// ```
struct StorageParser {
    var lexer: StorageLexer
    var token: StorageToken
    var version = 1

    static let reservedNames: Set<String> = [
        "true", "false", "null", "in", "is", "if", "let", "return", "function", "match", "allow", "service",
        "rules_version", "request", "resource",
    ]

    init(_ source: String) throws(RulesError) {
        lexer = StorageLexer(source)
        guard lexer.bytes.count <= StorageLimits.maxSourceBytes else {
            throw lexer.error("Rules source is larger than \(StorageLimits.maxSourceBytes / 1024) KiB", at: 0)
        }
        token = StorageToken(kind: .end, offset: 0)
        token = try lexer.next()
    }

    func error(_ message: String, at offset: Int? = nil) -> RulesError { lexer.error(message, at: offset ?? token.offset) }

    mutating func advance() throws(RulesError) { token = try lexer.next() }

    func isSymbol(_ s: StorageToken.Symbol) -> Bool { token.kind == .symbol(s) }
    func isKeyword(_ k: String) -> Bool { token.kind == .identifier(k) }

    @discardableResult
    mutating func expect(_ s: StorageToken.Symbol, _ context: String) throws(RulesError) -> Int {
        guard isSymbol(s) else { throw error("Expected '\(s.rawValue)' \(context), found \(token.display)") }
        let offset = token.offset
        try advance()
        return offset
    }

    mutating func identifier(_ what: String) throws(RulesError) -> (String, Int) {
        guard case .identifier(let name) = token.kind else { throw error("Expected \(what), found \(token.display)") }
        let offset = token.offset
        try advance()
        return (name, offset)
    }

    /// The whole file: the service body as a root block with no path of its own.
    mutating func parseFile() throws(RulesError) -> StorageSyntaxBlock {
        if isKeyword("rules_version") {
            try advance()
            try expect(.assign, "after rules_version")
            guard case .string(let v) = token.kind, v == "1" || v == "2" else {
                throw error("rules_version must be '1' or '2'")
            }
            version = v == "2" ? 2 : 1
            try advance()
            try expect(.semicolon, "after the rules_version declaration")
        }
        guard isKeyword("service") else {
            throw error("Expected 'service firebase.storage', found \(token.display)")
        }
        try advance()
        let nameOffset = token.offset
        var (name, _) = try identifier("a service name")
        while isSymbol(.dot) {
            try advance()
            name += "." + (try identifier("a service name")).0
        }
        guard name == "firebase.storage" else {
            throw error("This file declares service \(name); storage rules need service firebase.storage", at: nameOffset)
        }
        var root = StorageSyntaxBlock()
        let open = try expect(.lbrace, "to open the service body")
        try parseBody(into: &root, isService: true, open: open, depth: 0)
        guard token.kind == .end else { throw error("Unexpected \(token.display) after the service block") }
        return root
    }

    /// Statements up to and including the closing `}`.
    mutating func parseBody(into block: inout StorageSyntaxBlock, isService: Bool, open: Int, depth: Int) throws(RulesError) {
        while true {
            switch token.kind {
            case .symbol(.rbrace):
                try advance()
                return
            case .identifier("match"):
                guard depth < StorageLimits.maxMatchDepth else {
                    throw error("match blocks nest deeper than \(StorageLimits.maxMatchDepth) levels")
                }
                block.children.append(try parseMatch(depth: depth + 1))
            case .identifier("function"):
                block.functions.append(try parseFunction())
            case .identifier("allow"):
                if isService { throw error("allow statements belong inside a match block") }
                block.allows.append(try parseAllow())
            case .end:
                throw error("Missing '}' for the block opened here", at: open)
            default:
                throw error("Expected match, allow or function, found \(token.display)")
            }
        }
    }

    mutating func parseMatch(depth: Int) throws(RulesError) -> StorageSyntaxBlock {
        var block = StorageSyntaxBlock()
        block.offset = token.offset
        try advance()
        guard isSymbol(.slash) else { throw error("Expected a path starting with '/' after match, found \(token.display)") }
        try scanMatchPath(into: &block)
        let open = try expect(.lbrace, "to open the match block")
        try parseBody(into: &block, isService: false, open: open, depth: depth)
        return block
    }

    mutating func parseFunction() throws(RulesError) -> StorageSyntaxFunction {
        try advance()
        let (name, offset) = try identifier("a function name")
        if Self.reservedNames.contains(name) { throw error("'\(name)' is reserved and cannot name a function", at: offset) }
        try expect(.lparen, "after the function name")
        var parameters: [(String, Int)] = []
        if !isSymbol(.rparen) {
            repeat {
                if !parameters.isEmpty { try advance() }
                let p = try identifier("a parameter name")
                if Self.reservedNames.contains(p.0) { throw error("'\(p.0)' is reserved and cannot name a parameter", at: p.1) }
                if parameters.contains(where: { $0.0 == p.0 }) { throw error("Parameter '\(p.0)' is declared twice", at: p.1) }
                parameters.append(p)
            } while isSymbol(.comma)
        }
        try expect(.rparen, "to close the parameter list")
        try expect(.lbrace, "to open the function body")
        var lets: [(String, Int, StorageExpr)] = []
        while isKeyword("let") {
            if version < 2 { throw error("let bindings need rules_version = '2'") }
            try advance()
            let (letName, letOffset) = try identifier("a variable name after let")
            if Self.reservedNames.contains(letName) { throw error("'\(letName)' is reserved", at: letOffset) }
            try expect(.assign, "after the let variable name")
            let value = try expression(depth: 0)
            try expect(.semicolon, "after the let binding")
            lets.append((letName, letOffset, value))
        }
        guard isKeyword("return") else {
            throw error("A function body is `let` bindings followed by `return <expression>;`, found \(token.display)")
        }
        try advance()
        let body = try expression(depth: 0)
        if isSymbol(.semicolon) { try advance() }
        try expect(.rbrace, "to close the function body (one return per function)")
        return StorageSyntaxFunction(
            name: name, offset: offset, parameters: parameters.map { (name: $0.0, offset: $0.1) },
            lets: lets.map { (name: $0.0, offset: $0.1, value: $0.2) }, body: body)
    }

    mutating func parseAllow() throws(RulesError) -> StorageSyntaxAllow {
        let start = token.offset
        try advance()
        var methods: StorageMethodSet = []
        repeat {
            if !methods.isEmpty { try advance() }
            guard case .identifier(let word) = token.kind, let m = StorageMethodSet(keyword: word) else {
                throw error("Expected a method (read, write, get, list, create, update, delete), found \(token.display)")
            }
            methods.formUnion(m)
            try advance()
        } while isSymbol(.comma)
        var condition: StorageExpr?
        if isSymbol(.colon) {
            try advance()
            guard isKeyword("if") else { throw error("Expected 'if' after ':' in an allow statement, found \(token.display)") }
            try advance()
            condition = try expression(depth: 0)
        } else if isKeyword("if") {
            throw error("Expected ':' before 'if'")
        }
        guard isSymbol(.semicolon) else { throw error("Expected ';' after the allow statement, found \(token.display)") }
        let end = token.offset + 1
        try advance()
        return StorageSyntaxAllow(methods: methods, condition: condition, offset: start, text: sourceText(start..<end))
    }

    /// Source text with runs of whitespace collapsed, capped at 200 characters.
    func sourceText(_ range: Range<Int>) -> String {
        let text = String(decoding: lexer.bytes[range], as: UTF8.self)
            .split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
            .joined(separator: " ")
        return text.count > 200 ? String(text.prefix(199)) + "…" : text
    }
}
