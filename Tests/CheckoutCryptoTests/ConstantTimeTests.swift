import CheckoutCrypto
import Testing

struct ConstantTimeTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var lhs: String
        var rhs: String
        var testDescription: String { "\(lhs.isEmpty ? "<empty>" : lhs) vs \(rhs.isEmpty ? "<empty>" : rhs)" }
    }

    static let cases: [Case] = [
        Case(lhs: "sample-key-merchant-a", rhs: "sample-key-merchant-a"),
        Case(lhs: "", rhs: ""),
        Case(lhs: "sample-key-merchant-a", rhs: "sample-key-merchant-b"),
        Case(lhs: "sample-key-merchant-a", rhs: "Sample-key-merchant-a"),
        Case(lhs: "sample-key-merchant-a", rhs: "sample-kEy-merchant-a"),
        Case(lhs: "sample-key", rhs: "sample-key-merchant-a"),
        Case(lhs: "sample-key-merchant-a", rhs: "sample-key"),
        Case(lhs: "abc", rhs: "abc\u{0}"),
        Case(lhs: "", rhs: "x"),
        Case(lhs: "é", rhs: "e\u{301}"),  // equal as Characters, different bytes: a key is its bytes
    ]

    @Test("ConstantTime.equals agrees with == on the bytes", arguments: cases)
    func equals(_ testCase: Case) {
        let expected = Array(testCase.lhs.utf8) == Array(testCase.rhs.utf8)
        #expect(ConstantTime.equals(testCase.lhs, testCase.rhs) == expected)
        #expect(ConstantTime.equals(Array(testCase.lhs.utf8), Array(testCase.rhs.utf8)) == expected)
        #expect(ConstantTime.equals(testCase.lhs.utf8.lazy.map { $0 }, Array(testCase.rhs.utf8)) == expected)
    }
}
