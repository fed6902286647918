import CheckoutCore
import CheckoutCoreTesting
import CheckoutLocking
@testable import CheckoutOrchestration
import Foundation

/// A fresh temporary directory per test.
enum OrchestrationTemp {
    static func directory(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("ck-orch-\(name)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// A router over scripted sandboxes with a SQLite ledger in a temporary directory.
struct Harness {
    static let visa = "4242424242424242"
    let router: PaymentRouter
    let ledger: PaymentLedger
    let sandboxes: [String: ScriptedSandboxProcessor]
    let clock: TestClock
    let directory: URL

    /// `file` is a routing file's JSON; its sandbox processors are built with their behaviour.
    init(_ json: String, durability: SQLiteLedgerStorage.Durability = .processCrash, seed: UInt64 = 0) throws {
        let file = try RoutingFileLoader.load(Array(json.utf8))
        directory = try OrchestrationTemp.directory("harness")
        clock = TestClock()
        ledger = PaymentLedger(storage: try SQLiteLedgerStorage(path: directory.appendingPathComponent("ledger.sqlite").path,
                                                                durability: durability), clock: clock.wallClock)
        var sandboxes: [String: ScriptedSandboxProcessor] = [:]
        for definition in file.processors {
            sandboxes[definition.name] = ScriptedSandboxProcessor(
                name: definition.name, behaviour: definition.behaviour,
                declineTable: definition.declineTable ?? ScriptedSandboxProcessor.builtInDeclineTable)
        }
        self.sandboxes = sandboxes
        router = try PaymentRouter(file: file, processors: sandboxes, ledger: ledger, picker: WeightedPicker(seed: seed),
                                   clock: clock.wallClock)
    }

    static func session(amount: Int = 1000, currency: String = "EUR", merchant: String = "m_1") -> ClientSession {
        let token = ClientToken(merchantId: merchant, customerId: "c_1", amount: amount, currency: currency, country: "NL",
                                allowedCardNetworks: [], expiresAt: Date().addingTimeInterval(3600),
                                paymentMethods: [AdvertisedPaymentMethod(id: "pm_card", type: .paymentCard)])
        return ClientSession(token: token, paymentMethods: token.paymentMethods)
    }

    /// Tokenizes a card and creates the payment under `key`; returns the response or the thrown error.
    func pay(key: String, number: String = Harness.visa, amount: Int = 1000, currency: String = "EUR",
             merchant: String = "m_1") async -> Result<PaymentResponse, any Error> {
        let session = Self.session(amount: amount, currency: currency, merchant: merchant)
        do {
            let token = try await router.tokenize(.card(CardDetails(number: number, cvv: "123", expiryMonth: 12, expiryYear: 2030,
                                                                    network: .visa)), session: session)
            return .success(try await router.createPayment(CreatePaymentRequest(token: token, session: session, idempotencyKey: key)))
        } catch {
            return .failure(error)
        }
    }

    var totalCharges: Int { sandboxes.values.reduce(0) { $0 + $1.chargeCount } }
}
