import CheckoutCore
import CheckoutOrchestration
import Foundation

// A child process the crash test SIGKILLs in the middle of attempts.
//
// USAGE: orchestration-crash-child LEDGER JOURNAL-DIR RUN COUNT [ROUTING-FILE]
//
// Pays COUNT card payments (stable keys `RUN-0`, `RUN-1`, ...) through a router over two sandbox
// processors whose payments are journalled in JOURNAL-DIR (so the parent can reconcile against
// them after the kill). psp-a charges, times out after charging, or fails in turn; psp-b charges.
// With ROUTING-FILE, the router's processors are that file's instead (built by `ProcessorFactory`,
// e.g. `kind: "http"` processors in `sandbox-psp` processes that outlive the child), and
// JOURNAL-DIR is unused.
// Each processor call is followed by a short pause before its answer reaches the router: the
// window in which a kill leaves an attempt charged but not settled in the ledger. Prints
// `started KEY` before each payment and `done KEY STATE` after it.

/// Holds a processor's answer back for a moment, so kills land between the charge and the ledger.
final class SlowAnswers: RoutableProcessor {
    let inner: any RoutableProcessor
    var name: String { inner.name }
    var declineTable: DeclineTable { inner.declineTable }
    init(_ inner: any RoutableProcessor) { self.inner = inner }

    private func pause() async { try? await Task.sleep(for: .milliseconds(2)) }

    func clientSession(for token: ClientToken) async throws -> ClientSession { try await inner.clientSession(for: token) }
    func tokenize(_ request: TokenizationRequest, session: ClientSession) async throws -> PaymentMethodToken {
        try await inner.tokenize(request, session: session)
    }
    func createPayment(_ request: CreatePaymentRequest) async throws -> PaymentResponse { try await inner.createPayment(request) }
    func createAttempt(_ request: AttemptRequest) async throws -> PaymentResponse {
        let result: Result<PaymentResponse, any Error>
        do { result = .success(try await inner.createAttempt(request)) } catch { result = .failure(error) }
        await pause()
        return try result.get()
    }
    func resumePayment(paymentId: String, resumeToken: String) async throws -> PaymentResponse {
        try await inner.resumePayment(paymentId: paymentId, resumeToken: resumeToken)
    }
    func paymentStatus(paymentId: String) async throws -> PaymentResponse { try await inner.paymentStatus(paymentId: paymentId) }
    func exchangeVaulted(_ request: VaultedExchangeRequest, session: ClientSession) async throws -> PaymentMethodToken {
        try await inner.exchangeVaulted(request, session: session)
    }
    func attemptStatus(idempotencyKey: String) async throws -> AttemptLookup { try await inner.attemptStatus(idempotencyKey: idempotencyKey) }
}

/// The routing file of the child and of the parent's reconcile.
let crashRouting = """
    { "processors": [ { "name": "psp-a", "kind": "sandbox",
                        "behaviour": { "createPayment": ["succeed", "timeout-after-charge", "processor-error", "succeed",
                                                         "network-error", "timeout-after-charge"] } },
                      { "name": "psp-b", "kind": "sandbox" } ],
      "routes": [ { "name": "all", "processors": ["psp-a", "psp-b"], "fallbackOn": ["processor-error", "network-error"] } ],
      "breaker": { "consecutiveFailures": 0, "failureRate": 0, "window": 1, "coolDownSeconds": 1 } }
    """

/// One line on stdout, written at once (no buffer to lose in the kill).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let arguments = CommandLine.arguments
guard arguments.count == 5 || arguments.count == 6, let count = Int(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: orchestration-crash-child LEDGER JOURNAL-DIR RUN COUNT [ROUTING-FILE]\n".utf8))
    exit(2)
}
let ledgerPath = arguments[1], journalDirectory = arguments[2], run = arguments[3]
do {
    var processors: [String: any RoutableProcessor] = [:]
    let file: RoutingFile
    if arguments.count == 6 {
        file = try RoutingFileLoader.load(contentsOf: URL(fileURLWithPath: arguments[5]))
        processors = try ProcessorFactory().makeAll(file).mapValues { SlowAnswers($0) }
    } else {
        file = try RoutingFileLoader.load(Array(crashRouting.utf8))
        for definition in file.processors {
            let journal = try SandboxJournal(path: journalDirectory + "/\(definition.name).sqlite")
            processors[definition.name] = SlowAnswers(try ScriptedSandboxProcessor(name: definition.name, behaviour: definition.behaviour,
                                                                                  journal: journal))
        }
    }
    let ledger = try PaymentLedger.sqlite(path: ledgerPath)
    let router = try PaymentRouter(file: file, processors: processors, ledger: ledger)
    let token = ClientToken(merchantId: "m", customerId: "c", amount: 1000, currency: "EUR", country: "NL", allowedCardNetworks: [],
                            expiresAt: WallClock.system.now.addingTimeInterval(3600),
                            paymentMethods: [AdvertisedPaymentMethod(id: "pm", type: .paymentCard)])
    let session = ClientSession(token: token, paymentMethods: token.paymentMethods)
    for index in 0..<count {
        let key = "\(run)-\(index)"
        say("started \(key)")
        let card = CardDetails(number: "4242424242424242", cvv: "123", expiryMonth: 12, expiryYear: 2030, network: .visa)
        let paymentToken = try await router.tokenize(.card(card), session: session)
        let state: String
        do {
            _ = try await router.createPayment(CreatePaymentRequest(token: paymentToken, session: session, idempotencyKey: key))
            state = try await ledger.intent(stableKey: key)?.state.rawValue ?? "missing"
        } catch {
            state = "error"
        }
        say("done \(key) \(state)")
    }
} catch {
    FileHandle.standardError.write(Data("orchestration-crash-child: \(error)\n".utf8))
    exit(1)
}
