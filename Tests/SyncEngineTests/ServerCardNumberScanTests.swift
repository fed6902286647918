import CheckoutCore
import Testing
@testable import VaultServer

/// The ops endpoint scans every request body for card numbers on bytes
/// (`OpsRequestParser.containsCardNumber`); it must answer exactly as the core's rule
/// (`PaymentDataRedactor.containsCardNumber`) does on the same text.
struct ServerCardNumberScanTests {
    @Test("the byte scan agrees with the core rule", arguments: [
        "", "4242", "4242424242424242", "4242 4242 4242 4242", "4242-4242-4242-4242", "4242424242424241",
        "x4111111111111111y", "41111111 11111111", "-4111111111111111", " 4111111111111111 ", "411111111111111",
        "1234567890123", "4222222222222", "99994111111111111111", "{\"opId\":\"5105105105105100\"}",
        "4111 1111 1111 1111 - 0000", "12345678901234567890123", "4111111111111111\u{00E9}", "\u{00E9}378282246310005",
        "5555 5555-5555 4444", "a 4 1 1 1", "4111111111111111 4242424242424241", "not a number at all",
    ])
    func agreesOnExamples(_ text: String) {
        #expect(OpsRequestParser.containsCardNumber(Array(text.utf8)) == PaymentDataRedactor.containsCardNumber(text))
    }

    @Test("the byte scan agrees with the core rule on seeded random texts of digits, separators and letters")
    func agreesOnRandomTexts() {
        var state: UInt64 = 0x5EED_CAFE
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        let alphabet = Array("0123456789012345678901234567890123456789 -x\"".utf8)
        var mismatches: [String] = []
        for _ in 0..<3000 {
            let length = Int(next() % 60)
            let bytes = (0..<length).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] }
            let text = String(decoding: bytes, as: UTF8.self)
            if OpsRequestParser.containsCardNumber(bytes) != PaymentDataRedactor.containsCardNumber(text) {
                mismatches.append(text)
            }
        }
        #expect(mismatches.count == 0)  // the texts are not printed: they may look like card numbers
    }
}
