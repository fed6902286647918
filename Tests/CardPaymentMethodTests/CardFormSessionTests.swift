import CardPaymentMethod
import CheckoutCore
import CheckoutCoreTesting
import CheckoutTestSupport
import Foundation
import Testing

@Suite("Card form session")
struct CardFormSessionTests {
    static let visa = "4242424242424242"
    static let declined = "4000000000000002"
    static let challenge = "4000000000003220"
    static let cartesBancairesVisa = Fixtures.luhnComplete("403550100000000")
    static let cartesBancairesMastercard = Fixtures.luhnComplete("513105000000000")
    static let eftposMastercard = Fixtures.luhnComplete("520000000000000")

    /// Fills a valid expiry, CVV and name.
    static func fillRest(_ form: CardFormSession) {
        form.updateExpiryDate("12/30")
        form.updateCvv("123")
        form.updateCardholderName("Jane Doe")
    }

    /// Fills the form with the sandbox's challenge card, lets its BIN lookup settle and submits:
    /// the state reached (a challenge, unless something is wrong).
    static func submitChallengeCard(_ form: CardFormSession) async -> PaymentFlowState {
        form.updateCardNumber(challenge)
        fillRest(form)
        await form.settled()
        return await form.submit()
    }

    @Test("full snapshots through a successful payment")
    func successSnapshots() async throws {
        let checkout = try await CardCheckout.make(options: ["cardholderName": .string("required")])
        let form = checkout.form
        let configuration = CardFormConfiguration(cardholderName: .required)
        var expected = CardFormState(configuration: configuration)
        #expect(form.state == expected)
        #expect(form.flowState == .idle)
        let stream = form.states()

        form.updateCardNumber("4242 4242 4242 4242")
        await form.settled()
        expected.data.cardNumber = "424242••••••4242"
        expected.availableNetworks = [.visa]
        expected.binData = CardBinData(preferred: .visa, status: .complete, firstDigits: "424242")
        #expect(form.state == expected)

        form.updateExpiryDate("12/30")
        expected.data.expiryDate = "12/30"
        #expect(form.state == expected)

        form.updateCvv("123")
        #expect(form.state == expected)

        form.updateCardholderName("Jane Doe")
        expected.data.cardholderName = "Jane Doe"
        expected.isValid = true
        #expect(form.state == expected)

        let final = await form.submit()
        guard case .succeeded(let result) = final else {
            Issue.record("expected success, got \(final)")
            return
        }
        #expect(result.paymentMethodType == .paymentCard)
        #expect(result.status == .succeeded)
        expected.flow = .succeeded(result)
        #expect(form.state == expected)
        #expect(form.flowState == final)
        #expect(checkout.session.deliveredOutcomes == [.success(result)])
        #expect(checkout.sandbox.paymentCount == 1)

        // The published sequence went through processing with isLoading set, and never held the CVV.
        var flows: [PaymentFlowState] = []
        for await state in stream {
            #expect(state.data.cvv.isEmpty)
            #expect(state.isLoading == (state.flow == .processing))
            if flows.last != state.flow { flows.append(state.flow) }
            if state == expected { break }
        }
        #expect(flows == [.idle, .processing, .succeeded(result)])

        // A finished form ignores further input.
        form.updateCardNumber(Self.declined)
        #expect(form.state == expected)
        #expect(await form.submit() == final)
    }

    @Test("a declined card fails the attempt; a retry with another card succeeds")
    func declineThenRetry() async throws {
        let checkout = try await CardCheckout.make()
        let form = checkout.form
        let harness = CheckoutHarness(session: checkout.session)
        harness.observe(form)
        await harness.receive(.idle)
        form.updateCardNumber(Self.declined)
        Self.fillRest(form)
        await form.settled()
        let declined = await form.submit()
        let error = CheckoutError(.paymentDeclined, "Do not honor")
        #expect(declined == .failed(error))
        await harness.receive(.processing)
        await harness.receive(.failed(error))
        #expect(form.state == CardFormState(
            configuration: CardFormConfiguration(),
            data: CardFormState.Data(cardNumber: "400000••••••0002", expiryDate: "12/30", cardholderName: "Jane Doe"),
            isValid: true, availableNetworks: [.visa],
            binData: CardBinData(preferred: .visa, status: .complete, firstDigits: "400000"),
            flow: .failed(error)))
        await harness.receiveOutcome { $0.ignoringCheckoutData == .failure(error, checkoutData: nil) }

        form.updateCardNumber(Self.visa)
        await form.settled()
        let retried = await form.submit()
        guard case .succeeded(let result) = retried else {
            Issue.record("expected success, got \(retried)")
            return
        }
        await harness.receive(.processing)
        await harness.receive(.succeeded(result))
        await harness.receiveOutcome(.success(result))
        #expect(form.state.data.cardNumber == "424242••••••4242")
        await harness.finish()
    }

    @Test("a 3-D Secure challenge: awaiting, then resumed to success; a second resume is rejected")
    func challengeSuccess() async throws {
        let checkout = try await CardCheckout.make()
        let form = checkout.form
        let harness = CheckoutHarness(session: checkout.session)
        harness.observe(form)
        await harness.receive(.idle)
        let awaiting = await Self.submitChallengeCard(form)
        guard case .awaitingChallenge(let challengeId) = awaiting else {
            Issue.record("expected a challenge, got \(awaiting)")
            return
        }
        #expect(challengeId.hasPrefix("ch_"))
        await harness.receive(.processing)
        await harness.receive(awaiting)
        var expected = CardFormState(
            configuration: CardFormConfiguration(),
            data: CardFormState.Data(cardNumber: "400000••••••3220", expiryDate: "12/30", cardholderName: "Jane Doe"),
            isValid: true, availableNetworks: [.visa],
            binData: CardBinData(preferred: .visa, status: .complete, firstDigits: "400000"),
            flow: .awaitingChallenge(challengeId: challengeId))
        #expect(form.state == expected)
        #expect(checkout.session.deliveredOutcomes.isEmpty)

        // A return of the wrong kind does not belong to this payment.
        await #expect(throws: CheckoutError.self) {
            try await form.resume(with: .returnURL(URL(fileURLWithPath: "/elsewhere")))
        }
        #expect(form.flowState == awaiting)

        let final = try await form.resume(with: .challengeResult("challenge-success"))
        guard case .succeeded(let result) = final else {
            Issue.record("expected success, got \(final)")
            return
        }
        expected.flow = .succeeded(result)
        #expect(form.state == expected)
        await harness.receive(.succeeded(result))
        await harness.receiveOutcome(.success(result))
        do {
            try await form.resume(with: .challengeResult("challenge-success"))
            Issue.record("a replayed challenge result must be rejected")
        } catch {
            #expect((error as? CheckoutError)?.code == .invalidReturn)
        }
        // Nothing else was published: not the refused returns, not a second outcome.
        await harness.finish()
    }

    @Test("a resume in flight shows loading, refuses a second resume, and a cancel drops its answer")
    func resumeInFlight() async throws {
        let processor = ControllableProcessor()
        let checkout = try await CardCheckout.make(processor: processor)
        let form = checkout.form
        guard case .awaitingChallenge = await Self.submitChallengeCard(form) else {
            Issue.record("expected a challenge, got \(form.flowState)")
            return
        }
        #expect(form.state.isLoading == false)
        processor.hold(.resumePayment)
        let resuming = Task { try await form.resume(with: .challengeResult("challenge-success")) }
        #expect(await processor.waitForHeldCall(.resumePayment))
        #expect(form.state.isLoading, "the form shows the resume as loading")
        await #expect(throws: CheckoutError.self) { try await form.resume(with: .challengeResult("challenge-success")) }
        await form.cancel()
        processor.release(.resumePayment)
        #expect(try await resuming.value == .cancelled, "the answer of a cancelled payment changes nothing")
        #expect(form.state.flow == .cancelled && form.state.isLoading == false)
        #expect(processor.callCount(.resumePayment) == 1)
        #expect(await form.submit() == .cancelled, "a cancelled form takes no new attempt")
    }

    @Test("a failed challenge fails the attempt")
    func challengeFailure() async throws {
        let checkout = try await CardCheckout.make()
        let form = checkout.form
        let harness = CheckoutHarness(session: checkout.session)
        harness.observe(form)
        await harness.receive(.idle)
        let awaiting = await Self.submitChallengeCard(form)
        guard case .awaitingChallenge = awaiting else {
            Issue.record("expected a challenge, got \(awaiting)")
            return
        }
        await harness.receive(.processing)
        await harness.receive(awaiting)
        let final = try await form.resume(with: .challengeResult("wrong"))
        let error = CheckoutError(.paymentFailed, "3-D Secure authentication failed")
        #expect(final == .failed(error))
        #expect(form.state.flow == .failed(error))
        #expect(form.state.isLoading == false)
        await harness.receive(.failed(error))
        await harness.receiveOutcome { $0.ignoringCheckoutData == .failure(error, checkoutData: nil) }
        await harness.finish()
    }

    @Test("submitting an invalid form shows every error and contacts nobody")
    func invalidSubmit() async throws {
        let checkout = try await CardCheckout.make(options: [
            "cardholderName": .string("required"), "billingAddress": .object(["postalCode": .string("required")]),
        ])
        let form = checkout.form
        form.updateCardNumber("4242 4242 4242 4241")
        // The BIN lookup the number started ends first: a submit racing it would make the snapshots depend on timing.
        await form.settled()
        let formStates = form.states()
        let flowStates = form.flowStates()
        let state = await form.submit()
        let errors = [
            CardFieldError(field: .cardNumber, code: .invalidCardNumber),
            CardFieldError(field: .expiryDate, code: .required),
            CardFieldError(field: .cvv, code: .required),
            CardFieldError(field: .cardholderName, code: .required),
            CardFieldError(field: .postalCode, code: .required),
        ]
        let failure = CheckoutError(.invalidPaymentData, "the card form has invalid fields: "
                                    + errors.map(\.description).joined(separator: ", "))
        #expect(state == .failed(failure))
        #expect(form.state == CardFormState(
            configuration: CardFormConfiguration(cardholderName: .required, billingFields: [.postalCode: .required]),
            data: CardFormState.Data(cardNumber: "424242••••••4241"), fieldErrors: errors, isValid: false,
            availableNetworks: [.visa], binData: CardBinData(preferred: .visa, status: .complete, firstDigits: "424242"),
            flow: .failed(failure)))
        #expect(checkout.sandbox.createPaymentCallCount == 0)
        #expect(checkout.session.deliveredOutcomes.isEmpty)
        #expect(!failure.message.contains("4242424242424241"))
        // Neither stream shows `processing`: the attempt failed before it started, and the field
        // errors appeared in the same snapshot as the failure.
        let snapshots = try #require(await elements(of: formStates, until: { $0.flow == .failed(failure) }))
        #expect(snapshots.map(\.flow) == [.idle, .failed(failure)])
        #expect(snapshots.map(\.fieldErrors) == [[CardFieldError(field: .cardNumber, code: .invalidCardNumber)], errors])
        #expect(snapshots.allSatisfy { !$0.isLoading })
        #expect(await elements(of: flowStates, until: { $0 == .failed(failure) }) == [.idle, .failed(failure)])

        // Fixing the fields clears their errors at once; the postal code follows the session country (NL).
        form.updateBillingField(.postalCode, "12")
        #expect(form.state.error(for: .postalCode) == .invalidPostalCode)
        form.updateBillingField(.postalCode, "1012 AB")
        #expect(form.state.error(for: .postalCode) == nil)
    }

    struct CoBadge: Sendable, CustomStringConvertible {
        let number: String
        let allowed: [CardNetwork]
        let available: [CardNetwork]
        let selected: CardNetwork?
        let selectable: Bool
        let numberError: CardValidationError.Code?
        var description: String { "\(number.prefix(8)) \(allowed)" }
    }

    @Test("a co-branded prefix of the network table (Naranja Visa) is co-badged without a BIN lookup answer", arguments: [
        ([CardNetwork](), [CardNetwork.naranja, .visa], true, CardValidationError.Code?.none),
        ([.visa, .naranja], [.visa, .naranja], true, nil),
        ([.visa], [.visa], false, nil),
        ([.mastercard], [], false, .unsupportedCardType),
    ])
    func coBrandedFromTheTable(allowed: [CardNetwork], available: [CardNetwork], selectable: Bool,
                               numberError: CardValidationError.Code?) async throws {
        let checkout = try await CardCheckout.make(allowed: allowed)
        let form = checkout.form
        form.updateCardNumber("4029 1800 0000 0009")
        await form.settled()
        let state = form.state
        #expect(state.availableNetworks == available)
        #expect(state.allowsNetworkSelection == selectable)
        #expect(state.error(for: .cardNumber) == numberError)
    }

    @Test("co-badged networks follow the merchant's order; EFTPOS selects automatically", arguments: [
        CoBadge(number: cartesBancairesVisa, allowed: [.visa, .mastercard, .cartesBancaires],
                available: [.visa, .cartesBancaires], selected: .visa, selectable: true, numberError: nil),
        CoBadge(number: cartesBancairesVisa, allowed: [.cartesBancaires, .visa], available: [.cartesBancaires, .visa],
                selected: .cartesBancaires, selectable: true, numberError: nil),
        CoBadge(number: cartesBancairesVisa, allowed: [], available: [.cartesBancaires, .visa],
                selected: .cartesBancaires, selectable: true, numberError: nil),
        // One usable network is not co-badged for the merchant: no selected network (the seed's rule).
        CoBadge(number: cartesBancairesVisa, allowed: [.visa], available: [.visa], selected: nil, selectable: false,
                numberError: nil),
        CoBadge(number: cartesBancairesVisa, allowed: [.cartesBancaires], available: [.cartesBancaires],
                selected: nil, selectable: false, numberError: nil),
        CoBadge(number: cartesBancairesVisa, allowed: [.mastercard], available: [], selected: nil, selectable: false,
                numberError: .unsupportedCardType),
        CoBadge(number: cartesBancairesMastercard, allowed: [.mastercard, .cartesBancaires],
                available: [.mastercard, .cartesBancaires], selected: .mastercard, selectable: true, numberError: nil),
        CoBadge(number: eftposMastercard, allowed: [.mastercard, .eftpos], available: [.mastercard, .eftpos],
                selected: .mastercard, selectable: false, numberError: nil),
        CoBadge(number: eftposMastercard, allowed: [.eftpos, .mastercard], available: [.eftpos, .mastercard],
                selected: .eftpos, selectable: false, numberError: nil),
        CoBadge(number: eftposMastercard, allowed: [], available: [.eftpos, .mastercard], selected: .eftpos,
                selectable: false, numberError: nil),
        CoBadge(number: eftposMastercard, allowed: [.visa, .mastercard], available: [.mastercard],
                selected: nil, selectable: false, numberError: nil),
    ])
    func coBadged(_ example: CoBadge) async throws {
        let checkout = try await CardCheckout.make(allowed: example.allowed)
        let form = checkout.form
        form.updateCardNumber(example.number)
        await form.settled()
        let state = form.state
        #expect(state.availableNetworks == example.available)
        #expect(state.selectedNetwork == example.selected)
        #expect(state.allowsNetworkSelection == example.selectable)
        #expect(state.error(for: .cardNumber) == example.numberError)
        #expect(state.binData?.networks.isEmpty == false)
        #expect(state.binData?.status == .complete)
        // binData lists the card's networks in the merchant's order: the first usable one is preferred.
        if let first = example.available.first { #expect(state.binData?.preferred == first) }
        for network in [CardNetwork.visa, .mastercard, .cartesBancaires, .eftpos, .amex] {
            let selectable = example.selectable && example.available.contains(network)
            do {
                try form.selectCardNetwork(network)
                #expect(selectable, "\(network) should not be selectable")
                #expect(form.state.selectedNetwork == network)
            } catch {
                #expect(!selectable, "\(network) should be selectable")
                #expect(error.code == .invalidState)
            }
        }
    }

    @Test("the card form's published surcharge follows the session's locale",
          arguments: [("nl", "EUR", "+ €1,50"), ("de", "EUR", "+ 1,50 €"), ("en-US", "USD", "+ $1.50")])
    func surchargeIsLocalized(locale: String, currency: String, formatted: String) async throws {
        let checkout = try await CardCheckout.make(currency: currency, surcharge: 150, locale: locale)
        let form = checkout.form
        form.updateCardNumber("4242424242424242")
        await form.settled()
        #expect(form.state.surchargeAmountRaw == 150)
        #expect(form.state.surchargeAmount == formatted)
    }

    @Test("choosing a co-badged network changes the selection, the surcharge and the tokenized network")
    func selectNetwork() async throws {
        let checkout = try await CardCheckout.make(allowed: [.visa, .cartesBancaires],
                                                   networkSurcharges: ["VISA": 150, "CARTES_BANCAIRES": 0])
        let form = checkout.form
        form.updateCardNumber(Self.cartesBancairesVisa)
        Self.fillRest(form)
        await form.settled()
        #expect(form.state.selectedNetwork == .visa)
        #expect(form.state.surchargeAmountRaw == 150)
        #expect(form.state.surchargeAmount == "+ €1.50")
        try form.selectCardNetwork(.cartesBancaires)
        #expect(form.state.selectedNetwork == .cartesBancaires)
        #expect(form.state.surchargeAmountRaw == nil, "no surcharge applies: nil, as the seed says, like surchargeAmount")
        #expect(form.state.surchargeAmount == nil)
        #expect(throws: CheckoutError.self) { try form.selectCardNetwork(.amex) }
        let final = await form.submit()
        guard case .succeeded = final else {
            Issue.record("expected success, got \(final)")
            return
        }
        // The sandbox saved the masked instrument with the chosen network.
        #expect(form.state.selectedNetwork == .cartesBancaires)
    }

    struct SurchargeCase: Sendable, CustomStringConvertible {
        let currency: String
        let flat: Int?
        let perNetwork: [String: Int]?
        let number: String
        let raw: Int?
        let formatted: String?
        var description: String { "\(currency) \(raw.map(String.init) ?? "nil")" }
    }

    @Test("surcharge per network, raw and formatted with the session currency", arguments: [
        SurchargeCase(currency: "EUR", flat: nil, perNetwork: ["AMEX": 150], number: "378282246310005", raw: 150,
                      formatted: "+ €1.50"),
        SurchargeCase(currency: "EUR", flat: nil, perNetwork: ["AMEX": 150], number: "4242424242424242", raw: nil,
                      formatted: nil),
        SurchargeCase(currency: "EUR", flat: 25, perNetwork: ["AMEX": 150], number: "4242424242424242", raw: 25,
                      formatted: "+ €0.25"),
        SurchargeCase(currency: "EUR", flat: 25, perNetwork: ["VISA": 0], number: "4242424242424242", raw: nil,
                      formatted: nil),
        SurchargeCase(currency: "GBP", flat: nil, perNetwork: ["MASTERCARD": 1234], number: "5555555555554444",
                      raw: 1234, formatted: "+ £12.34"),
        SurchargeCase(currency: "JPY", flat: nil, perNetwork: ["VISA": 150], number: "4242424242424242", raw: 150,
                      formatted: "+ ¥150"),
        SurchargeCase(currency: "KWD", flat: nil, perNetwork: ["VISA": 1500], number: "4242424242424242", raw: 1500,
                      formatted: "+ KWD 1.500"),
        SurchargeCase(currency: "EUR", flat: 10, perNetwork: ["AMEX": 150], number: "", raw: 10, formatted: "+ €0.10"),
    ])
    func surcharge(_ example: SurchargeCase) async throws {
        let checkout = try await CardCheckout.make(currency: example.currency, surcharge: example.flat,
                                                   networkSurcharges: example.perNetwork)
        let form = checkout.form
        form.updateCardNumber(example.number)
        await form.settled()
        #expect(form.state.surchargeAmountRaw == example.raw)
        #expect(form.state.surchargeAmount == example.formatted)
    }

    @Test("a stale BIN answer is ignored when the first 8 digits changed meanwhile")
    func staleBinAnswer() async throws {
        let lookup = GatedBinLookup()
        let checkout = try await CardCheckout.make(allowed: [], binLookup: lookup)
        let form = checkout.form
        let stream = form.states()
        var requests = lookup.requested.makeAsyncIterator()

        form.updateCardNumber(Self.cartesBancairesVisa)
        #expect(await requests.next() == "40355010")
        form.updateCardNumber(Self.eftposMastercard)
        #expect(await requests.next() == "52000000")
        lookup.answer("40355010", with: .success(BinData(networks: [.cartesBancaires, .visa], issuerCountry: "FR")))
        let eftpos = BinData(networks: [.eftpos, .mastercard], issuerCountry: "AU")
        lookup.answer("52000000", with: .success(eftpos))
        await form.settled()

        #expect(form.state.binData == CardBinData(preferred: .eftpos, alternatives: [.mastercard], status: .complete,
                                                  firstDigits: "520000", issuerCountry: "AU"))
        #expect(form.state.availableNetworks == [.eftpos, .mastercard])
        #expect(form.state.selectedNetwork == .eftpos)
        let final = form.state
        for await state in stream {
            #expect(state.binData?.networks.contains(.cartesBancaires) != true, "a stale answer was published")
            if state == final { break }
        }

        // Shortening below 8 digits drops the BIN data; an answer arriving afterwards is ignored.
        form.updateCardNumber(Self.cartesBancairesVisa)
        #expect(await requests.next() == "40355010")
        form.updateCardNumber("4035")
        lookup.answer("40355010", with: .success(BinData(networks: [.cartesBancaires, .visa])))
        await form.settled()
        #expect(form.state.binData == CardBinData(preferred: .visa, status: .partial, firstDigits: "4035"))
        #expect(form.state.availableNetworks == [.visa])
        #expect(lookup.requests == ["40355010", "52000000", "40355010"])
    }

    @Test("BIN answers are cached by the first 8 digits; typing past 8 digits does not ask again")
    func binCache() async throws {
        let lookup = GatedBinLookup()
        let checkout = try await CardCheckout.make(allowed: [], binLookup: lookup)
        let form = checkout.form
        var requests = lookup.requested.makeAsyncIterator()
        form.updateCardNumber("4035501")
        form.updateCardNumber("40355010")
        #expect(await requests.next() == "40355010")
        let answer = BinData(networks: [.cartesBancaires, .visa], issuerCountry: "FR")
        lookup.answer("40355010", with: .success(answer))
        await form.settled()
        form.updateCardNumber("403550100")
        form.updateCardNumber(Self.cartesBancairesVisa)
        form.updateCardNumber("5200 0000")
        #expect(await requests.next() == "52000000")
        lookup.answer("52000000", with: .success(BinData(networks: [])))
        await form.settled()
        #expect(form.state.availableNetworks == [.mastercard])
        form.updateCardNumber(Self.cartesBancairesVisa)
        #expect(form.state.binData?.networks == answer.networks)
        #expect(form.state.availableNetworks == [.cartesBancaires, .visa])
        await form.settled()
        #expect(lookup.requests == ["40355010", "52000000"])
    }

    @Test("a failing BIN lookup falls back to local detection")
    func failingLookup() async throws {
        let checkout = try await CardCheckout.make(allowed: [], binLookup: FailingBinLookup())
        let form = checkout.form
        form.updateCardNumber(Self.cartesBancairesVisa)
        await form.settled()
        #expect(form.state.binData == CardBinData(preferred: .visa, status: .partial, firstDigits: "403550"))
        #expect(form.state.availableNetworks == [.visa])
        #expect(form.state.selectedNetwork == nil, "one network is not co-badged")
    }

    @Test("without a BIN lookup only local detection is used")
    func noLookup() async throws {
        let checkout = try await CardCheckout.make(allowed: [], useSandboxBins: false)
        checkout.form.updateCardNumber(Self.eftposMastercard)
        await checkout.form.settled()
        #expect(checkout.form.state.availableNetworks == [.mastercard])
        #expect(checkout.form.state.binData == CardBinData(preferred: .mastercard, status: .partial, firstDigits: "520000"))
    }

    @Test("the number and CVV never appear in snapshots, descriptions or mirrors")
    func noLeaks() async throws {
        let checkout = try await CardCheckout.make(options: ["billingAddress": .object(["addressLine1": .string("optional")])])
        let form = checkout.form
        form.updateCardNumber("4242 4242 4242 4242")
        form.updateCvv("987")
        form.updateExpiryDate(Self.visa)
        form.updateCardholderName(Self.visa)
        form.updateBillingField(.addressLine1, "pay with 4242424242424242 please")
        await form.settled()
        var dumped = ""
        dump(form, to: &dumped)
        dump(form.state, to: &dumped)
        let texts = [String(describing: form), String(reflecting: form), String(describing: form.state),
                     String(reflecting: form.state), dumped]
        for text in texts {
            #expect(!text.contains(Self.visa))
            #expect(!text.contains("4242 4242 4242 4242"))
            #expect(!text.contains("987"))
        }
        #expect(form.state.data.cvv == "")
        #expect(form.state.data.billingAddress.addressLine1?.contains("pay with 424242••••••4242") == true)
    }

    @Test("concurrent submits create one payment")
    func concurrentSubmits() async throws {
        let checkout = try await CardCheckout.make()
        let form = checkout.form
        form.updateCardNumber(Self.visa)
        Self.fillRest(form)
        await form.settled()
        async let first = form.submit()
        async let second = form.submit()
        let states = await [first, second]
        #expect(states.contains { if case .succeeded = $0 { true } else { false } })
        #expect(states.allSatisfy { state in
            switch state {
            case .succeeded, .processing: true
            default: false
            }
        })
        #expect(checkout.sandbox.paymentCount == 1)
        #expect(checkout.sandbox.createPaymentCallCount == 1)
        #expect(checkout.session.deliveredOutcomes.count == 1)
    }

    @Test("concurrent updates from many tasks leave a consistent state")
    func concurrentUpdates() async throws {
        let checkout = try await CardCheckout.make(allowed: [])
        let form = checkout.form
        let numbers = [Self.visa, Self.cartesBancairesVisa, Self.eftposMastercard, "3782 822463 10005"]
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    form.updateCardNumber(numbers[index % numbers.count])
                    form.updateCvv(index.isMultiple(of: 2) ? "123" : "1234")
                    form.updateExpiryDate("12/30")
                    try? form.selectCardNetwork(.cartesBancaires)
                }
            }
        }
        form.updateCardNumber(Self.cartesBancairesVisa)
        form.updateCvv("123")
        await form.settled()
        let state = form.state
        #expect(state.data.cardNumber == "403550••••••" + String(Self.cartesBancairesVisa.suffix(4)))
        #expect(state.availableNetworks == [.cartesBancaires, .visa])
        #expect(state.binData?.networks == [.cartesBancaires, .visa])
        #expect(state.fieldErrors.isEmpty)
        #expect(state.isValid)
    }

    @Test("cancel wipes the form, is idempotent, and blocks later submits")
    func cancel() async throws {
        let checkout = try await CardCheckout.make()
        let form = checkout.form
        form.updateCardNumber(Self.visa)
        Self.fillRest(form)
        await form.settled()
        await form.cancel()
        await form.cancel()
        #expect(form.flowState == .cancelled)
        #expect(form.state.flow == .cancelled)
        #expect(form.state.isLoading == false)
        #expect(await form.submit() == .cancelled)
        form.updateCardNumber(Self.declined)
        #expect(form.state.data.cardNumber == "424242••••••4242")
        #expect(checkout.sandbox.createPaymentCallCount == 0)
        #expect(checkout.session.deliveredOutcomes.isEmpty)
    }

    @Test("vaultOnSuccess comes from the card option, else from the advertised option", arguments: [
        ([String: JSONValue](), Bool?.none, false),
        ([String: JSONValue](), Bool?.some(true), true),
        (["vaultOnSuccess": JSONValue.bool(true)], Bool?.none, true),
        (["vaultOnSuccess": JSONValue.bool(false)], Bool?.some(true), false),
    ])
    func vaultOnSuccess(_ options: [String: JSONValue], _ advertised: Bool?, _ vaulted: Bool) async throws {
        let vault = InMemoryVaultProvider()
        let checkout = try await CardCheckout.make(vaultOnSuccess: advertised, options: options, vault: vault)
        let form = checkout.form
        form.updateCardNumber(Self.visa)
        Self.fillRest(form)
        let final = await form.submit()
        guard case .succeeded(let result) = final else {
            Issue.record("expected success, got \(final)")
            return
        }
        #expect((result.vaultedToken != nil) == vaulted)
    }

    @Test("cardForm() is the session's PAYMENT_CARD flow")
    func cardFormIsTheFlow() async throws {
        let checkout = try await CardCheckout.make()
        let flow = try checkout.session.flow(for: .paymentCard)
        #expect(flow === checkout.form)
        #expect(flow.paymentMethodType == .paymentCard)
    }
}

extension CheckoutOutcome {
    /// The outcome with a failure's `checkoutData` dropped, for tests about the error alone.
    var ignoringCheckoutData: CheckoutOutcome {
        if case .failure(let error, _) = self { return .failure(error, checkoutData: nil) }
        return self
    }
}
