import CheckoutCore
import Foundation
import Testing
import CheckoutJSON
@testable import CheckoutVault

struct WireJSONTests {
    static let card = VaultedPaymentMethod(
        id: "tok_1", paymentMethodType: .paymentCard, paymentInstrumentType: .paymentCard,
        paymentInstrumentData: PaymentInstrumentData(network: .visa, first6Digits: "411111", last4Digits: "1111",
                                                     expirationMonth: 12, expirationYear: 2031, cardholderName: #"Jane "J" Doe/é"#,
                                                     binData: BinData(networks: [.visa, .mastercard], issuerCountry: "US",
                                                                      accountFundingType: nil)),
        analyticsId: "an-1", isDefault: true)
    static let bare = VaultedPaymentMethod(id: "tok_2", paymentMethodType: .payPal, paymentInstrumentType: .paymentCard,
                                           paymentInstrumentData: PaymentInstrumentData(), analyticsId: "an-2")

    @Test("a change page reads as JSONDecoder reads it")
    func changePage() throws {
        let page = ChangePage(changes: [.upsert(Self.card, version: 3), .delete(token: "tok_x", version: 9),
                                        .upsert(Self.bare, version: 1)], cursor: "v1.a", hasMore: true)
        let data = try JSONEncoder().encode(page)
        let fast = try WireJSON.scan(data, WireJSON.changePage)
        #expect(fast == page)
        #expect(fast == (try JSONDecoder().decode(ChangePage.self, from: data)))
    }

    @Test("changes are written without a sequence")
    func noSequenceWritten() throws {
        let page = ChangePage(changes: [.upsert(Self.card, version: 3), .delete(token: "tok_x", version: 9)],
                              cursor: "v3.a", hasMore: false)
        #expect(!String(decoding: try JSONEncoder().encode(page), as: UTF8.self).contains("sequence"))
    }

    /// A change as the server sends it now, and as servers before the tenant-isolation fix sent it.
    @Test("a change reads the same with or without an older server's sequence, on both readers", arguments: [
        #"{"changes":[{"id":"t","version":2,"deleted":true}],"cursor":"c","hasMore":false}"#,
        #"{"changes":[{"sequence":41,"id":"t","version":2,"deleted":true}],"cursor":"c","hasMore":false}"#,
        #"{"changes":[{"id":"t","version":2,"deleted":true,"sequence":7}],"cursor":"c","hasMore":false}"#,
    ])
    func sequenceTolerated(_ text: String) throws {
        let expected = ChangePage(changes: [.delete(token: "t", version: 2)], cursor: "c", hasMore: false)
        #expect(try WireJSON.scan(Data(text.utf8), WireJSON.changePage) == expected)
        #expect(try JSONDecoder().decode(ChangePage.self, from: Data(text.utf8)) == expected)
    }

    @Test("a sequence that is present must still be one integer", arguments: [
        #"{"id":"t","version":2,"deleted":true,"sequence":"x"}"#,
        #"{"id":"t","version":2,"deleted":true,"sequence":1.5}"#,
        #"{"id":"t","version":2,"deleted":true,"sequence":null}"#,
        #"{"sequence":1,"id":"t","version":2,"deleted":true,"sequence":2}"#,
    ])
    func sequenceStillStrict(_ text: String) {
        #expect(throws: JSONScanner.Failure.self) { try WireJSON.scan(Data(text.utf8), WireJSON.remoteChange) }
    }

    @Test("op results read as JSONDecoder reads them")
    func opResults() throws {
        struct Body: Codable { var results: [OpResult] }
        let results = [OpResult(opId: "a", status: .applied, version: 2),
                       OpResult(opId: "b", status: .rejected, reason: "invalid-op", message: "bad \\ \"op\""),
                       OpResult(opId: "c", status: .conflict, reason: "deleted", current: .delete(token: "t", version: 4)),
                       OpResult(opId: "d", status: .conflict, reason: "version-mismatch", current: .upsert(Self.card, version: 7))]
        let data = try JSONEncoder().encode(Body(results: results))
        #expect(try WireJSON.scan(data, WireJSON.opResults) == results)
    }

    @Test("the hand-written ops body decodes with JSONDecoder to the same ops")
    func opsRequest() throws {
        struct Body: Codable { var ops: [OutboundOp] }
        let ops = [OutboundOp(opId: "a", kind: .upsert, instrumentId: "tok_1", baseVersion: nil, method: Self.card),
                   OutboundOp(opId: "b", kind: .upsert, instrumentId: "tok_2", baseVersion: 3, method: Self.bare),
                   OutboundOp(opId: "c\n\"", kind: .delete, instrumentId: "tok_1", baseVersion: 4),
                   OutboundOp(opId: "d", kind: .setDefault, instrumentId: "tok_2", baseVersion: nil)]
        #expect(try JSONDecoder().decode(Body.self, from: WireJSON.opsRequest(ops)).ops == ops)
    }

    @Test("inputs outside the fast subset fail the fast reader", arguments: [
        #"{"changes":[],"cursor":"v1.1","hasMore":false} x"#,
        #"{"changes":[],"cursor":"v1.1"}"#,
        #"{"changes":[{"sequence":1.5,"id":"t","version":2,"deleted":true}],"cursor":"v1.1","hasMore":false}"#,
        #"{"changes":[{"sequence":1,"id":"t","version":2,"deleted":false}],"cursor":"v1.1","hasMore":false}"#,
        #"{"changes":[],"cursor":"v1.1","hasMore":false,"hasMore":true}"#,
        #"{"changes":[],"cursor":"v1.1","hasMore":fals}"#,
        #"{"changes":"x","cursor":"v1.1","hasMore":false}"#,
    ])
    func unusualInputFails(_ text: String) {
        #expect(throws: JSONScanner.Failure.self) { try WireJSON.scan(Data(text.utf8), WireJSON.changePage) }
    }
}
