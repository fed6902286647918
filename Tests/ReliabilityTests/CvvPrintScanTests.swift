import CheckoutCore
import CheckoutKit
import Foundation
import Testing

/// With the seed's CVV binding working, the CVV still appears in no printable
/// form of any state: `description`, `debugDescription` and `dump` of every state type and
/// session, after the CVV was typed into the card form and into saved-card recapture, while a
/// saved-card payment awaits its challenge, and after it finished. The check scans the bytes of
/// each printed form for the CVV.
@Suite("CVV never printed")
struct CvvPrintScanTests {
    /// Four digits that occur nowhere else in these objects (AMEX security-code length).
    static let cvv = "7391"

    static func printed(_ value: Any, _ label: String) -> [(String, Data)] {
        var dumped = ""
        dump(value, to: &dumped)
        return [("\(label).description", Data(String(describing: value).utf8)),
                ("\(label).debugDescription", Data(String(reflecting: value).utf8)),
                ("\(label).dump", Data(dumped.utf8))]
    }

    static func leaks(_ forms: [(String, Data)]) -> [String] {
        let needle = Data(cvv.utf8)
        return forms.filter { $0.1.range(of: needle) != nil }.map(\.0)
    }

    @Test func theCvvIsInNoPrintedState() async throws {
        let defaults = try CheckoutDefaults.embedded()
        let processor = SandboxProcessor()
        let registry = try CheckoutKit.standardRegistry(cardNetworks: defaults.cardNetworks, binLookup: processor)
        let vault = InMemoryVaultProvider()
        let token = CheckoutKit.sandboxClientToken(configuration: defaults.configuration, customerId: "cvv-scan",
                                                   order: CheckoutKit.demoOrder(amount: 4999))
        // A saved AMEX card that needs a challenge: paid once with vaultOnSuccess through the sandbox.
        let session0 = ClientSession(token: token, paymentMethods: [])
        let card = CardDetails(number: "4000000000003220", cvv: "123", expiryMonth: 12, expiryYear: 2030, network: .amex)
        let paymentToken = try await processor.tokenize(.card(card), session: session0)
        let pending = try await processor.createPayment(CreatePaymentRequest(token: paymentToken, session: session0,
                                                                             idempotencyKey: nil, vaultOnSuccess: true))
        let saved = try #require(try await processor.resumePayment(paymentId: pending.paymentId,
                                                                   resumeToken: "challenge-success").vaultedToken)
        let method = VaultedPaymentMethod(id: saved, paymentMethodType: .paymentCard, paymentInstrumentType: .paymentCard,
                                          paymentInstrumentData: try #require(paymentToken.instrumentData),
                                          analyticsId: "an_scan")
        try await vault.save(method, for: session0.vaultScope)

        let session = CheckoutSession(clientToken: token.encoded(), configuration: defaults.configuration,
                                      registry: registry, processor: processor, vault: vault)
        await session.start()
        let selection = try #require(session.selection)
        let form = try session.cardForm()
        form.updateCardNumber("3782 822463 10005")
        form.updateCvv(Self.cvv)
        selection.selectVaulted(method)
        for digit in Self.cvv { selection.updateCvvInput(selection.state.cvvInput + String(digit)) }
        #expect(selection.state.isCvvValid, "the binding round trip accepted the CVV")

        var forms = Self.printed(selection.state, "PaymentMethodSelectionState")
            + Self.printed(selection, "SelectionSession")
            + Self.printed(form.state, "CardFormState")
            + Self.printed(form.state.data, "CardFormState.Data")
            + Self.printed(form, "CardFormSession")
            + Self.printed(form.flowState, "PaymentFlowState(card)")
            + Self.printed(session, "CheckoutSession")
        guard case .awaitingChallenge = await selection.submitVaulted() else {
            Issue.record("expected the saved challenge card to challenge")
            return
        }
        let flow = try #require(selection.vaultedFlow)
        forms += Self.printed(flow, "VaultedPaymentFlow(awaiting)") + Self.printed(flow.flowState, "PaymentFlowState(awaiting)")
            + Self.printed(selection.state, "PaymentMethodSelectionState(awaiting)")
        _ = try await selection.resumeVaulted(with: .challengeResult("challenge-success"))
        forms += Self.printed(flow, "VaultedPaymentFlow(done)") + Self.printed(session.deliveredOutcomes, "outcomes")
            + Self.printed(selection.state, "PaymentMethodSelectionState(done)")
        #expect(forms.count == 39, "13 values, three printed forms each")
        #expect(Self.leaks(forms) == [], "the CVV was printed")
        #expect(session.deliveredOutcomes.count == 1)
    }
}
