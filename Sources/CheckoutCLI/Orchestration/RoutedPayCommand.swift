import CardPaymentMethod
import CheckoutCore
import CheckoutKit
import CheckoutOrchestration
import Foundation

/// `checkout pay --routing FILE --ledger DB [card options] --json`: one card payment through the
/// `PaymentRouter` over the routing file's processors, recorded in the ledger.
enum RoutedPayCommand {
    static let help = """
        USAGE: checkout pay --routing FILE --ledger DB --number N --expiry MM/YY --cvv C [--name S]
                            [--amount MINOR] [--currency CODE] [--country CODE] [--key KEY] [--seed N]
                            [--merchant K=V]... [--customer K=V]... [--challenge success|fail] [--json]

        Pays by card through the router: the first route of FILE whose conditions hold picks the
        processors; declines and failures fall back as the route's fallbackOn says (never after
        suspected-fraud or lost-or-stolen); every intent and attempt is written to the ledger DB.

        OPTIONS:
          \(OrchestrationSetup.routingHelp)
          \(OrchestrationSetup.ledgerHelp)
          --number, --expiry, --cvv, --name   The card (as for `checkout pay`; `-` reads from stdin).
          --amount MINOR      Amount in minor units (default 1000).
          --currency CODE     ISO 4217 currency (default EUR).
          --country CODE      Merchant country, metadata `merchant.country` (default NL).
          --key KEY           The payment's stable key (default: a new UUID). Paying again with the
                              same key never charges twice: it settles and reports the same payment.
          --seed N            Seed of the weighted pick (default 0).
          --merchant K=V      Merchant metadata for `when.merchant` (repeatable).
          --customer K=V      Customer metadata for `when.customer` (repeatable).
          --challenge R       How the shopper completes a 3-D Secure challenge: success (default) or fail.
          --json              Print {"route","outcome","paymentId","attempts":[{"processor","category",
                              "rawCode","status",...}],"error"} (outcome: succeeded, failed, unknown,
                              requires_action).

        EXIT CODES: 0 paid; 1 not paid (declined, failed, unknown), an invalid routing file (every
        error with its JSON path) or an unusable ledger; 2 usage error.
        """

    struct Request {
        var routing: String
        var ledger: String
        var card: CardOptions
        var amount: Int
        var currency: String
        var country: String
        var key: String
        var seed: UInt64
        var merchant: [String: String]
        var customer: [String: String]
        var challengeSucceeds: Bool
        var json: Bool
        var defaults: CheckoutDefaults
    }

    static func run(_ arguments: inout Arguments, output: Output) async throws -> Int32 {
        let request = try parse(&arguments)
        let file = try OrchestrationSetup.routing(request.routing, json: request.json, output: output)
        let ledger = try OrchestrationSetup.ledger(request.ledger)
        let router = try await OrchestrationSetup.router(file, ledger: ledger, seed: request.seed)
        let card = try cardDetails(request)
        let token = ClientToken(merchantId: "m_cli", customerId: "c_cli", amount: request.amount, currency: request.currency,
                                country: request.country, allowedCardNetworks: [], expiresAt: Date().addingTimeInterval(3600),
                                paymentMethods: [AdvertisedPaymentMethod(id: "pm_cli", type: .paymentCard)])
        let session = ClientSession(token: token, paymentMethods: token.paymentMethods)
        var failure: (any Error)?
        do {
            var response = try await payWithRetries(router, card: card, session: session, key: request.key)
            if response.status == .pending, case .challenge? = response.requiredAction {
                response = try await router.resumePayment(paymentId: response.paymentId,
                                                          resumeToken: request.challengeSucceeds ? "challenge-success" : "challenge-failed")
            }
        } catch {
            failure = error
        }
        let intent = try await ledger.intent(stableKey: request.key)
        try write(intent, failure: failure, json: request.json, output: output)
        return intent?.state == .succeeded ? 0 : 1
    }

    /// Creates the payment, retrying a network error with the same key as a session's pipeline does
    /// (the router then asks the same processor's status first).
    private static func payWithRetries(_ router: PaymentRouter, card: CardDetails, session: ClientSession, key: String) async throws
        -> PaymentResponse {
        let token = try await router.tokenize(.card(card), session: session)
        return try await router.createPayment(CreatePaymentRequest(token: token, session: session, idempotencyKey: key))
    }

    static func parse(_ arguments: inout Arguments) throws -> Request {
        let json = arguments.flag("--json")
        let routing = try arguments.required("--routing")
        let ledger = try arguments.required("--ledger")
        let card = try CardOptions.parse(&arguments)
        let amount = try arguments.integer("--amount", default: 1000, range: 0...100_000_000_000)
        let currency = try arguments.option("--currency") ?? "EUR"
        let country = try arguments.option("--country") ?? "NL"
        let key = try arguments.option("--key") ?? SafeIdentifier.random()
        let seedText = try arguments.option("--seed")
        let merchant = try OrchestrationSetup.metadata(try arguments.options("--merchant"), option: "--merchant")
        let customer = try OrchestrationSetup.metadata(try arguments.options("--customer"), option: "--customer")
        let challenge = try arguments.option("--challenge") ?? "success"
        if let method = try arguments.option("--method"), method != "PAYMENT_CARD" {
            throw UsageError(message: "pay --routing pays by card: --method must be PAYMENT_CARD")
        }
        let defaults = try ConfigLocation.defaults(&arguments)
        try arguments.finish()
        _ = try CommandSupport.currency(currency)
        try CommandSupport.checkCountry(country)
        guard !key.isEmpty, key.utf8.count <= 200 else { throw UsageError(message: "--key must be 1 to 200 characters") }
        var seed: UInt64 = 0
        if let seedText {
            guard let value = UInt64(seedText) else { throw UsageError(message: "--seed must be an unsigned integer") }
            seed = value
        }
        guard challenge == "success" || challenge == "fail" else {
            throw UsageError(message: "--challenge must be success or fail, got \(CommandSupport.quote(challenge))")
        }
        for (option, value) in [("--number", card.number), ("--expiry", card.expiry), ("--cvv", card.cvv)] where value == nil {
            throw UsageError(message: "pay --routing needs \(option)")
        }
        return Request(routing: routing, ledger: ledger, card: try card.readingStandardInput(), amount: amount, currency: currency,
                       country: country, key: key, seed: seed, merchant: merchant, customer: customer,
                       challengeSucceeds: challenge == "success", json: json, defaults: defaults)
    }

    /// The card, validated by the configuration's card rules (the number is never printed).
    private static func cardDetails(_ request: Request) throws -> CardDetails {
        let number = String((request.card.number ?? "").filter { $0 != " " && $0 != "-" })
        let validator = CardValidator(table: request.defaults.cardNetworks)
        let result = validator.validate(number: number, cvv: request.card.cvv, expiry: request.card.expiry,
                                        cardholderName: request.card.name)
        guard result.isValid, let expiry = result.expiry else {
            let codes = result.errors.map { "\($0.field.rawValue): \($0.code.rawValue)" }.joined(separator: ", ")
            throw CommandFailure(message: "the card is not valid (\(codes.isEmpty ? "expiry: invalid-expiry-date" : codes))")
        }
        return CardDetails(number: number, cvv: request.card.cvv ?? "", expiryMonth: expiry.month, expiryYear: expiry.year,
                           cardholderName: request.card.name, network: result.network)
    }

    private static func write(_ intent: IntentRecord?, failure: (any Error)?, json: Bool, output: Output) throws {
        let error: Any = failure.map { error -> Any in
            let checkout = error as? CheckoutError
            return ["code": checkout?.code.rawValue ?? "payment-failed",
                    "message": PaymentDataRedactor.redact(checkout?.message ?? String(describing: error))]
        } ?? NSNull()
        if json {
            try output.json([
                "route": CommandSupport.nullable(intent?.route), "outcome": intent?.state.rawValue ?? "failed",
                "paymentId": CommandSupport.nullable(intent?.id),
                "attempts": (intent?.attempts ?? []).map(OrchestrationSetup.attemptJSON), "error": error,
            ] as [String: Any])
            return
        }
        output.line("\(intent?.state.rawValue ?? "failed")  \(intent?.id ?? "-")  route \(intent?.route ?? "-")")
        for attempt in intent?.attempts ?? [] { output.line(OrchestrationSetup.attemptLine(attempt)) }
        if let failure { output.line("error: \(PaymentDataRedactor.redact(String(describing: failure)))") }
    }
}

extension PayCommand {
    /// `checkout pay --routing --help` shows the routed payment's help.
    static func help(for words: [String]) -> String {
        words.contains { $0 == "--routing" || $0.hasPrefix("--routing=") } ? RoutedPayCommand.help : help
    }
}
