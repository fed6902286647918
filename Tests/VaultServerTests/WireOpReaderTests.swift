import CheckoutCore
import Foundation
import Testing
@testable import VaultServer

struct WireOpReaderTests {
    static let methods: [VaultedPaymentMethod] = [
        Fixture.card("tok_1"),
        VaultedPaymentMethod(id: "tok_2", paymentMethodType: .payPal, paymentInstrumentType: PaymentInstrumentType(rawValue: "PAYPAL_BILLING_AGREEMENT"),
                             paymentInstrumentData: PaymentInstrumentData(), analyticsId: "an-2", isDefault: true),
        VaultedPaymentMethod(id: "tok_3", paymentMethodType: .paymentCard, paymentInstrumentType: .paymentCard,
                             paymentInstrumentData: PaymentInstrumentData(network: .visa, first6Digits: "411111", last4Digits: "1111",
                                                                          expirationMonth: 12, expirationYear: 2031,
                                                                          cardholderName: "Jane Doe",
                                                                          binData: BinData(networks: [.visa, .mastercard],
                                                                                           issuerCountry: "US",
                                                                                           accountFundingType: "CREDIT")),
                             analyticsId: "an-3"),
        VaultedPaymentMethod(id: "tok_4", paymentMethodType: .paymentCard, paymentInstrumentType: .paymentCard,
                             paymentInstrumentData: PaymentInstrumentData(binData: BinData(networks: [])), analyticsId: "an-4"),
    ]

    @Test("canonical JSON is byte-identical to JSONEncoder with sorted keys", arguments: methods)
    func canonicalMatchesEncoder(_ method: VaultedPaymentMethod) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let expected = String(decoding: try encoder.encode(method), as: UTF8.self)
        #expect(WireOpReader.canonicalJSON(method) == expected)
    }

    @Test("strings that JSONEncoder escapes are left to JSONEncoder", arguments: [#"a"b"#, "a/b", "a\\b", "tab\there", "é"])
    func escapedStringsFallBack(_ name: String) {
        var method = Fixture.card("tok_1")
        method.paymentInstrumentData.cardholderName = name
        #expect(WireOpReader.canonicalJSON(method) == nil)
    }

    @Test("the fast reader returns the ops JSONDecoder reads from the same body")
    func fastOpsMatchDecoder() throws {
        let ops = Self.methods.enumerated().map { index, method in
            WireOp(opId: "op-\(index)", kind: .upsert, instrumentId: method.id, baseVersion: index == 0 ? nil : Int64(index),
                   method: method)
        } + [WireOp(opId: "op-d", kind: .delete, instrumentId: "tok_1", baseVersion: 3),
             WireOp(opId: "op-s", kind: .setDefault, instrumentId: "tok_2", baseVersion: nil)]
        struct Body: Codable { var ops: [WireOp] }
        let body = Array(try JSONEncoder().encode(Body(ops: ops)))
        let fast = try #require(WireOpReader.ops(body))
        #expect(fast == ops)
        #expect(fast == (try JSONDecoder().decode(Body.self, from: Data(body))).ops)
    }

    @Test("bodies outside the fast subset are left to JSONDecoder", arguments: [
        #"{"ops":[{"opId":"a","kind":"upsert","instrumentId":"t","baseVersion":1.0}]}"#,
        #"{"ops":[{"opId":"a","kind":"maybe","instrumentId":"t"}]}"#,
        #"{"ops":[{"opId":"a","opId":"b","kind":"delete","instrumentId":"t"}]}"#,
        #"{"ops":[{"kind":"delete","instrumentId":"t"}]}"#,
        #"{"ops":[{"opId":"a","kind":"delete","instrumentId":"t"}]} x"#,
        #"{"ops":[{"opId":"a","kind":"delete","instrumentId":"t"}"#,
        #"{"ops":[{"opId":"a","kind":"delete","instrumentId":"t","baseVersion":01}]}"#,
        #"{"ops":[{"opId":"a","kind":"upsert","instrumentId":"t","method":{"id":"t"}}]}"#,
    ])
    func unusualBodiesFallBack(_ body: String) {
        #expect(WireOpReader.ops(Array(body.utf8)) == nil)
    }

    @Test("escaped strings are unescaped like JSONDecoder does")
    func escapes() throws {
        let body = #"{"ops":[{"opId":"a\u0062\/c","kind":"delete","instrumentId":"t\"\\\n\ud83d\ude00"}]}"#
        let fast = try #require(WireOpReader.ops(Array(body.utf8)))
        struct Body: Codable { var ops: [WireOp] }
        #expect(fast == (try JSONDecoder().decode(Body.self, from: Data(body.utf8))).ops)
    }
}
