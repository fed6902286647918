import Testing
@testable import VaultServer

struct ConstantTimeTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var lhs: String
        var rhs: String
        var equal: Bool
        var testDescription: String { "\(lhs.isEmpty ? "<empty>" : lhs) vs \(rhs.isEmpty ? "<empty>" : rhs)" }
    }

    static let cases: [Case] = [
        Case(lhs: "demo-key-merchant-a", rhs: "demo-key-merchant-a", equal: true),
        Case(lhs: "", rhs: "", equal: true),
        Case(lhs: "demo-key-merchant-a", rhs: "demo-key-merchant-b", equal: false),
        Case(lhs: "demo-key-merchant-a", rhs: "Demo-key-merchant-a", equal: false),
        Case(lhs: "demo-key", rhs: "demo-key-merchant-a", equal: false),
        Case(lhs: "demo-key-merchant-a", rhs: "demo-key", equal: false),
        Case(lhs: "abc", rhs: "abc\u{0}", equal: false),
        Case(lhs: "", rhs: "x", equal: false),
    ]

    @Test("ConstantTime.equals agrees with ==", arguments: cases)
    func equals(_ testCase: Case) {
        #expect(ConstantTime.equals(testCase.lhs, testCase.rhs) == testCase.equal)
        #expect(ConstantTime.equals(Array(testCase.lhs.utf8), Array(testCase.rhs.utf8)) == testCase.equal)
    }
}
