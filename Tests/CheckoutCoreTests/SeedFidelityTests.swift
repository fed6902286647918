@testable import CheckoutCore
import CheckoutCoreTesting
import CheckoutLocking
import CheckoutTestSupport
import Foundation
import Testing

/// A vault whose reads can be held (to observe loading) and whose `markUsed` can fail.
final class GatedVault: VaultProvider {
    let inner = InMemoryVaultProvider()
    private let held = Locked<[CheckedContinuation<Void, Never>]?>(nil)
    private let markUsedError = Locked<CheckoutError?>(nil)

    func hold() { held.withLock { $0 = [] } }
    func release() {
        let waiting = held.withLock { held -> [CheckedContinuation<Void, Never>] in
            defer { held = nil }
            return held ?? []
        }
        for continuation in waiting { continuation.resume() }
    }
    var waiting: Int { held.withLock { $0?.count ?? 0 } }
    func failMarkUsed(with error: CheckoutError) { markUsedError.withLock { $0 = error } }

    func paymentMethods(for scope: VaultScope) async throws -> [VaultedPaymentMethod] {
        await withCheckedContinuation { continuation in
            let parked = held.withLock { held -> Bool in
                guard held != nil else { return false }
                held?.append(continuation)
                return true
            }
            if !parked { continuation.resume() }
        }
        return try await inner.paymentMethods(for: scope)
    }
    func save(_ method: VaultedPaymentMethod, for scope: VaultScope) async throws { try await inner.save(method, for: scope) }
    func delete(id: String, for scope: VaultScope) async throws { try await inner.delete(id: id, for: scope) }
    func setDefault(id: String, for scope: VaultScope) async throws { try await inner.setDefault(id: id, for: scope) }
    func markUsed(id: String, for scope: VaultScope) async throws {
        if let error = markUsedError.withLock({ $0 }) { throw error }
        try await inner.markUsed(id: id, for: scope)
    }
}

/// Forwards to the sandbox but drops the vault token from every answer (a processor that did not
/// save the instrument although asked to).
final class NoVaultTokenProcessor: PaymentProcessor {
    let sandbox = SandboxProcessor()
    func clientSession(for token: ClientToken) async throws -> ClientSession { try await sandbox.clientSession(for: token) }
    func tokenize(_ request: TokenizationRequest, session: ClientSession) async throws -> PaymentMethodToken {
        try await sandbox.tokenize(request, session: session)
    }
    func createPayment(_ request: CreatePaymentRequest) async throws -> PaymentResponse {
        var response = try await sandbox.createPayment(request)
        response.vaultedToken = nil
        return response
    }
    func resumePayment(paymentId: String, resumeToken: String) async throws -> PaymentResponse {
        try await sandbox.resumePayment(paymentId: paymentId, resumeToken: resumeToken)
    }
    func paymentStatus(paymentId: String) async throws -> PaymentResponse { try await sandbox.paymentStatus(paymentId: paymentId) }
    func exchangeVaulted(_ request: VaultedExchangeRequest, session: ClientSession) async throws -> PaymentMethodToken {
        try await sandbox.exchangeVaulted(request, session: session)
    }
}

/// Everything `stream` yields until it finishes; nil when it did not finish within
/// `TestWait.finished`. Every stream read here should already have finished (the session sends the
/// finish synchronously with the terminal outcome or `cancel()`), so a broken rule fails in seconds.
func collectUntilFinished(_ stream: AsyncStream<CheckoutOutcome>) async -> [CheckoutOutcome]? {
    await readToEnd(stream, within: TestWait.finished)
}

// A backstop only: every stream read is raced against `TestWait.finished`, so a stream that never
// finishes fails its test within that bound; the limit catches any other wait that goes wrong.
/// The seed SDK's semantics.
@Suite(.timeLimit(.minutes(2)))
struct SeedFidelityTests {
    static let declined = CheckoutError(.paymentDeclined, "Do not honor")

    // MARK: Item 5: isLoading

    @Test func selectionIsLoadingWhileSavedMethodsLoadAndDuringRefresh() async throws {
        let vault = GatedVault()
        let scope = VaultScope(merchantId: "merchant_a", customerId: "customer_1")
        try await vault.inner.save(Fixtures.savedCard("vt_saved_card_0001"), for: scope)
        vault.hold()
        let processor = ControllableProcessor()
        let session = Fixtures.session(processor: processor, vault: vault)
        let start = Task { await session.start() }
        // Ready is published before the saved methods are read (and the read stays held until release()).
        #expect(await firstElement(of: session.phases()) { $0 == .ready } != nil)
        let selection = try #require(session.selection, "ready while the saved methods load")
        #expect(selection.state.isLoading)
        #expect(selection.vaultedPaymentMethods.isEmpty, "empty while loading, as the seed says")
        let states = selection.states()
        vault.release()
        await start.value
        #expect(!selection.state.isLoading)
        #expect(selection.vaultedPaymentMethods.map(\.id) == ["vt_saved_card_0001"])

        processor.hold(.clientSession)
        let refresh = Task { await session.refresh() }
        #expect(await processor.waitForHeldCall(.clientSession))
        #expect(selection.state.isLoading, "refresh() sets isLoading")
        processor.release(.clientSession)
        await refresh.value
        #expect(!selection.state.isLoading)

        processor.failClientSession(with: CheckoutError(.networkError, "offline"))
        await session.refresh()
        #expect(!selection.state.isLoading, "a failed refresh ends loading too")

        // Every snapshot is buffered by now; cancelling the reader ends the stream after them.
        let reader = Task {
            var loading: [Bool] = []
            for await state in states where loading.last != state.isLoading { loading.append(state.isLoading) }
            return loading
        }
        reader.cancel()
        #expect(await reader.value == [true, false, true, false, true, false])
    }

    // MARK: Item 10: outcomes()

    @Test func severalSubscribersSeeEveryOutcomeAndTheirStreamsFinishAfterSuccess() async throws {
        let attempt = Counter()
        let registry = Fixtures.registry { attempt.increment() == 1 ? "4000000000000002" : "4242424242424242" }
        let session = Fixtures.session(registry: registry)
        let first = session.outcomes()
        let second = session.outcomes()
        await session.start()
        let flow = try session.flow(for: .payPal)
        let failed = await flow.submit()
        let paid = await flow.submit()
        guard case .failed = failed, case .succeeded(let result) = paid else {
            Issue.record("expected a decline then a success, got \(failed), \(paid)")
            return
        }
        let all = session.deliveredOutcomes
        #expect(all.map(\.ignoringCheckoutData) == [.failure(Self.declined, checkoutData: nil), .success(result)])
        let firstSeen = try #require(await collectUntilFinished(first), "the first stream did not finish after the success")
        #expect(firstSeen == all)
        let secondSeen = try #require(await collectUntilFinished(second), "the second stream did not finish after the success")
        #expect(secondSeen == all)
        let lateSeen = try #require(await collectUntilFinished(session.outcomes()),
                                    "a stream obtained after the success did not finish at once")
        #expect(lateSeen == all, "a late subscriber gets the run's outcomes, then the end")
    }

    @Test func aLateSubscriberSeesTheFailuresAlreadyDeliveredThenWhatFollows() async throws {
        let attempt = Counter()
        let registry = Fixtures.registry { attempt.increment() <= 2 ? "4000000000000002" : "4242424242424242" }
        let session = Fixtures.session(registry: registry)
        await session.start()
        let flow = try session.flow(for: .payPal)
        _ = await flow.submit()
        let late = session.outcomes()
        _ = await flow.submit()
        guard case .succeeded(let result) = await flow.submit() else {
            Issue.record("expected the third attempt to pay")
            return
        }
        let expected: [CheckoutOutcome] = [.failure(Self.declined, checkoutData: nil), .failure(Self.declined, checkoutData: nil),
                                           .success(result)]
        #expect(await collectUntilFinished(late)?.map(\.ignoringCheckoutData) == expected,
                "the failure delivered before it subscribed, the ones after, then the end")
    }

    @Test func cancelFinishesTheStreamsAndTheNextRunStartsClean() async throws {
        let session = Fixtures.session()
        let before = session.outcomes()
        await session.start()
        session.cancel()
        #expect(try #require(await collectUntilFinished(before), "cancel() did not finish the stream") == [])
        let next = session.outcomes()
        await session.start()
        session.dismiss()
        #expect(try #require(await collectUntilFinished(next), "the stream did not finish after dismissal") == [.dismissed])
        session.cancel()
        session.cancel()
        let third = session.outcomes()
        await session.start()
        session.cancel()
        #expect(try #require(await collectUntilFinished(third), "cancel() did not finish a stream that saw nothing") == [])
    }

    @Test(arguments: [CheckoutError(.networkError, "connection reset"), CheckoutError(.timeout, "no answer"),
                      CheckoutError(.paymentFailed, "processor error 500")])
    func aFailureDuringStartIsOneFailureThatEndsTheRun(error: CheckoutError) async throws {
        let processor = ControllableProcessor()
        processor.failClientSession(with: error)
        let session = Fixtures.session(processor: processor)
        let early = session.outcomes()
        await session.start()
        let expected: [CheckoutOutcome] = [.failure(error, checkoutData: nil)]
        #expect(await collectUntilFinished(early) == expected)
        #expect(await collectUntilFinished(session.outcomes()) == expected, "late: replayed, then finished")
        #expect(session.phase == .initializing)
        #expect(session.selection == nil)
        processor.failClientSession(with: nil)
        await session.start()
        await session.refresh()
        session.dismiss()
        #expect(processor.callCount(.clientSession) == 1, "the ended run does not start again")
        #expect(session.deliveredOutcomes == expected, "nothing after the failure that ended the run")
    }

    // MARK: Item 10: checkoutData

    @Test func aFailureCarriesThePaymentAndOrderIds() async throws {
        var token = Fixtures.token()
        token.order = OrderDetails(orderId: "order-7")
        let processor = ControllableProcessor()
        let session = Fixtures.session(token: token, registry: Fixtures.registry { "4000000000000002" },
                                       processor: processor)
        await session.start()
        _ = try await session.flow(for: .payPal).submit()
        guard case .failure(let error, let data)? = session.deliveredOutcomes.first else {
            Issue.record("expected a failure, got \(session.deliveredOutcomes)")
            return
        }
        #expect(error == Self.declined)
        #expect(data?.orderId == "order-7")
        let paymentId = try #require(data?.paymentId)
        #expect(try await processor.backing.paymentStatus(paymentId: paymentId).status == .declined,
                "the id is the declined payment's")

        session.onBeforePaymentCreate = { _ in .abort(message: nil) }
        _ = try await session.flow(for: .payPal).submit()
        #expect(session.deliveredOutcomes.last == .failure(
            CheckoutError(.paymentAborted, PaymentCreationDecision.defaultAbortMessage),
            checkoutData: CheckoutData(paymentId: nil, orderId: "order-7")), "no payment was created")
    }

    @Test func aFailureWithNoPaymentAndNoOrderHasNoCheckoutData() async throws {
        let session = Fixtures.session()
        session.onBeforePaymentCreate = { _ in .abort(message: "Basket changed") }
        await session.start()
        _ = try await session.flow(for: .payPal).submit()
        #expect(session.deliveredOutcomes == [.failure(CheckoutError(.paymentAborted, "Basket changed"), checkoutData: nil)])
    }

    // MARK: Item 10: the client session's order

    @Test func theClientSessionExposesLineItemsCustomerAndFeesFromTheToken() async throws {
        var token = Fixtures.token()
        let order = OrderDetails(
            orderId: "order-42",
            lineItems: [LineItem(itemId: "sku-1", description: "T-shirt", amount: 1500, quantity: 1),
                        LineItem(description: "Socks", amount: 2, quantity: 2)],
            customer: CustomerDetails(emailAddress: "ada@example.com", firstName: "Ada", lastName: "Lovelace"),
            fees: [OrderFee(type: "SHIPPING", amount: 495)])
        token.order = order
        let session = Fixtures.session(token: token)
        await session.start()
        let clientSession = try #require(session.clientSession)
        #expect(clientSession.orderId == "order-42")
        #expect(clientSession.lineItems == order.lineItems)
        #expect(clientSession.customer == order.customer)
        #expect(clientSession.fees == order.fees)
        #expect(clientSession.totalAmount == 1999)
        #expect(clientSession.currencyCode == "EUR")
    }

    @Test func theTokenFormatIsExtendedCompatibly() throws {
        // A version-1 token written before the order fields existed decodes unchanged ...
        let legacy = #"{"merchantId":"m","customerId":"c","amount":100,"currency":"EUR","country":"NL","expiresAt":4102444800,"paymentMethods":[{"type":"PAYPAL"}]}"#
        let decoded = try ClientToken.decode(ClientToken.prefix + Base64URL.encode(Data(legacy.utf8)))
        #expect(decoded.order == OrderDetails())
        // ... and a token without an order encodes without the new keys.
        let payload = try #require(Base64URL.decode(decoded.encoded().dropFirst(ClientToken.prefix.count)))
        let keys = try #require(JSONSerialization.jsonObject(with: payload) as? [String: Any]).keys
        for key in ["orderId", "lineItems", "customer", "fees"] { #expect(!keys.contains(key)) }

        var token = Fixtures.token()
        token.order = OrderDetails(orderId: "o1", lineItems: [LineItem(amount: 1999)],
                                   customer: CustomerDetails(firstName: "Ada"), fees: [OrderFee(type: "SHIPPING", amount: 0)])
        #expect(try ClientToken.decode(token.encoded(), now: Fixtures.now) == token)
    }

    @Test(arguments: [
        (OrderDetails(lineItems: [LineItem(amount: -1)]), "lineItems[0].amount must not be negative"),
        (OrderDetails(lineItems: [LineItem(amount: 1, quantity: 0)]), "lineItems[0].quantity must be at least 1"),
        (OrderDetails(fees: [OrderFee(type: "", amount: 1)]), "fees[0].type must be 1-256 characters"),
        (OrderDetails(orderId: ""), "orderId must be 1-256 characters"),
        (OrderDetails(lineItems: Array(repeating: LineItem(amount: 1), count: 257)), "lineItems has more than 256 entries"),
        (OrderDetails(customer: CustomerDetails(emailAddress: String(repeating: "a", count: 300))),
         "customer has a field over 256 bytes"),
    ])
    func aBadOrderIsATypedErrorNamingTheField(order: OrderDetails, message: String) {
        var token = Fixtures.token()
        token.order = order
        #expect(throws: CheckoutError(.invalidClientToken, message)) { try ClientToken.decode(token.encoded(), now: Fixtures.now) }
    }

    // MARK: Item 3: markUsed failures

    @Test func aSavedMethodThatCannotBeMarkedUsedIsReportedInDiagnostics() async throws {
        let vault = GatedVault()
        let scope = VaultScope(merchantId: "merchant_a", customerId: "customer_1")
        let card = Fixtures.savedCard("vt_saved_card_0042")
        try await vault.inner.save(card, for: scope)
        vault.failMarkUsed(with: CheckoutError(.vaultFailure, "disk full"))
        let session = Fixtures.session(vault: vault)
        await session.start()
        let selection = try #require(session.selection)
        selection.selectVaulted(card)
        guard case .succeeded = await selection.submitVaulted() else {
            Issue.record("expected the saved card to pay")
            return
        }
        #expect(session.diagnostics.contains(.savedMethodNotMarkedUsed(maskedToken: "•••0042", reason: "disk full")))
        #expect(!session.diagnostics.description.contains("vt_saved_card_0042"), "the token is masked")
    }

    // MARK: Item 4: vaultError when no token came back

    @Test func vaultingThatGotNoTokenIsReportedInVaultError() async throws {
        let vault = InMemoryVaultProvider()
        let session = Fixtures.session(processor: NoVaultTokenProcessor(), vault: vault)
        await session.start()
        guard case .succeeded(let result) = try await session.flow(for: .paymentCard).submit() else {
            Issue.record("expected success")
            return
        }
        #expect(result.vaultedToken == nil)
        #expect(result.vaultError?.code == .vaultFailure)
        #expect(try await vault.paymentMethods(for: VaultScope(merchantId: "merchant_a", customerId: "customer_1")).isEmpty)
    }

    @Test func aPaymentFinishedByPollingIsVaultedWhenItsCreationAskedForIt() async throws {
        // The shopper completes the challenge out of band; the flow finds the success by polling,
        // without asking for vaulting again: the pipeline remembers that the creation asked.
        let vault = InMemoryVaultProvider()
        let processor = ControllableProcessor()
        let session = Fixtures.session(registry: Fixtures.registry { "4000000000003220" }, processor: processor,
                                       vault: vault)
        await session.start()
        let flow = try #require(try session.flow(for: .payPal) as? TestFlow)
        guard case .awaitingChallenge = await flow.submit() else {
            Issue.record("expected a challenge")
            return
        }
        let token = try #require(flow.steps.lastToken.withLock { $0 })
        let pipeline = flow.steps.context.pipeline
        let paymentId = "pay_2"  // the sandbox numbers tokens and payments from one counter: tok_1, then pay_2
        #expect(try await processor.backing.paymentStatus(paymentId: paymentId).status == .pending)
        #expect(try await pipeline.pollStatus(paymentId: paymentId, token: token) == nil, "still pending")
        _ = try await processor.backing.resumePayment(paymentId: paymentId, resumeToken: "challenge-success")
        guard case .succeeded(let result) = try await pipeline.pollStatus(paymentId: paymentId, token: token) else {
            Issue.record("expected the poll to find the success")
            return
        }
        let vaultedToken = try #require(result.vaultedToken)
        #expect(result.vaultError == nil)
        #expect(try await vault.paymentMethods(for: VaultScope(merchantId: "merchant_a", customerId: "customer_1"))
            .map(\.id) == [vaultedToken])
        #expect(session.deliveredOutcomes == [.success(result)])
    }

    // MARK: Item 9: CheckoutPaymentMethod

    static func method(background: PaymentMethodColor?, text: PaymentMethodColor? = nil, icon: String? = nil,
                       border: Double? = nil) -> CheckoutPaymentMethod {
        CheckoutPaymentMethod(id: "pm_paypal", type: .payPal, name: "PayPal",
                              display: PaymentMethodDisplay(name: "PayPal", backgroundColor: background, textColor: text,
                                                            borderColor: "#cccccc", borderWidth: border, cornerRadius: 8,
                                                            iconName: icon))
    }

    @Test func paymentMethodEqualityComparesTheBackgroundInBothModesAndIgnoresDisplayOnlyFields() {
        let base = Self.method(background: PaymentMethodColor(light: "#ffffff", dark: "#000000"))
        #expect(base != Self.method(background: PaymentMethodColor(light: "#ffffff", dark: "#111111")), "dark differs")
        #expect(base != Self.method(background: PaymentMethodColor(light: "#fefefe", dark: "#000000")), "light differs")
        #expect(base == Self.method(background: PaymentMethodColor(light: "#ffffff", dark: "#000000"),
                                    text: "#ff0000", icon: "paypal", border: 2), "display-only fields are ignored")
    }

    @Test func paymentMethodCarriesIconAndTopLevelStyling() {
        let method = Self.method(background: "#ffc439", text: PaymentMethodColor(light: "#000000", dark: "#ffffff"),
                                 icon: "paypal", border: 1.5)
        #expect(method.icon == PaymentMethodIcon(name: "paypal"))
        #expect(method.backgroundColor == PaymentMethodColor(light: "#ffc439", dark: "#ffc439"))
        #expect(method.textColor?.dark == "#ffffff")
        #expect(method.borderColor == "#cccccc")
        #expect(method.borderWidth == 1.5)
        #expect(method.cornerRadius == 8)
    }

    @Test func configurationColoursAreOneStringOrLightAndDark() throws {
        let json = ##"{"paymentMethods":[{"type":"PAYPAL","display":{"backgroundColor":"#ffc439","textColor":{"light":"#000000","dark":"#ffffff"},"iconName":"paypal"}}]}"##
        let display = try #require(try CheckoutConfiguration.decode(Data(json.utf8)).method(.payPal)?.display)
        #expect(display.backgroundColor == PaymentMethodColor("#ffc439"))
        #expect(display.textColor == PaymentMethodColor(light: "#000000", dark: "#ffffff"))
        let bad = ##"{"paymentMethods":[{"type":"PAYPAL","display":{"textColor":{"light":"#000000"}}}]}"##
        #expect(throws: CheckoutError.self) { try CheckoutConfiguration.decode(Data(bad.utf8)) }
    }
}
