import CardPaymentMethod
import CheckoutCore
import CheckoutCoreTesting
import CheckoutLocking
import Foundation
import Testing

/// Shared fixtures: the real network table, fixed clocks, Luhn helpers and a seeded generator.
enum Fixtures {
    /// `Config/card-networks.json` of this repository.
    static let tableURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Config/card-networks.json")

    /// The real table, loaded once.
    static let table: CardNetworkTable = {
        do {
            return try CardNetworkTable(contentsOf: tableURL)
        } catch {
            fatalError("the repository's card-networks.json must load: \(error)")
        }
    }()

    /// A clock stopped at `2026-11-15T12:00:00Z`.
    static let november2026: Date = date(2026, 11, 15, 12, 0)

    /// A date in UTC.
    static func date(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int = 0) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        return calendar.date(from: components) ?? Date(timeIntervalSince1970: 0)
    }

    /// A validator with a fixed clock.
    static func validator(at date: Date = date(2026, 11, 15, 12, 0), allowed: [CardNetwork] = []) -> CardValidator {
        CardValidator(table: table, allowedNetworks: allowed, clock: .fixed(date))
    }

    /// `body` followed by its Luhn check digit.
    static func luhnComplete(_ body: String) -> String {
        let digits = body.utf8.map { Int($0) - 48 }
        var sum = 0
        for (offset, digit) in digits.reversed().enumerated() {
            var value = digit
            if offset % 2 == 0 {
                value *= 2
                if value > 9 { value -= 9 }
            }
            sum += value
        }
        return body + String((10 - sum % 10) % 10)
    }

    /// A Luhn-valid number of `length` digits starting with `prefix`, padded with zeros.
    static func number(prefix: String, length: Int) -> String {
        var body = prefix
        while body.count < length - 1 { body += "0" }
        return luhnComplete(String(body.prefix(length - 1)))
    }

    /// `number` with its last digit changed so that Luhn fails.
    static func breakingLuhn(_ number: String, by delta: Int = 1) -> String {
        let last = Int(number.utf8.last.map { $0 - 48 } ?? 0)
        return String(number.dropLast()) + String((last + delta) % 10)
    }

    /// The reference longest-prefix detection used as an oracle: `ReferenceCardRules`, which
    /// reads the table's JSON itself and shares no code with `CardNetworkTable`.
    static func referenceDetect(_ digits: String) -> CardNetwork? {
        let values = digits.unicodeScalars.compactMap { ("0"..."9").contains($0) ? Int($0.value) - 48 : nil }
        return CardPropertyTests.reference.network(ofDigits: values).map { CardNetwork($0) }
    }
}

/// A BIN lookup whose answers the test releases one by one, to order races deterministically.
final class GatedBinLookup: BinLookup {
    private struct State {
        var waiting: [String: [CheckedContinuation<BinData, any Error>]] = [:]
        var requests: [String] = []
    }

    private let state = Locked(State())
    private let requestContinuation: AsyncStream<String>.Continuation
    /// Every BIN asked for, in order.
    let requested: AsyncStream<String>

    init() {
        (requested, requestContinuation) = AsyncStream<String>.makeStream(bufferingPolicy: .unbounded)
    }

    /// Every BIN asked for so far.
    var requests: [String] { state.withLock { $0.requests } }

    func lookup(bin: String) async throws -> BinData {
        try await withCheckedThrowingContinuation { continuation in
            state.withLock {
                $0.waiting[bin, default: []].append(continuation)
                $0.requests.append(bin)
            }
            requestContinuation.yield(bin)
        }
    }

    /// Answers every pending lookup of `bin`.
    func answer(_ bin: String, with result: Result<BinData, CheckoutError>) {
        let continuations = state.withLock { $0.waiting.removeValue(forKey: bin) ?? [] }
        for continuation in continuations { continuation.resume(with: result.mapError { $0 as any Error }) }
    }
}

/// A BIN lookup that always fails (the form must fall back to local detection).
struct FailingBinLookup: BinLookup {
    func lookup(bin: String) async throws -> BinData {
        throw CheckoutError(.networkError, "lookup unavailable")
    }
}

/// A ready checkout session with the card handler registered, plus its sandbox.
struct CardCheckout {
    let session: CheckoutSession
    let sandbox: SandboxProcessor
    let form: CardFormSession

    /// Builds and starts a session.
    static func make(allowed: [CardNetwork] = [.visa, .mastercard, .amex], currency: String = "EUR",
                     amount: Int = 1999, surcharge: Int? = nil, networkSurcharges: [String: Int]? = nil,
                     vaultOnSuccess: Bool? = nil, options: [String: JSONValue] = [:],
                     binLookup: (any BinLookup)? = nil, useSandboxBins: Bool = true,
                     vault: (any VaultProvider)? = nil, locale: String? = nil,
                     now: Date = Fixtures.date(2026, 11, 15, 12, 0),
                     processor: ControllableProcessor<SandboxProcessor>? = nil) async throws -> CardCheckout {
        let sandbox = processor?.backing ?? SandboxProcessor()
        let token = ClientToken(
            merchantId: "m_1", customerId: "c_1", amount: amount, currency: currency, country: "NL",
            allowedCardNetworks: allowed, expiresAt: now.addingTimeInterval(3600),
            paymentMethods: [AdvertisedPaymentMethod(
                id: "pm_card", type: .paymentCard,
                options: AdvertisedOptions(surcharge: surcharge, networkSurcharges: networkSurcharges,
                                           vaultOnSuccess: vaultOnSuccess))],
            locale: locale)
        let registry = PaymentMethodRegistry()
        let lookup: (any BinLookup)? = binLookup ?? (useSandboxBins ? sandbox : nil)
        try registry.register(CardPaymentHandler(table: Fixtures.table, binLookup: lookup, clock: .fixed(now)))
        let configuration = CheckoutConfiguration(paymentMethods: [
            CheckoutConfiguration.Method(type: .paymentCard, options: options),
        ])
        let session = CheckoutSession(clientToken: token.encoded(), configuration: configuration, registry: registry,
                                      processor: processor ?? sandbox, vault: vault, clock: .fixed(now))
        await session.start()
        let form = try session.cardForm()
        return CardCheckout(session: session, sandbox: sandbox, form: form)
    }
}
