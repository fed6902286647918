import CheckoutCore
import CheckoutVault
import Foundation

/// A fresh directory under the system temporary directory, removed when released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("vault-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// Shared builders for vault tests.
enum Fixtures {
    /// A fixed clock: every timestamp is 1_000 ms, so last-used stamps become 1_000, 1_001, ...
    static let clock = WallClock(nowMillis: { 1_000 })

    static let alice = VaultScope(merchantId: "m_shop", customerId: "c_alice")
    static let bob = VaultScope(merchantId: "m_shop", customerId: "c_bob")
    static let otherMerchantAlice = VaultScope(merchantId: "m_other", customerId: "c_alice")

    /// A masked saved card.
    static func card(_ id: String, first6: String = "424242", last4: String = "4242", network: CardNetwork = .visa,
                     isDefault: Bool = false, name: String? = "Ada Lovelace", bin: BinData? = nil) -> VaultedPaymentMethod {
        VaultedPaymentMethod(
            id: id, paymentMethodType: .paymentCard, paymentInstrumentType: .paymentCard,
            paymentInstrumentData: PaymentInstrumentData(network: network, first6Digits: first6, last4Digits: last4,
                                                         expirationMonth: 12, expirationYear: 2030, cardholderName: name,
                                                         binData: bin),
            analyticsId: "an_\(id)", isDefault: isDefault)
    }

    /// A store in `directory` with the fixed clock.
    static func store(in directory: TemporaryDirectory, name: String = "vault.sqlite",
                      configuration: VaultStore.Configuration = VaultStore.Configuration()) throws -> VaultStore {
        try VaultStore(path: directory.path(name), configuration: configuration, clock: clock)
    }
}
