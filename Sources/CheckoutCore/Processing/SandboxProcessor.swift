import CheckoutLocking
import Foundation

/// A deterministic, in-process payments backend for development, tests and the demo.
///
/// It never keeps a card number or CVV: `tokenize` decides the card's sandbox behaviour from its
/// number at once and stores only the token, the masked data and that behaviour.
///
/// ## Magic inputs
/// | input | behaviour |
/// |---|---|
/// | card `4000 0000 0000 0002` | declined |
/// | card `4000 0000 0000 3220` | needs a 3-D Secure challenge; resume with `challenge-success` or anything else to fail |
/// | card `4000 0000 0000 0119` | the create-payment call fails with a network error every time |
/// | card `4000 0000 0000 9995` | the first create-payment call fails with a network error, a retry succeeds |
/// | any other Luhn-valid card | succeeds |
/// | redirect, amount ending in `01` (e.g. 1001) | the redirect returns with `status=failed` |
/// | redirect, amount ending in `02` | the provider never returns (stays pending: poll times out) |
/// | redirect, any other amount | the redirect returns with `status=success` |
/// | vaulted card, CVV `000` | declined |
/// | vault-only save (`verifyInstrument`), card `4000 0000 0000 0002` | verification declined, nothing vaulted |
/// | vault-only save, CVV `000` | verification declined (CVV check failed) |
/// | vault-only save, card `4000 0000 0000 3220` | verification requires a challenge; `resumeVerification` with `challenge-success` verifies and vaults, anything else declines |
/// | vault-only save, card `4000 0000 0000 0119` | the verification call fails with a network error |
/// | vaulted card saved by a sandbox payment | behaves as the card it was saved from: a saved `4000 0000 0000 3220` needs the challenge again, so a saved card that needs 3-D Secure can be tested end to end |
/// | `vaultOnSuccess` | the card is saved whenever the payment succeeds: at creation, after a challenge is resumed, or when a poll finds it succeeded |
/// | BIN `40355010` | co-badged CARTES_BANCAIRES + VISA (FR) |
/// | BIN `51310500` | co-badged CARTES_BANCAIRES + MASTERCARD (FR) |
/// | BIN `52000000` | co-badged EFTPOS + MASTERCARD (AU) |
public final class SandboxProcessor: PaymentProcessor, BinLookup {
    /// The host redirect URLs point at.
    public static let redirectHost = "sandbox.checkoutkit.invalid"
    /// The return URL the sandbox sends shoppers back to.
    public static let returnURLBase = "checkoutkit://payment-return"

    private enum Behaviour: Sendable, Equatable {
        case succeed, decline, challenge, networkError, networkErrorOnce, redirect
    }

    private struct TokenRecord: Sendable {
        var type: PaymentMethodType
        var behaviour: Behaviour
        var instrumentType: PaymentInstrumentType
        var data: PaymentInstrumentData?
        /// The CVV given at tokenization failed the sandbox's check (`000`); the CVV itself is not kept.
        var cvvRejected = false
    }

    private struct Payment: Sendable {
        var id: String
        var token: String
        var status: PaymentResponse.Status
        var pendingAction: RequiredAction?
        var resumeSecret: String?
        var vaultedToken: String?
        var reason: String?
        /// The card to save once the payment succeeds, when vaulting was asked for.
        var toVault: TokenRecord?
    }

    private struct Storage: Sendable {
        var counter = 0
        var tokens: [String: TokenRecord] = [:]
        var payments: [String: Payment] = [:]
        var paymentsByKey: [String: String] = [:]
        var vaulted: [String: TokenRecord] = [:]
        var createCalls = 0
        var failedOnce: Set<String> = []
        var verificationsByKey: [String: InstrumentVerification] = [:]
        var verifyCalls = 0
        /// Verifications waiting for their 3-D Secure challenge: verification id -> the card to vault.
        var pendingVerifications: [String: TokenRecord] = [:]
    }

    private let storage = Locked(Storage())
    /// Co-badged BIN table: first 8 digits -> networks (most specific first) and issuer country.
    private let binTable: [String: BinData]

    /// Creates a sandbox with the documented magic inputs.
    public init() {
        binTable = [
            "40355010": BinData(networks: [.cartesBancaires, .visa], issuerCountry: "FR", accountFundingType: "DEBIT"),
            "51310500": BinData(networks: [.cartesBancaires, .mastercard], issuerCountry: "FR", accountFundingType: "DEBIT"),
            "52000000": BinData(networks: [.eftpos, .mastercard], issuerCountry: "AU", accountFundingType: "DEBIT"),
        ]
    }

    /// How many create-payment calls reached the sandbox (for tests of idempotency and retries).
    public var createPaymentCallCount: Int { storage.withLock { $0.createCalls } }

    /// How many distinct payments exist (an idempotent retry does not add one).
    public var paymentCount: Int { storage.withLock { $0.payments.count } }

    // MARK: PaymentProcessor

    public func clientSession(for token: ClientToken) async throws -> ClientSession {
        ClientSession(token: token, paymentMethods: token.paymentMethods)
    }

    public func tokenize(_ request: TokenizationRequest, session: ClientSession) async throws -> PaymentMethodToken {
        switch request {
        case .card(let card):
            try card.requireTokenizableNumber()
            let behaviour: Behaviour = switch card.number {
            case "4000000000000002": .decline
            case "4000000000003220": .challenge
            case "4000000000000119": .networkError
            case "4000000000009995": .networkErrorOnce
            default: .succeed
            }
            let data = PaymentInstrumentData(network: card.network, first6Digits: card.first6, last4Digits: card.last4,
                                             expirationMonth: card.expiryMonth, expirationYear: card.expiryYear,
                                             cardholderName: card.cardholderName)
            return issue(TokenRecord(type: .paymentCard, behaviour: behaviour, instrumentType: .paymentCard, data: data,
                                     cvvRejected: card.cvv == "000"))
        case .redirect(let type):
            return issue(TokenRecord(type: type, behaviour: .redirect, instrumentType: .other, data: nil))
        case .wallet(let type, let walletToken):
            guard !walletToken.isEmpty else { throw CheckoutError(.invalidPaymentData, "the wallet token is empty") }
            return issue(TokenRecord(type: type, behaviour: .succeed, instrumentType: .other, data: nil))
        }
    }

    public func createPayment(_ request: CreatePaymentRequest) async throws -> PaymentResponse {
        try storage.withLock { storage in
            storage.createCalls += 1
            if let key = request.idempotencyKey, let existing = storage.paymentsByKey[key],
               let payment = storage.payments[existing] {
                return Self.response(payment)
            }
            guard let record = storage.tokens[request.token.token] else {
                throw CheckoutError(.paymentFailed, "unknown or used payment-method token")
            }
            switch record.behaviour {
            case .networkError:
                throw CheckoutError(.networkError, "sandbox: simulated network error")
            case .networkErrorOnce where !storage.failedOnce.contains(request.token.token):
                storage.failedOnce.insert(request.token.token)
                throw CheckoutError(.networkError, "sandbox: simulated network error")
            default:
                break
            }
            storage.tokens.removeValue(forKey: request.token.token)
            storage.counter += 1
            let id = "pay_\(storage.counter)"
            var payment = Payment(id: id, token: request.token.token, status: .succeeded)
            let lastTwo = request.session.token.amount % 100
            switch record.behaviour {
            case .decline:
                payment.status = .declined
                payment.reason = "Do not honor"
            case .challenge:
                payment.status = .pending
                payment.pendingAction = .challenge(challengeId: "ch_\(storage.counter)")
            case .redirect:
                let secret = "rs_\(storage.counter)_\(lastTwo)"
                payment.status = .pending
                payment.resumeSecret = secret
                var redirectComponents = URLComponents()
                redirectComponents.scheme = "https"
                redirectComponents.host = Self.redirectHost
                redirectComponents.path = "/redirect/\(id)"
                redirectComponents.queryItems = [URLQueryItem(name: "method", value: request.token.paymentMethodType.rawValue)]
                guard let returnURL = URL(string: "\(Self.returnURLBase)?paymentId=\(id)"),
                      let redirect = redirectComponents.url else {
                    throw CheckoutError(.paymentFailed, "sandbox: cannot build the redirect URL")
                }
                payment.pendingAction = .redirect(url: redirect, returnURL: returnURL)
            default:
                break
            }
            if request.vaultOnSuccess, record.instrumentType == .paymentCard {
                payment.toVault = record
            }
            Self.vaultIfSucceeded(&payment, in: &storage)
            storage.payments[id] = payment
            if let key = request.idempotencyKey { storage.paymentsByKey[key] = id }
            return Self.response(payment)
        }
    }

    public func resumePayment(paymentId: String, resumeToken: String) async throws -> PaymentResponse {
        try storage.withLock { storage in
            guard var payment = storage.payments[paymentId] else {
                throw CheckoutError(.invalidReturn, "unknown payment")
            }
            guard payment.status == .pending else {
                throw CheckoutError(.invalidReturn, "the payment is no longer pending")
            }
            switch payment.pendingAction {
            case .challenge:
                payment.status = resumeToken == "challenge-success" ? .succeeded : .failed
                payment.reason = payment.status == .failed ? "3-D Secure authentication failed" : nil
            case .redirect:
                guard let secret = payment.resumeSecret, resumeToken == secret else {
                    throw CheckoutError(.invalidReturn, "the return does not belong to this payment")
                }
                payment.status = secret.hasSuffix("_1") ? .failed : .succeeded
                payment.reason = payment.status == .failed ? "The shopper did not authorise the payment" : nil
            case nil:
                throw CheckoutError(.invalidReturn, "the payment has no pending action")
            }
            payment.pendingAction = nil
            Self.vaultIfSucceeded(&payment, in: &storage)
            storage.payments[paymentId] = payment
            return Self.response(payment)
        }
    }

    public func paymentStatus(paymentId: String) async throws -> PaymentResponse {
        try storage.withLock { storage in
            guard let payment = storage.payments[paymentId] else {
                throw CheckoutError(.paymentFailed, "unknown payment")
            }
            return Self.response(payment)
        }
    }

    public func exchangeVaulted(_ request: VaultedExchangeRequest, session: ClientSession) async throws -> PaymentMethodToken {
        let record = storage.withLock { $0.vaulted[request.vaultedToken] }
        let data = record?.data
        // A card saved by a sandbox payment keeps the behaviour of the card it was saved from;
        // instruments saved by another component (e.g. a synced vault) are accepted as cards.
        let behaviour: Behaviour = request.cvv?.digits == "000" ? .decline : record?.behaviour ?? .succeed
        return issue(TokenRecord(type: .vaulted, behaviour: behaviour, instrumentType: .paymentCard, data: data))
    }

    /// How many verification calls reached the sandbox.
    public var verifyCallCount: Int { storage.withLock { $0.verifyCalls } }

    /// A zero-amount authorisation: the card's magic behaviour decides the answer (see the table);
    /// a verified card is vaulted and `exchangeVaulted` knows it afterwards.
    public func verifyInstrument(_ request: VerificationRequest) async throws -> InstrumentVerification {
        try storage.withLock { storage in
            storage.verifyCalls += 1
            if let key = request.idempotencyKey, let earlier = storage.verificationsByKey[key] { return earlier }
            guard let record = storage.tokens[request.token.token], record.instrumentType == .paymentCard else {
                throw CheckoutError(.paymentFailed, "unknown or used card token")
            }
            if record.behaviour == .networkError {
                throw CheckoutError(.networkError, "sandbox: simulated network error")
            }
            storage.tokens.removeValue(forKey: request.token.token)
            storage.counter += 1
            let id = "ver_\(storage.counter)"
            let answer: InstrumentVerification
            if record.behaviour == .decline {
                answer = InstrumentVerification(verificationId: id, status: .declined, reason: "Do not honor")
            } else if record.cvvRejected {
                answer = InstrumentVerification(verificationId: id, status: .declined, reason: "CVV check failed")
            } else if record.behaviour == .challenge {
                storage.pendingVerifications[id] = record
                answer = InstrumentVerification(verificationId: id, status: .requiresAction,
                                                requiredAction: .challenge(challengeId: "ch_\(storage.counter)"))
            } else {
                answer = Self.vault(record, verificationId: id, in: &storage)
            }
            if let key = request.idempotencyKey { storage.verificationsByKey[key] = answer }
            return answer
        }
    }

    /// Completes a verification that asked for a challenge: `challenge-success` verifies and vaults
    /// the card, anything else declines it (nothing vaulted). A verification resumes once.
    public func resumeVerification(verificationId: String, resumeToken: String) async throws -> InstrumentVerification {
        try storage.withLock { storage in
            storage.verifyCalls += 1
            guard let record = storage.pendingVerifications.removeValue(forKey: verificationId) else {
                throw CheckoutError(.paymentFailed, "no verification \(verificationId) is waiting for a challenge")
            }
            guard resumeToken == "challenge-success" else {
                return InstrumentVerification(verificationId: verificationId, status: .declined,
                                              reason: "3-D Secure challenge failed")
            }
            return Self.vault(record, verificationId: verificationId, in: &storage)
        }
    }

    /// Vaults a verified card under a new token and says so.
    private static func vault(_ record: TokenRecord, verificationId: String, in storage: inout Storage) -> InstrumentVerification {
        // Random, not counted: vault tokens outlive this in-process sandbox (the CLI saves them).
        let vaultedToken = SafeIdentifier.random(prefix: "vt_")
        storage.vaulted[vaultedToken] = TokenRecord(type: .paymentCard, behaviour: .succeed,
                                                    instrumentType: .paymentCard, data: record.data)
        return InstrumentVerification(verificationId: verificationId, status: .verified, vaultedToken: vaultedToken)
    }

    // MARK: BinLookup

    public func lookup(bin: String) async throws -> BinData {
        binTable[String(bin.prefix(8))] ?? BinData(networks: [])
    }

    // MARK: Redirect simulation

    /// What the shopper's browser would do at a sandbox redirect URL: the return URL the
    /// provider sends them back to, or nil when this payment's provider never returns.
    public func simulateRedirect(_ url: URL) -> URL? {
        guard url.host == Self.redirectHost, url.pathComponents.count >= 3 else { return nil }
        let id = url.pathComponents[2]
        return storage.withLock { storage in
            guard let payment = storage.payments[id], let secret = payment.resumeSecret else { return nil }
            if secret.hasSuffix("_2") { return nil }
            let status = secret.hasSuffix("_1") ? "failed" : "success"
            return URL(string: "\(Self.returnURLBase)?paymentId=\(id)&status=\(status)&resumeToken=\(secret)")
        }
    }

    /// Registers a saved instrument with the sandbox so `exchangeVaulted` knows its masked data.
    public func registerVaulted(token: String, data: PaymentInstrumentData) {
        storage.withLock { storage in
            storage.vaulted[token] = TokenRecord(type: .paymentCard, behaviour: .succeed, instrumentType: .paymentCard,
                                                 data: data)
        }
    }

    /// Saves the card of a payment that asked for vaulting, once it has succeeded (once only).
    private static func vaultIfSucceeded(_ payment: inout Payment, in storage: inout Storage) {
        guard payment.status == .succeeded, payment.vaultedToken == nil, let record = payment.toVault else { return }
        storage.counter += 1
        let vaultedToken = "vt_\(storage.counter)"
        storage.vaulted[vaultedToken] = TokenRecord(type: .paymentCard, behaviour: record.behaviour,
                                                    instrumentType: .paymentCard, data: record.data)
        payment.vaultedToken = vaultedToken
        payment.toVault = nil
    }

    private func issue(_ record: TokenRecord) -> PaymentMethodToken {
        storage.withLock { storage in
            storage.counter += 1
            let token = "tok_\(storage.counter)"
            storage.tokens[token] = record
            return PaymentMethodToken(token: token, paymentMethodType: record.type, instrumentType: record.instrumentType,
                                      instrumentData: record.data)
        }
    }

    private static func response(_ payment: Payment) -> PaymentResponse {
        PaymentResponse(paymentId: payment.id, status: payment.status, requiredAction: payment.pendingAction,
                        reason: payment.reason, vaultedToken: payment.vaultedToken)
    }
}
