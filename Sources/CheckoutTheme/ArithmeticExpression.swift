/// A parsed arithmetic token value: numbers, dimensions, `{references}` and `+ - * /`.
///
/// Not part of DTCG; supported because deriving spacing from `space.base` is what makes an
/// override of the base rescale the whole scale.
indirect enum ArithmeticExpression: Equatable {
    /// A literal (a dimension in points when `isDimension`).
    case literal(Double, isDimension: Bool)
    /// A reference to another token by path.
    case reference(String)
    /// Unary minus.
    case negate(ArithmeticExpression)
    /// A binary operation: one of `+ - * /`.
    case binary(Character, ArithmeticExpression, ArithmeticExpression)

    /// A number or a dimension (points): the only things arithmetic works on.
    struct Quantity: Equatable {
        let value: Double
        let isDimension: Bool
    }

    /// Every referenced path, in order of appearance.
    var references: [String] {
        switch self {
        case .literal: []
        case .reference(let path): [path]
        case .negate(let operand): operand.references
        case .binary(_, let left, let right): left.references + right.references
        }
    }

    /// Evaluates with `lookup` supplying referenced quantities (it throws for non-numeric tokens).
    ///
    /// Rules: dimension ± dimension, number ± number; dimension × number (either order); dimension ÷ number,
    /// dimension ÷ dimension (a ratio, a number), number ÷ number. Anything else is a type mismatch.
    func evaluate(_ lookup: (String) throws(ArithmeticError) -> Quantity) throws(ArithmeticError) -> Quantity {
        switch self {
        case .literal(let value, let isDimension):
            return Quantity(value: value, isDimension: isDimension)
        case .reference(let path):
            return try lookup(path)
        case .negate(let operand):
            let value = try operand.evaluate(lookup)
            return Quantity(value: -value.value, isDimension: value.isDimension)
        case .binary(let operation, let leftExpression, let rightExpression):
            let left = try leftExpression.evaluate(lookup)
            let right = try rightExpression.evaluate(lookup)
            func name(_ quantity: Quantity) -> String { quantity.isDimension ? "a dimension" : "a number" }
            switch operation {
            case "+", "-":
                guard left.isDimension == right.isDimension else {
                    throw .typeMismatch("cannot \(operation == "+" ? "add" : "subtract") \(name(right)) and \(name(left))")
                }
                let value = operation == "+" ? left.value + right.value : left.value - right.value
                return Quantity(value: value, isDimension: left.isDimension)
            case "*":
                guard !(left.isDimension && right.isDimension) else {
                    throw .typeMismatch("cannot multiply two dimensions; multiply a dimension by a number")
                }
                return Quantity(value: left.value * right.value, isDimension: left.isDimension || right.isDimension)
            default:
                guard !( !left.isDimension && right.isDimension) else {
                    throw .typeMismatch("cannot divide a number by a dimension")
                }
                guard right.value != 0 else { throw .divisionByZero }
                return Quantity(value: left.value / right.value, isDimension: left.isDimension && !right.isDimension)
            }
        }
    }
}
