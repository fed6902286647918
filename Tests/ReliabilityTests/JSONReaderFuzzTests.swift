import CheckoutCore
import CheckoutTheme
import CheckoutTestSupport
import Foundation
import Testing

extension Reliability.HostileInput {
    /// The one JSON reader itself, at the same case count as every other parser: mutations of the
    /// package's real documents (configuration, theme, a token payload, an ops body) and random
    /// bytes. Each case: a value or a typed `JSONError` with a position inside the input, no card
    /// number in any printable form of the error, never more lenient than Foundation's
    /// independent parser, and an accepted value equals Foundation's decoding of the same bytes.
    /// Sorted keys: JSONEncoder's default key order changes from process to process, and a seed
    /// must replay the same cases (two failures today could not be reproduced from their seed).
    static let sortedEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    @Test("JSONReader: typed located errors, no echo, never more lenient than JSONSerialization, the same values as its decoding")
    func jsonReader() throws {
        let seed = ReliabilityBudget.seed &+ 40
        var mutator = FuzzMutator(seed: seed)
        var failures = FuzzFailures(target: "JSONReader.read", seed: seed)
        let token = Self.validToken()
        let documents: [[UInt8]] = [
            Array(try Reliability.config("checkout.json")),
            Array(try Reliability.config("theme.tokens.json")),
            Array(try Self.sortedEncoder.encode(token)),
            Array(#"{"ops":[{"opId":"o1","kind":"upsert","instrumentId":"t1","baseVersion":3,"method":{"id":"t1","#.utf8)
                + Array(#""paymentMethodType":"PAYMENT_CARD","paymentInstrumentType":"PAYMENT_CARD","#.utf8)
                + Array(#""paymentInstrumentData":{"network":"VISA","last4Digits":"4242","expirationMonth":12,"#.utf8)
                + Array(#""expirationYear":2031,"binData":{"networks":["VISA"]}},"analyticsId":"a1","isDefault":false}}]}"#.utf8),
        ]
        for index in 0..<Self.cases {
            let document = documents[index % documents.count]
            let input = index % 5 == 4 ? mutator.randomBytes() : index % 5 == 3 ? mutator.mutateStructure(document) : mutator.mutate(document)
            let foundation = try? JSONSerialization.jsonObject(with: Data(input), options: [.fragmentsAllowed])
            do {
                let value = try JSONReader.read(input)
                if let foundation {
                    // The same values as Foundation's own decoding of the same bytes.
                    if let difference = IndependentParse.difference(value, foundation) {
                        failures.fail(index, "the value differs from Foundation's decoding: \(difference)")
                    }
                } else {
                    failures.fail(index, "accepted a document JSONSerialization refuses")
                }
                failures.verdict("accepted", reached: foundation is [String: Any] ? ["an object compared"] : [])
            } catch {
                if error.offset < 0 || error.offset > input.count || error.line < 1 || error.column < 1 {
                    failures.fail(index, "an error without a position inside the input: \(error)")
                }
                failures.checkStrings(of: error, index)
                failures.verdict(foundation == nil ? "refused, as Foundation" : "refused, Foundation accepts")
            }
        }
        // Mutations keep many documents valid, so the value comparison ran on whole documents.
        failures.verify(counters: ["fuzz.jsonReader"], planned: Self.cases,
                        atLeast: ["accepted": 0.15, "an object compared": 0.1, "refused, as Foundation": 0.3])
    }
}
