import CheckoutTheme
import Testing

/// The hand-parsed arithmetic extension: precedence, units, types, and errors.
@Suite struct ArithmeticTests {
    static let cases: [(expression: String, expected: TokenValue)] = [
        ("{base} * 3", .dimension(12)),
        ("{base} * 0.5", .dimension(2)),
        ("2 + 3 * 4", .number(14)),
        ("(2 + 3) * 4", .number(20)),
        ("10 - 4 - 3", .number(3)),
        ("24 / 4 / 2", .number(3)),
        ("-{base} + 10px", .dimension(6)),
        ("{base} * -2", .dimension(-8)),
        ("{base} / {base}", .number(1)),
        ("{base} / 2", .dimension(2)),
        ("1rem - {base}", .dimension(12)),
        ("{ratio} * {base}", .dimension(6)),
        ("((({base})))", .dimension(4)),
    ]

    private static let prelude = """
        "base": { "$type": "dimension", "$value": { "value": 4, "unit": "px" } },
        "ratio": { "$type": "number", "$value": 1.5 },
        "brand": { "$type": "color", "$value": "#000" }
        """

    @Test(arguments: cases)
    func evaluates(entry: (expression: String, expected: TokenValue)) throws {
        // The declared type is the expected one; with references, the type may also be left to the arithmetic.
        let declared = try TestSupport.tokens(
            #"{ \#(Self.prelude), "t": { "$type": "\#(entry.expected.type.rawValue)", "$value": "\#(entry.expression)" } }"#)
        #expect(declared.value(at: "t") == entry.expected)
        if entry.expression.contains("{") {
            let inferred = try TestSupport.tokens(#"{ \#(Self.prelude), "t": { "$value": "\#(entry.expression)" } }"#)
            #expect(inferred.value(at: "t") == entry.expected)
        }
    }

    @Test func plainNumbersWithoutATypeAreNotGuessed() {
        let issues = TestSupport.issues(#"{ "t": { "$value": "2 + 3" } }"#)
        #expect(issues.map(\.code) == [.missingType])
    }

    static let failures: [(expression: String, code: ThemeIssueCode)] = [
        ("{base} / 0", .divisionByZero),
        ("{base} / ({ratio} - 1.5)", .divisionByZero),
        ("{base} + 1", .typeMismatch),
        ("{base} * {base}", .typeMismatch),
        ("2 / {base}", .typeMismatch),
        ("{brand} * 2", .typeMismatch),
        ("{base} *", .invalidExpression),
        ("({base} * 2", .invalidExpression),
        ("{base} ** 2", .invalidExpression),
        ("{base}; rm -rf /", .invalidExpression),
        ("{base} * 2em", .badUnit),
        ("{nope} * 2", .unknownAlias),
    ]

    @Test(arguments: failures)
    func rejects(entry: (expression: String, code: ThemeIssueCode)) {
        let issues = TestSupport.issues(#"{ \#(Self.prelude), "t": { "$type": "dimension", "$value": "\#(entry.expression)" } }"#)
        #expect(issues.map(\.code) == [entry.code])
        #expect(issues.map(\.path) == ["t"])
    }

    @Test func declaredTypeMustMatchTheResult() {
        let issues = TestSupport.issues(#"{ \#(Self.prelude), "t": { "$type": "number", "$value": "{base} * 2" } }"#)
        #expect(issues.map(\.code) == [.typeMismatch])
    }
}
