/// Why a document did not decode into a model: malformed JSON (`syntax`, with line and column)
/// or JSON of the wrong shape (`shape`, with the path). Neither quotes the input.
public enum JSONDecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not valid JSON, or over a limit.
    case syntax(JSONError)
    /// Valid JSON, wrong shape.
    case shape(JSONShapeError)

    /// `not valid JSON (line 1, column 9: unexpected character)` or `amount: expected an integer`.
    public var description: String {
        switch self {
        case .syntax(let error): "not valid JSON (\(error.description))"
        case .shape(let error): error.description
        }
    }
}

extension JSONReader {
    /// Reads `bytes` and builds a model from the tree with `model` (a `JSONFields`-based reader).
    public static func decode<T>(_ bytes: [UInt8], limits: JSONLimits = .standard,
                                 _ model: (JSONValue) throws(JSONShapeError) -> T) throws(JSONDecodeError) -> T {
        let value: JSONValue
        do { value = try read(bytes, limits: limits) } catch { throw .syntax(error) }
        do { return try model(value) } catch { throw .shape(error) }
    }
}
