import CheckoutJSON
/// Resolves flattened raw tokens: interprets values, follows aliases and arithmetic, detects cycles.
///
/// A memoised depth-first search with an explicit stack (no recursion, so a 5,000-long alias chain
/// cannot overflow the stack) and an explicit "visiting" state: every token and every reference is
/// processed once, so the cost is linear in tokens plus references. Every problem is collected.
struct TokenResolution {
    private enum State {
        case unvisited
        case visiting
        case resolved(TokenValue)
        case failed
    }

    private let tokens: [RawToken]
    private let indexByPath: [String: Int]
    /// Parsed arithmetic of tokens whose whole value is an expression string (parsed once, in `init`).
    private var expressions: [Int: ArithmeticExpression] = [:]
    private var dependencies: [[Int]]
    private var states: [State]
    private var cycleMembers: Set<Int> = []
    private(set) var issues: [ThemeIssue] = []

    /// Resolves `tokens` (with `groups`, the paths that are groups, for alias-to-group errors).
    static func resolve(_ tokens: [RawToken], groups: Set<String>) -> (ResolvedTokens, [ThemeIssue]) {
        var resolution = TokenResolution(tokens: tokens, groups: groups)
        resolution.run()
        var resolved: [ResolvedToken] = []
        resolved.reserveCapacity(tokens.count)
        for (index, token) in tokens.enumerated() {
            if case .resolved(let value) = resolution.states[index] {
                resolved.append(ResolvedToken(path: token.path, value: value, description: token.description,
                                              deprecated: token.deprecated, extensions: token.extensions))
            }
        }
        return (ResolvedTokens(resolved), resolution.issues)
    }

    private init(tokens: [RawToken], groups: Set<String>) {
        self.tokens = tokens
        var indexByPath: [String: Int] = [:]
        indexByPath.reserveCapacity(tokens.count)
        for (index, token) in tokens.enumerated() { indexByPath[token.path] = index }
        self.indexByPath = indexByPath
        states = Array(repeating: .unvisited, count: tokens.count)
        dependencies = Array(repeating: [], count: tokens.count)
        for (index, token) in tokens.enumerated() {
            var valid = true
            let references: [String]
            if case .string(let text) = token.value, Self.wholeAlias(text) == nil, Self.containsBrace(text),
               let expression = try? ArithmeticParser.parse(text) {
                expressions[index] = expression
                references = expression.references
            } else {
                references = Self.references(in: token.value)
            }
            for reference in references {
                if let target = indexByPath[reference] {
                    dependencies[index].append(target)
                } else if groups.contains(reference) {
                    valid = false
                    issues.append(ThemeIssue(path: token.path, code: .aliasToGroup,
                                             message: "{\(reference)} is a group, not a token; point at one of its tokens"))
                } else {
                    valid = false
                    issues.append(ThemeIssue(path: token.path, code: .unknownAlias,
                                             message: "{\(reference)} does not name any token"))
                }
            }
            if !valid { states[index] = .failed }
        }
    }

    // MARK: - Traversal

    private mutating func run() {
        for root in tokens.indices {
            guard case .unvisited = states[root] else { continue }
            var stack: [(node: Int, next: Int)] = [(root, 0)]
            states[root] = .visiting
            while let top = stack.last {
                let node = top.node
                if top.next < dependencies[node].count {
                    let dependency = dependencies[node][top.next]
                    stack[stack.count - 1].next += 1
                    switch states[dependency] {
                    case .unvisited:
                        states[dependency] = .visiting
                        stack.append((dependency, 0))
                    case .visiting:
                        if let start = stack.lastIndex(where: { $0.node == dependency }) {
                            reportCycle(stack[start...].map(\.node))
                        }
                    case .resolved, .failed:
                        break
                    }
                } else {
                    stack.removeLast()
                    states[node] = cycleMembers.contains(node) ? .failed : evaluate(node)
                }
            }
        }
    }

    /// Reports the cycle `members[0] -> members[1] -> ... -> members[0]` once for each member, starting at it.
    private mutating func reportCycle(_ members: [Int]) {
        for (offset, member) in members.enumerated() {
            cycleMembers.insert(member)
            let rotated = members[offset...] + members[..<offset] + [member]
            let description = rotated.map { tokens[$0].path }.joined(separator: " -> ")
            issues.append(ThemeIssue(path: tokens[member].path, code: .cycle, message: "alias cycle: \(description)"))
        }
    }

    // MARK: - Evaluation

    private mutating func evaluate(_ index: Int) -> State {
        let token = tokens[index]
        for dependency in dependencies[index] {
            // A failed dependency has been reported at its own path; don't repeat it here.
            guard case .resolved = states[dependency] else { return .failed }
        }
        do throws(LiteralParser.Failure) {
            var ownType: TokenType?
            if let name = token.ownType {
                guard let type = TokenType(rawValue: name) else { throw Self.unsupported(name) }
                ownType = type
            }
            // A whole-value alias takes its own $type, else the aliased token's type (before any group type).
            if case .string(let text) = token.value, let target = Self.wholeAlias(text) {
                let value = try lookup(target)
                if let ownType, ownType != value.type {
                    throw LiteralParser.Failure(code: .typeMismatch,
                        message: "$type is \(ownType.rawValue) but {\(target)} is a \(value.type.rawValue)")
                }
                return .resolved(value)
            }
            var type = ownType
            if type == nil, let name = token.groupType {
                guard let groupType = TokenType(rawValue: name) else { throw Self.unsupported(name) }
                type = groupType
            }
            if let expression = expressions[index], case .string(let text) = token.value {
                return .resolved(try arithmetic(text, parsed: expression, as: type))
            }
            return .resolved(try interpret(token.value, as: type))
        } catch {
            issues.append(ThemeIssue(path: token.path, code: error.code, message: error.message))
            return .failed
        }
    }

    /// Interprets a value (alias, arithmetic or literal) as `type`; with no type only arithmetic can decide it.
    private func interpret(_ value: JSONValue, as type: TokenType?) throws(LiteralParser.Failure) -> TokenValue {
        if case .string(let text) = value {
            if let target = Self.wholeAlias(text) {
                let resolved = try lookup(target)
                if let type, type != resolved.type {
                    throw LiteralParser.Failure(code: .typeMismatch,
                        message: "expected a \(type.rawValue) but {\(target)} is a \(resolved.type.rawValue)")
                }
                return resolved
            }
            if type == .dimension || type == .number || (type == nil && Self.containsBrace(text)) {
                return try arithmetic(text, parsed: nil, as: type)
            }
        }
        guard let type else {
            throw LiteralParser.Failure(code: .missingType,
                message: "no $type on the token, on a token it aliases, or on any parent group")
        }
        if type == .typography { return .typography(try typography(value)) }
        return try LiteralParser.parse(value, as: type)
    }

    /// Evaluates arithmetic `text` (already `parsed` when known) and checks the result against `type`.
    private func arithmetic(_ text: String, parsed: ArithmeticExpression?, as type: TokenType?) throws(LiteralParser.Failure) -> TokenValue {
        do throws(ArithmeticError) {
            let expression: ArithmeticExpression
            if let parsed { expression = parsed } else { expression = try ArithmeticParser.parse(text) }
            let quantity = try expression.evaluate { (path) throws(ArithmeticError) in
                let value: TokenValue
                do throws(LiteralParser.Failure) { value = try lookup(path) } catch { throw .typeMismatch(error.message) }
                switch value {
                case .dimension(let points): return .init(value: points, isDimension: true)
                case .number(let number): return .init(value: number, isDimension: false)
                default: throw .typeMismatch("{\(path)} is a \(value.type.rawValue); arithmetic works on dimensions and numbers")
                }
            }
            let resultType: TokenType = quantity.isDimension ? .dimension : .number
            if let type, type != resultType {
                throw ArithmeticError.typeMismatch("'\(text)' is a \(resultType.rawValue) but $type is \(type.rawValue)")
            }
            return quantity.isDimension ? .dimension(quantity.value) : .number(quantity.value)
        } catch {
            switch error {
            case .syntax(let message):
                throw LiteralParser.Failure(code: .invalidExpression, message: "'\(text)' is not a valid expression: \(message)")
            case .badUnit(let message):
                throw LiteralParser.Failure(code: .badUnit, message: message)
            case .typeMismatch(let message):
                throw LiteralParser.Failure(code: .typeMismatch, message: message)
            case .divisionByZero:
                throw LiteralParser.Failure(code: .divisionByZero, message: "'\(text)' divides by zero")
            }
        }
    }

    private func typography(_ value: JSONValue) throws(LiteralParser.Failure) -> Typography {
        guard case .object(let object) = value else {
            throw LiteralParser.Failure(code: .typeMismatch, message: "a typography value must be an object, got \(value.kindName)")
        }
        let fields = ["fontFamily", "fontSize", "lineHeight", "fontWeight", "letterSpacing"]
        for (name, _) in object.members where !fields.contains(name) {
            throw LiteralParser.Failure(code: .invalidValue, message: "unknown typography field '\(name)'; expected \(fields.joined(separator: ", "))")
        }
        func field(_ name: String, _ type: TokenType) throws(LiteralParser.Failure) -> TokenValue {
            guard let member = object[name] else {
                throw LiteralParser.Failure(code: .invalidValue, message: "typography is missing \(name)")
            }
            do throws(LiteralParser.Failure) {
                return try interpret(member, as: type)
            } catch {
                throw LiteralParser.Failure(code: error.code, message: "\(name): \(error.message)")
            }
        }
        guard case .fontFamily(let families) = try field("fontFamily", .fontFamily),
              case .dimension(let fontSize) = try field("fontSize", .dimension),
              case .fontWeight(let weight) = try field("fontWeight", .fontWeight),
              case .dimension(let letterSpacing) = try field("letterSpacing", .dimension) else {
            throw LiteralParser.Failure(code: .typeMismatch, message: "typography fields have the wrong types")
        }
        let lineHeight: Double
        if case .number(let multiplier)? = object["lineHeight"] {
            lineHeight = multiplier * fontSize  // DTCG: a plain number is a multiple of the font size.
        } else if case .dimension(let points) = try field("lineHeight", .dimension) {
            lineHeight = points
        } else {
            throw LiteralParser.Failure(code: .typeMismatch, message: "lineHeight must be a dimension or a number")
        }
        return Typography(fontFamilies: families, fontSize: fontSize, lineHeight: lineHeight, fontWeight: weight, letterSpacing: letterSpacing)
    }

    private func lookup(_ path: String) throws(LiteralParser.Failure) -> TokenValue {
        guard let index = indexByPath[path], case .resolved(let value) = states[index] else {
            throw LiteralParser.Failure(code: .unknownAlias, message: "{\(path)} could not be resolved")
        }
        return value
    }

    private static func unsupported(_ name: String) -> LiteralParser.Failure {
        LiteralParser.Failure(code: .unsupportedType,
            message: "$type '\(name)' is not supported; use one of \(TokenType.allCases.map(\.rawValue).joined(separator: ", "))")
    }

    // MARK: - References

    /// The path of a whole-value alias `{a.b}`, or nil.
    static func wholeAlias(_ text: String) -> String? {
        guard text.utf8.first == UInt8(ascii: "{"), text.utf8.last == UInt8(ascii: "}"), text.utf8.count > 2 else { return nil }
        let inner = text.utf8.dropFirst().dropLast()
        guard !inner.contains(UInt8(ascii: "{")), !inner.contains(UInt8(ascii: "}")) else { return nil }
        return String(decoding: inner, as: UTF8.self)
    }

    /// Whether `text` contains `{` (byte scan: Foundation's `contains` is far slower).
    static func containsBrace(_ text: String) -> Bool { text.utf8.contains(UInt8(ascii: "{")) }

    /// Every path a raw value refers to (whole aliases, arithmetic references, typography fields).
    static func references(in value: JSONValue) -> [String] {
        switch value {
        case .string(let text):
            if let target = wholeAlias(text) { return [target] }
            guard containsBrace(text) else { return [] }
            return (try? ArithmeticParser.parse(text))?.references ?? []
        case .object(let object):
            return object.members.flatMap { member -> [String] in
                if case .string = member.value { return references(in: member.value) }
                return []
            }
        default:
            return []
        }
    }
}
