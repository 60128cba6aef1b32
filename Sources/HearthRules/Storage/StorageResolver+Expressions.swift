extension StorageResolver {
    func resolve(_ e: StorageExpr, _ context: Context) throws(RulesError) -> StorageExpr {
        func all(_ items: [StorageExpr]) throws(RulesError) -> [StorageExpr] {
            var out: [StorageExpr] = []
            out.reserveCapacity(items.count)
            for item in items { out.append(try resolve(item, context)) }
            return out
        }
        func optional(_ item: StorageExpr?) throws(RulesError) -> StorageExpr? {
            guard let item else { return nil }
            return try resolve(item, context)
        }
        switch e {
        case .literal, .variable:
            return e
        case .list(let items):
            return .list(try all(items))
        case .map(let entries):
            var out: [(key: StorageExpr, value: StorageExpr)] = []
            for entry in entries { out.append((try resolve(entry.key, context), try resolve(entry.value, context))) }
            return .map(out)
        case .path(let parts):
            var out: [StoragePathPart] = []
            for part in parts {
                if case .interpolated(.unresolvedName(let name, _)) = part, variableOrNil(name, context) == nil {
                    out.append(.placeholder(name))
                } else if case .interpolated(let inner) = part {
                    out.append(.interpolated(try resolve(inner, context)))
                } else {
                    out.append(part)
                }
            }
            return .path(out)
        case .member(let base, let name):
            return .member(try resolve(base, context), name)
        case .index(let base, let i):
            return .index(try resolve(base, context), try resolve(i, context))
        case .slice(let base, let lower, let upper):
            return .slice(try resolve(base, context), try optional(lower), try optional(upper))
        case .method(let base, let name, let args, let regex):
            return .method(try resolve(base, context), name, try all(args), regex: regex)
        case .builtin(let b, let args):
            return .builtin(b, try all(args))
        case .call(let index, let args):
            return .call(index, try all(args))
        case .not(let inner):
            return .not(try resolve(inner, context))
        case .negate(let inner):
            return .negate(try resolve(inner, context))
        case .chain(let first, let rest):
            var out: [(op: StorageBinaryOperator, operand: StorageExpr)] = []
            for r in rest { out.append((r.op, try resolve(r.operand, context))) }
            return .chain(try resolve(first, context), out)
        case .and(let terms):
            return .and(try all(terms))
        case .or(let terms):
            return .or(try all(terms))
        case .conditional(let c, let a, let b):
            return .conditional(try resolve(c, context), try resolve(a, context), try resolve(b, context))
        case .isType(let inner, let type):
            return .isType(try resolve(inner, context), type)
        case .unresolvedName(let name, let offset):
            if let v = variableOrNil(name, context) { return .variable(v) }
            if StorageBuiltin.namespaces.contains(name) {
                throw error("'\(name)' is a namespace of functions: call \(name).<function>(...)", at: offset)
            }
            throw error("Unknown variable '\(name)'", at: offset)
        case .unresolvedCall(let name, let args, let offset):
            return try call(name, try all(args), offset: offset, context)
        case .unresolvedMethod(let base, let name, let args, let offset, let argumentOffsets):
            if case .unresolvedName(let namespace, _) = base, variableOrNil(namespace, context) == nil,
                StorageBuiltin.namespaces.contains(namespace)
            {
                guard let builtin = StorageBuiltin(rawValue: namespace + "." + name) else {
                    throw error("Unknown function \(namespace).\(name)()", at: offset)
                }
                try checkArity(builtin.rawValue, expected: builtin.arity, got: args.count, at: offset)
                return .builtin(builtin, try all(args))
            }
            guard let method = StorageMethodName(rawValue: name) else { throw error("Unknown method \(name)()", at: offset) }
            try checkArity(name, expected: method.arity, got: args.count, at: offset)
            let resolvedArgs = try all(args)
            var regex: LinearRegex?
            if method.takesRegex, case .literal(.string(let pattern)) = resolvedArgs[0] {
                do {
                    regex = try LinearRegex(pattern)
                } catch {
                    throw self.error("Invalid regular expression: \(error.message)", at: argumentOffsets[0])
                }
            }
            return .method(try resolve(base, context), method, resolvedArgs, regex: regex)
        }
    }

    private func variableOrNil(_ name: String, _ context: Context) -> StorageVariable? {
        if let i = context.locals.lastIndex(of: name) { return .local(i) }
        if let i = context.scope.captures.firstIndex(of: name) { return .capture(i) }
        switch name {
        case "request": return .request
        case "resource": return .resource
        default: return nil
        }
    }

    private func call(_ name: String, _ args: [StorageExpr], offset: Int, _ context: Context) throws(RulesError) -> StorageExpr {
        if let index = context.scope.functions[name] {
            try checkArity(name, expected: functions[index].arity, got: args.count, at: offset)
            return .call(index, args)
        }
        if let builtin = StorageBuiltin(rawValue: name) {
            try checkArity(name, expected: builtin.arity, got: args.count, at: offset)
            return .builtin(builtin, args)
        }
        if StorageBuiltin.firestoreOnly.contains(name) {
            throw error("\(name)() reads Cloud Firestore documents in Firestore rules; storage rules write firestore.\(name)(...)", at: offset)
        }
        throw error("Unknown function \(name)()", at: offset)
    }

    private func checkArity(_ name: String, expected: Int, got: Int, at offset: Int) throws(RulesError) {
        guard expected != got else { return }
        throw error("\(name)() takes \(expected) argument\(expected == 1 ? "" : "s"), not \(got)", at: offset)
    }
}
