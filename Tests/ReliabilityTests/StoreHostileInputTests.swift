import CheckoutTestSupport
import CheckoutCore
import CheckoutVault
import Foundation
import Testing

extension Reliability.HostileInput {
    /// A method whose string fields are hostile where `hostile` says so.
    static func method(_ mutator: inout FuzzMutator, token: String) -> (VaultedPaymentMethod, hostileFields: [String]) {
        var hostile: [String] = []
        func field(_ name: String, _ normal: String) -> String {
            guard mutator.random.chance(1, in: 4) else { return normal }
            hostile.append(name)
            return mutator.hostileString()
        }
        let id = field("id", token)
        let data = PaymentInstrumentData(
            network: CardNetwork(field("network", "VISA")), first6Digits: field("first6Digits", "424242"),
            last4Digits: field("last4Digits", "4242"), expirationMonth: 12, expirationYear: 2031,
            cardholderName: field("cardholderName", "Ada Lovelace"),
            binData: BinData(networks: [CardNetwork(field("binData.networks", "VISA"))],
                             issuerCountry: field("issuerCountry", "NL"), accountFundingType: field("accountFundingType", "CREDIT")))
        let method = VaultedPaymentMethod(
            id: id, paymentMethodType: PaymentMethodType(field("paymentMethodType", "PAYMENT_CARD")),
            paymentInstrumentType: PaymentInstrumentType(rawValue: field("paymentInstrumentType", "PAYMENT_CARD")),
            paymentInstrumentData: data, analyticsId: field("analyticsId", "an-\(token)"), isDefault: mutator.random.chance(1, in: 5))
        return (method, hostile)
    }

    /// True when any string of the method or scope holds a card number.
    static func holdsCardNumber(_ method: VaultedPaymentMethod, _ scope: VaultScope) -> Bool {
        let data = method.paymentInstrumentData
        let texts = [method.id, method.analyticsId, method.paymentMethodType.rawValue, method.paymentInstrumentType.rawValue,
                     data.network?.rawValue, data.first6Digits, data.last4Digits, data.cardholderName,
                     data.binData?.issuerCountry, data.binData?.accountFundingType, scope.merchantId, scope.customerId]
            + (data.binData?.networks.map(\.rawValue) ?? [])
        return texts.contains { ReferenceCardNumberDetector.containsCardNumber($0 ?? "") }
    }

    /// Counts of rows in the store's tables, to prove a refused call changed nothing.
    static func rowCounts(_ path: String) throws -> [String] {
        try ReliabilityServer.dump(path)
    }

    @Test("VaultStore: hostile text in every string field round-trips or is refused with a typed error")
    func vaultStore() throws {
        let seed = ReliabilityBudget.seed &+ 7
        var mutator = FuzzMutator(seed: seed)
        var failures = FuzzFailures(target: "VaultStore inputs", seed: seed)
        let directory = try ReliabilityTemp.directory("store-fuzz")
        let path = directory.appendingPathComponent("vault.sqlite").path
        let store = try VaultStore(path: path, clock: WallClock(nowMillis: { 1_000 }))
        // Whole-database comparisons are slow; do them on a sample of refused calls.
        var compared = 0

        for index in 0..<Self.cases {
            let scope = VaultScope(
                merchantId: mutator.random.chance(1, in: 6) ? mutator.hostileString() : "merchant-\(index % 3)",
                customerId: mutator.random.chance(1, in: 6) ? mutator.hostileString() : "customer-\(index % 4)")
            let (method, _) = Self.method(&mutator, token: "tok-\(index % 50)")
            let mustRefuse = Self.holdsCardNumber(method, scope)
            // Whole-database snapshots are O(rows): every 20th case early on, then every 1000th.
            let before = (index % 20 == 0 && index < 2_000) || index % 1_000 == 0 ? try Self.rowCounts(path) : nil
            let pendingBefore = try store.blocking.pendingCount(scope: scope)
            do {
                switch index % 10 {
                case 0...6:
                    try store.blocking.upsert(method, scope: scope)
                    if mustRefuse { failures.fail(index, "a card number was accepted") }
                    if let stored = try store.blocking.instrument(token: method.id, scope: scope) {
                        if stored.method != method || stored.isDeleted { failures.fail(index, "the instrument did not round-trip") }
                    } else {
                        failures.fail(index, "an accepted instrument cannot be read back")
                    }
                    if try store.blocking.pendingCount(scope: scope) != pendingBefore + 1 {
                        failures.fail(index, "the accepted upsert did not queue exactly one op")
                    }
                case 7:
                    try store.blocking.delete(token: method.id, scope: scope)
                    if mustRefuse && (ReferenceCardNumberDetector.containsCardNumber(method.id)
                                      || ReferenceCardNumberDetector.containsCardNumber(scope.merchantId)
                                      || ReferenceCardNumberDetector.containsCardNumber(scope.customerId)) {
                        failures.fail(index, "a delete with a card number was accepted")
                    }
                case 8:
                    try store.blocking.setDefault(token: method.id, scope: scope)
                default:
                    let cursor = mutator.random.chance(1, in: 2) ? mutator.hostileString() : "v1.\(index)"
                    try store.blocking.applyRemotePage(scope: scope, changes: [.upsert(method, version: Int64(index + 1))],
                                                       newCursor: cursor)
                    if mustRefuse || ReferenceCardNumberDetector.containsCardNumber(cursor) {
                        failures.fail(index, "a remote page with a card number was accepted")
                    }
                }
                failures.verdict("accepted", reached: mustRefuse ? ["a card number, by the reference"] : [])
            } catch let error as CheckoutError {
                let allowed: [CheckoutError.Code] = [.sensitiveDataRejected, .invalidPaymentData, .vaultFailure]
                if !allowed.contains(error.code) { failures.fail(index, "unexpected code \(error.code)") }
                failures.checkStrings(of: error, index)
                if let before, try Self.rowCounts(path) != before {
                    failures.fail(index, "a refused call changed the database")
                }
                if before != nil { compared += 1 }
                failures.verdict("refused \(error.code.rawValue)", reached: mustRefuse ? ["a card number, by the reference"] : [])
            } catch let error as VaultStorageError {
                failures.checkStrings(of: error, index)
                failures.fail(index, "SQLite refused hostile text: \(error.code)")
                failures.verdict("SQLite error")
            } catch {
                failures.fail(index, "untyped error \(type(of: error))")
                failures.verdict("untyped error")
            }
        }
        // The outbox stays consistent: unique op ids, each op points at an existing row.
        let rows = try ReliabilityServer.dump(path)
        let outbox = rows.filter { $0.hasPrefix("outbox|") }
        let opIds = outbox.map { $0.split(separator: "|", omittingEmptySubsequences: false)[2] }
        #expect(Set(opIds).count == opIds.count)
        let leaked = ReliabilityServer.cardNumberCells(rows)
        #expect(leaked.isEmpty, "card numbers reached the store: \(leaked.count), e.g. \(leaked.prefix(3))")
        #expect(compared > 0)
        let hits = PaymentDataScanner.scan(PaymentDataScanner.files(under: directory), for: TestCards.numbers)
        #expect(hits.isEmpty, "card numbers found on disk: \(hits)")
        // Hostile text was stored and read back, and card numbers were refused, both often.
        failures.verify(counters: ["fuzz.vaultStore"], planned: Self.cases,
                        atLeast: ["accepted": 0.15, "refused sensitive-data-rejected": 0.02, "a card number, by the reference": 0.02])
    }
}

extension Reliability.HostileInput {
    @Test("a card number glued to other digits is still masked in every CheckoutError", arguments: TestCards.numbers)
    func gluedCardNumber(_ number: String) {
        for text in ["9\(number)", "\(number)0", "12\(number)34", "x\(number)7y", "\(number)\(number)"] {
            let error = CheckoutError(.invalidConfiguration, "value \(text) is wrong", underlying: CheckoutError(.vaultFailure, text))
            for printed in errorStrings(error) {
                #expect(!printed.contains(number))
                expectNoCardNumber(printed, "CheckoutError for a glued card number")
            }
        }
    }

    @Test("outbox op ids never look like card numbers (the server refuses such ids)")
    func operationIdentifiers() throws {
        let directory = try ReliabilityTemp.directory("op-ids")
        let store = try VaultStore(path: directory.appendingPathComponent("ids.sqlite").path, clock: WallClock(nowMillis: { 1_000 }))
        // About 0.7% of random UUIDs pass the card-number rule (dashes count as separators), so
        // without the redraw in SafeIdentifier this many ids would hold dozens of lookalikes.
        let count = ReliabilityBudget.isLong ? 100_000 : 5_000
        var ids: [String] = []
        for chunk in 0..<(count / 500) {
            let scope = VaultScope(merchantId: "merchant_a", customerId: "ids-\(chunk)")
            ids += try store.blocking.upsert((0..<500).map { ReliabilityFixture.card("t-\($0)") }, scope: scope)
        }
        #expect(ids.count == count)
        #expect(Set(ids).count == count)
        #expect(ids.allSatisfy { !ReferenceCardNumberDetector.containsCardNumber($0) })
        // Why it matters: a UUID like this one passes the card-number rule, and the server refuses it.
        let server = try ReliabilityServer(directory: directory)
        defer { server.server.stop() }
        let lookalike = "d10f45e0-5694-4352-9387-3ef0473fbc40"
        #expect(ReferenceCardNumberDetector.containsCardNumber(lookalike))
        let body = try ReliabilityServer.opsBody([OutboundOp(opId: lookalike, kind: .upsert, instrumentId: "inst-1",
                                                             baseVersion: nil, method: ReliabilityFixture.card("inst-1"))])
        let response = try RawHTTP.call(port: server.port, "POST", "/v1/customers/ids/ops", key: ReliabilityServer.keyA, body: body)
        #expect(response.status == 400)
        #expect(response.errorCode == "invalid-op-id")
    }
}
