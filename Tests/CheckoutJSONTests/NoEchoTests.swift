import CheckoutJSON
import CheckoutTestSupport
import Foundation
import Testing

/// No error text contains any of the input: a card number inside a malformed document never
/// reaches a message, a log or a `dump`.
@Suite struct NoEchoTests {
    static let pan = "4242424242424242"

    /// Malformed documents with the card number in every place a value can sit.
    static let documents: [String] = [
        #"{"number": "\#(pan)",}"#,
        #"{"number": \#(pan)x}"#,
        #"{"\#(pan)": 1, "\#(pan)": 2}"#,
        #"{"number": "\#(pan)"#,
        #"["\#(pan)" "\#(pan)"]"#,
        #"{"number": "\#(pan)\x"}"#,
        #"{"number": "\#(pan)\uD800"}"#,
        "{\"number\": \"\(pan)\n\"}",
        #"{"number": 0\#(pan)}"#,
        #"{"number": \#(pan)e}"#,
        #"{"number": \#(pan)e99999}"#,
        #"{\#(pan): 1}"#,
        #"["\#(pan)"] \#(pan)"#,
        #"{"a": tru\#(pan)}"#,
    ]

    static func errorTexts(_ error: JSONError) -> [String] {
        var dumped = ""
        dump(error, to: &dumped)
        return [error.description, error.message, "\(error)", String(reflecting: error), dumped,
                JSONDecodeError.syntax(error).description]
    }

    @Test(arguments: documents)
    func noErrorTextHoldsTheCardNumber(_ text: String) throws {
        let error = try #require(throws: JSONError.self) { try JSONReader.read(text) }
        for message in Self.errorTexts(error) {
            #expect(PaymentDataByteScanner.find([Self.pan], in: Data(message.utf8)).isEmpty, "\(message)")
            #expect(!message.contains("4242"), "\(message)")
        }
    }

    @Test func shapeErrorsNameThePathNotTheValue() throws {
        let value = try JSONReader.read(#"{"card": {"number": "\#(Self.pan)"}}"#)
        let error = try #require(throws: JSONShapeError.self) {
            let card = try JSONFields(value).required("card") { (value: JSONValue, path: String) throws(JSONShapeError) in
                try JSONFields(value, path: path)
            }
            _ = try card.required("number", JSONFields.int)
        }
        #expect(error.description == "card.number: expected an integer")
    }
}
