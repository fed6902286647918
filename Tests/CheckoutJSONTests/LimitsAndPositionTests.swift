import CheckoutJSON
import Testing

/// Bounds (depth, bytes, values) and the line and column of errors.
@Suite struct LimitsAndPositionTests {
    static func error(_ text: String, limits: JSONLimits = .standard) -> JSONError? {
        do {
            _ = try JSONReader.read(text, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [1, 2, 16, 64])
    func depthLimitIsExact(_ limit: Int) {
        let limits = JSONLimits(maximumDepth: limit)
        let atLimit = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        let over = "[" + atLimit + "]"
        #expect(Self.error(atLimit, limits: limits) == nil)
        #expect(Self.error(over, limits: limits)?.kind == .tooDeep)
        let objects = String(repeating: #"{"a":"#, count: limit + 1) + "1" + String(repeating: "}", count: limit + 1)
        #expect(Self.error(objects, limits: limits)?.kind == .tooDeep)
    }

    @Test func hostileNestingIsAnErrorNotACrash() {
        let text = String(repeating: "[", count: 1_000_000)
        #expect(Self.error(text)?.kind == .tooDeep)
        // Even a limit asked far above the ceiling is held to it.
        #expect(JSONLimits(maximumDepth: 1_000_000).maximumDepth == JSONLimits.depthCeiling)
        #expect(Self.error(text, limits: JSONLimits(maximumDepth: 1_000_000))?.kind == .tooDeep)
    }

    @Test func byteLimitIsExact() {
        let text = #"["abcdef"]"#  // 10 bytes
        #expect(Self.error(text, limits: JSONLimits(maximumBytes: 10)) == nil)
        #expect(Self.error(text, limits: JSONLimits(maximumBytes: 9))?.kind == .tooLarge)
    }

    @Test func valueLimitIsExact() {
        let text = #"{"a":[1,2],"b":null}"#  // object, array, 1, 2, null: 5 values
        #expect(Self.error(text, limits: JSONLimits(maximumValues: 5)) == nil)
        #expect(Self.error(text, limits: JSONLimits(maximumValues: 4))?.kind == .tooManyValues)
    }

    /// (document, line, column) of the first offending byte.
    static let positions: [(String, Int, Int)] = [
        ("x", 1, 1),
        ("[1,\n 2,\n x]", 3, 2),
        ("{\n  \"a\": 1,\n  \"a\": 2\n}", 3, 3),
        ("[1,\r\n2,]", 2, 3),
        ("\n\n\n   01", 4, 5),
        ("[\"é\", x]", 1, 8),  // columns count bytes: é is two
        ("[1", 1, 3),
    ]

    @Test(arguments: positions)
    func errorsCarryLineAndColumn(_ text: String, _ line: Int, _ column: Int) throws {
        let error = try #require(Self.error(text))
        #expect(error.line == line && error.column == column, "\(text.debugDescription): \(error)")
        #expect(error.description.hasPrefix("line \(line), column \(column): "))
    }
}
