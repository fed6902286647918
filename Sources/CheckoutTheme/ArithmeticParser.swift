/// Recursive-descent parser for arithmetic token values.
///
/// Grammar: `sum := product (("+"|"-") product)*`, `product := unary (("*"|"/") unary)*`,
/// `unary := "-" unary | primary`, `primary := number | {path} | "(" sum ")"`.
/// Input is bounded by `ArithmeticLexer.maximumLexemes`, so recursion depth is bounded too.
struct ArithmeticParser {
    private let lexemes: [ArithmeticLexer.Lexeme]
    private var position = 0

    private init(_ lexemes: [ArithmeticLexer.Lexeme]) { self.lexemes = lexemes }

    /// Parses a whole expression.
    static func parse(_ text: String) throws(ArithmeticError) -> ArithmeticExpression {
        var parser = ArithmeticParser(try ArithmeticLexer.lexemes(text))
        guard !parser.lexemes.isEmpty else { throw .syntax("empty expression") }
        let expression = try parser.sum()
        guard parser.position == parser.lexemes.count else { throw .syntax("unexpected \(parser.describeCurrent())") }
        return expression
    }

    private mutating func sum() throws(ArithmeticError) -> ArithmeticExpression {
        var result = try product()
        while case .operation(let operation)? = current, operation == "+" || operation == "-" {
            position += 1
            result = .binary(operation, result, try product())
        }
        return result
    }

    private mutating func product() throws(ArithmeticError) -> ArithmeticExpression {
        var result = try unary()
        while case .operation(let operation)? = current, operation == "*" || operation == "/" {
            position += 1
            result = .binary(operation, result, try unary())
        }
        return result
    }

    private mutating func unary() throws(ArithmeticError) -> ArithmeticExpression {
        if case .operation("-")? = current {
            position += 1
            return .negate(try unary())
        }
        return try primary()
    }

    private mutating func primary() throws(ArithmeticError) -> ArithmeticExpression {
        guard let lexeme = current else { throw .syntax("unexpected end of expression") }
        position += 1
        switch lexeme {
        case .number(let value, let isDimension):
            return .literal(value, isDimension: isDimension)
        case .reference(let path):
            return .reference(path)
        case .open:
            let inner = try sum()
            guard current == .close else { throw .syntax("missing ')'") }
            position += 1
            return inner
        case .close, .operation:
            position -= 1
            throw .syntax("unexpected \(describeCurrent())")
        }
    }

    private var current: ArithmeticLexer.Lexeme? { position < lexemes.count ? lexemes[position] : nil }

    private func describeCurrent() -> String {
        switch current {
        case nil: "end of expression"
        case .number(let value, _)?: "number \(value)"
        case .reference(let path)?: "reference {\(path)}"
        case .operation(let operation)?: "'\(operation)'"
        case .open?: "'('"
        case .close?: "')'"
        }
    }
}
