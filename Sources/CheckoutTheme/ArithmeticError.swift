/// Why an arithmetic token value could not be parsed or evaluated (mapped to a `ThemeIssue` by the resolver).
enum ArithmeticError: Error, Equatable {
    /// The text is not a valid expression.
    case syntax(String)
    /// A number literal has an unknown unit.
    case badUnit(String)
    /// Operands of incompatible types (e.g. a colour, or dimension + number).
    case typeMismatch(String)
    /// Division by zero.
    case divisionByZero
}
