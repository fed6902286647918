import CheckoutCrypto
import Testing

struct ConstantTimeTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var lhs: String
        var rhs: String
        var testDescription: String { "\(lhs.isEmpty ? "<empty>" : lhs) vs \(rhs.isEmpty ? "<empty>" : rhs)" }
    }

    static let cases: [Case] = [
        Case(lhs: "demo-key-merchant-a", rhs: "demo-key-merchant-a"),
        Case(lhs: "", rhs: ""),
        Case(lhs: "demo-key-merchant-a", rhs: "demo-key-merchant-b"),
        Case(lhs: "demo-key-merchant-a", rhs: "Demo-key-merchant-a"),
        Case(lhs: "demo-key-merchant-a", rhs: "demo-kEy-merchant-a"),
        Case(lhs: "demo-key", rhs: "demo-key-merchant-a"),
        Case(lhs: "demo-key-merchant-a", rhs: "demo-key"),
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
