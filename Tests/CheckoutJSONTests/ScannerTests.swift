import CheckoutJSON
import Testing

/// The cursor API the wire readers use is the same tokenizer with the same rules.
@Suite struct ScannerTests {
    struct Pair: Equatable { var name: String; var count: Int64 }

    /// The fields of a `Pair` as its readers fill them in.
    struct PairFields {
        var name: String?
        var count: Int64?

        mutating func read(_ scanner: inout JSONScanner, isName: Bool, isCount: Bool) throws(JSONScanner.Failure) {
            if isName { name = try scanner.readString() } else if isCount { count = try scanner.readInt64() } else { try scanner.skipUnknownValue() }
        }

        func pair() throws(JSONScanner.Failure) -> Pair {
            guard let name, let count else { throw JSONScanner.Failure() }
            return Pair(name: name, count: count)
        }
    }

    static func pair(_ scanner: inout JSONScanner) throws(JSONScanner.Failure) -> Pair {
        var fields = PairFields()
        try scanner.readObject { (scanner: inout JSONScanner, key: String) throws(JSONScanner.Failure) in
            try fields.read(&scanner, isName: key == "name", isCount: key == "count")
        }
        return try fields.pair()
    }

    /// `pair` through `readMembers`: keys matched as raw bytes, not as strings.
    static func pairByKeyBytes(_ scanner: inout JSONScanner) throws(JSONScanner.Failure) -> Pair {
        var fields = PairFields()
        try scanner.readMembers { (scanner: inout JSONScanner, key: JSONKey) throws(JSONScanner.Failure) in
            try fields.read(&scanner, isName: "name" ~= key, isCount: "count" ~= key)
        }
        return try fields.pair()
    }

    @Test("keys matched as bytes read exactly what keys read as strings do, escapes and non-ASCII keys included", arguments: [
        #"{"name": "a", "count": 1}"#,
        #"{"\u006eame": "escaped key", "count": 2}"#,
        #"{"na\u006De": "escape inside", "c\u006Funt": 3}"#,
        #"{"nàme": "not the key", "name": "b", "count": 4}"#,
        #"{"name ": "trailing space", "name": "c", "count": 5}"#,
        #"{"nam": "prefix", "names": "longer", "name": "d", "count": 6}"#,
        #"{"": 0, "name": "e", "count": 7}"#,
        #"{"name": "f"}"#,
        #"{"na\uD800me": "f", "count": 1}"#,
        #"{"na\qme": "f", "count": 1}"#,
        "{\"na\u{01}me\": \"f\", \"count\": 1}",
    ])
    func keyBytesMatchKeyStrings(_ text: String) {
        let byString = Result { () throws(JSONError) in try JSONReader.scan(text, Self.pair) }
        let byBytes = Result { () throws(JSONError) in try JSONReader.scan(text, Self.pairByKeyBytes) }
        switch (byString, byBytes) {
        case (.success(let expected), .success(let value)): #expect(value == expected, "\(text)")
        case (.failure(let expected), .failure(let error)): #expect(error.kind == expected.kind && error.offset == expected.offset, "\(text)")
        default: Issue.record("\(text): by string \(byString), by bytes \(byBytes)")
        }
    }

    @Test func readsTypedFieldsAndSkipsUnknownOnes() throws {
        let text = #" {"name": "a\u00e9", "extra": {"x": [1.5e3, null, "y"]}, "count": -42} "#
        #expect(try JSONReader.scan(text, Self.pair) == Pair(name: "aé", count: -42))
    }

    @Test(arguments: [
        (#"{"name": "a", "count": 1,}"#, JSONError.Kind.unexpectedByte),
        (#"{"name": "a", "count": 01}"#, .invalidNumber),
        (#"{"name": "a", "count": 1.5}"#, .unexpectedShape),
        (#"{"name": "a", "count": 9223372036854775808}"#, .unexpectedShape),
        (#"{"name": "\uD800", "count": 1}"#, .invalidSurrogate),
        (#"{"name": "a", "extra": [1,], "count": 1}"#, .unexpectedByte),
        (#"{"name": "a", "extra": NaN, "count": 1}"#, .unexpectedByte),
        (#"{"name": "a", "count": 1} x"#, .trailingContent),
        (#"{"name": "a"}"#, .unexpectedShape),
    ])
    func theScannerKeepsTheReadersRules(_ text: String, _ kind: JSONError.Kind) {
        #expect(throws: JSONError.self) { try JSONReader.scan(text, Self.pair) }
        do {
            _ = try JSONReader.scan(text, Self.pair)
        } catch {
            #expect(error.kind == kind, "\(text): \(error)")
        }
    }

    @Test func skippingIsBounded() {
        let deep = #"{"name": "a", "count": 1, "x": "# + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}"
        #expect(throws: JSONError.self) { try JSONReader.scan(deep, Self.pair) }
    }

    @Test func scannerErrorsAreLocated() throws {
        let error = try #require(throws: JSONError.self) { try JSONReader.scan("{\"name\": \"a\",\n \"count\": 01}", Self.pair) }
        #expect(error.line == 2 && error.column == 12)  // the digit after the leading zero
    }
}
