import CheckoutCore
import Foundation
import Testing

@Suite struct ConcurrencyTests {
    /// 1,000 tasks use one session at once: selection, search, CVV, refresh, payments (some
    /// declined). Afterwards every invariant of the state and of the completion rules must hold.
    @Test func oneSessionUnderAThousandConcurrentTasks() async throws {
        let vault = InMemoryVaultProvider()
        let scope = VaultScope(merchantId: "merchant_a", customerId: "customer_1")
        try await vault.save(Fixtures.savedCard("vt_visa", network: .visa, isDefault: true), for: scope)
        try await vault.save(Fixtures.savedCard("vt_amex", network: .amex, last4: "0005"), for: scope)
        let attempt = Counter()
        let registry = Fixtures.registry([.paymentCard, .payPal, .adyenIdeal, .vaulted]) {
            attempt.increment() % 3 == 0 ? "4242424242424242" : "4000000000000002"
        }
        let session = Fixtures.session(token: Fixtures.token(captureCvv: true), registry: registry, vault: vault)
        await session.start()
        let selection = try #require(session.selection)
        let methods = session.paymentMethods
        let saved = selection.vaultedPaymentMethods
        let expectedIds: [String: Set<String>] = [
            "": ["pm_ideal", "pm_card", "pm_paypal"], "pay": ["pm_card", "pm_paypal"], "CARD": ["pm_card"],
            "idéal": ["pm_ideal"], "x": [],
        ]
        let queries = expectedIds.keys.sorted()

        let observed = Task {
            var count = 0
            for await state in selection.states() {
                count += 1
                if state.requiresCvvInput && state.selectedVaultedPaymentMethod == nil { return -1 }
                if count > 100_000 { break }
            }
            return count
        }

        await withTaskGroup(of: Void.self) { group in
            for index in 0..<1_000 {
                group.addTask {
                    switch index % 8 {
                    case 0: selection.select(methods[index % methods.count])
                    case 1: selection.search(queries[index % queries.count])
                    case 2: selection.selectVaulted(saved[index % saved.count])
                    case 3: selection.updateCvvInput(String(repeating: "1", count: index % 5))
                    case 4: await session.refresh()
                    case 5: _ = await (try? session.flow(for: .paymentCard))?.submit()
                    case 6: await selection.cancel()
                    default: _ = session.paymentMethods
                    }
                }
            }
        }

        let state = selection.state
        #expect(state.paymentMethods == methods)
        let expected = try #require(expectedIds[state.searchQuery])
        #expect(state.filteredPaymentMethods == methods.filter { expected.contains($0.id) })
        if state.requiresCvvInput { #expect(state.selectedVaultedPaymentMethod != nil) }
        if state.selectedVaultedPaymentMethod != nil { #expect(state.selectedPaymentMethod == nil) }
        #expect(!state.isVaultPaymentLoading)

        let outcomes = session.deliveredOutcomes
        let successes = outcomes.filter { if case .success = $0 { return true } else { return false } }
        #expect(successes.count <= 1)
        if let last = outcomes.last, successes.count == 1 {
            #expect(last == successes[0], "nothing is delivered after a success")
        }
        #expect(outcomes.allSatisfy { outcome in
            if case .failure(let error, _) = outcome { return error.code == .paymentDeclined }
            return true
        })
        #expect(session.phase == .ready)
        session.cancel()
        observed.cancel()
        #expect(await observed.value != -1, "no published snapshot broke the CVV invariant")
    }

    /// Many independent sessions on one registry and processor: no shared mutable state leaks.
    @Test func manySessionsShareOneRegistry() async {
        let registry = Fixtures.registry()
        let processor = SandboxProcessor()
        let ready = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    let session = Fixtures.session(registry: registry, processor: processor)
                    await session.start()
                    if session.phase == .ready, session.paymentMethods.count == 3 { _ = ready.increment() }
                }
            }
        }
        #expect(ready.count == 200)
    }
}
