import CheckoutKit
import Foundation

/// Sessions: time to ready with 50 registered methods; memory per idle ready session (50 methods,
/// and the standard configuration through the real plugins); select + validate + pay in the
/// sandbox per second on all cores; 10,000 concurrent sessions in one process.
enum SessionBench {
    struct BenchHandler: PaymentMethodHandler {
        let type: PaymentMethodType
        var display: PaymentMethodDisplay { PaymentMethodDisplay(name: type.rawValue) }
        func makeSteps(context: PaymentFlowContext) -> BenchSteps { BenchSteps() }
    }

    /// Steps that never pay: the session figures measure sessions, not payments.
    struct BenchSteps: PaymentSteps {
        func tokenize(_ attempt: PaymentStepAttempt) async throws -> PaymentTokenization {
            .invalidInput(CheckoutError(.invalidState, "benchmark flow"))
        }
    }

    /// Everything a session needs, built once and shared by every session.
    struct Setup: Sendable {
        let token: String
        let configuration: CheckoutConfiguration
        let registry: PaymentMethodRegistry
        let processor: SandboxProcessor
        let methodCount: Int

        func makeSession() -> CheckoutSession {
            CheckoutSession(clientToken: token, configuration: configuration, registry: registry, processor: processor)
        }
    }

    /// 50 registered methods with trivial handlers, all advertised.
    static func fiftyMethods() throws -> Setup {
        let types = (0..<50).map { PaymentMethodType("METHOD_\($0)") }
        let registry = PaymentMethodRegistry()
        for type in types { try registry.register(BenchHandler(type: type)) }
        let configuration = CheckoutConfiguration(paymentMethods: types.reversed().map { .init(type: $0) })
        let token = ClientToken(
            merchantId: "merchant_a", customerId: "customer_1", amount: 1000, currency: "EUR", country: "NL",
            allowedCardNetworks: [.visa], expiresAt: WallClock.system.now.addingTimeInterval(3600),
            paymentMethods: types.map { AdvertisedPaymentMethod(id: "pm_\($0.rawValue)", type: $0) }).encoded()
        return Setup(token: token, configuration: configuration, registry: registry, processor: SandboxProcessor(),
                     methodCount: 50)
    }

    /// `Config/checkout.json` through `CheckoutKit.standardRegistry` (the real plugins) and the
    /// sandbox token a merchant backend would mint for it.
    static func standard(_ options: BenchOptions) throws -> Setup {
        let defaults = try options.defaults()
        let processor = SandboxProcessor()
        let registry = try CheckoutKit.standardRegistry(cardNetworks: defaults.cardNetworks, binLookup: processor)
        let token = CheckoutKit.sandboxClientToken(configuration: defaults.configuration, lifetime: 24 * 3600).encoded()
        let enabled = defaults.configuration.paymentMethods.filter(\.enabled).count
        return Setup(token: token, configuration: defaults.configuration, registry: registry, processor: processor,
                     methodCount: enabled)
    }

    /// Starts `count` sessions one after the other and keeps them; returns them, the growth of
    /// RSS and of glibc's heap in bytes, and the seconds the starts took.
    static func idleSessions(_ setup: Setup, count: Int) async throws
        -> (sessions: [CheckoutSession], rss: Int, heap: Int, seconds: Double) {
        var sessions: [CheckoutSession] = []
        sessions.reserveCapacity(count)
        Measure.trimHeap()
        let rssBefore = Measure.rssBytes, heapBefore = Measure.heapInUse
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<count {
            let session = setup.makeSession()
            await session.start()
            guard session.phase == .ready, session.paymentMethods.count == setup.methodCount else {
                throw BenchFailure("sessions: a session did not become ready with \(setup.methodCount) methods "
                                   + "(\(session.paymentMethods.count) methods, \(session.diagnostics))")
            }
            sessions.append(session)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return (sessions, Measure.rssBytes - rssBefore, Measure.heapInUse - heapBefore, seconds)
    }

    /// What a shopper does in a ready session: select the card, type it, pay. Nil on success,
    /// else what went wrong.
    static func selectValidatePay(_ session: CheckoutSession) async -> String? {
        guard let selection = session.selection,
              let card = session.paymentMethods.first(where: { $0.type == .paymentCard }) else {
            return "no selection session or no card method"
        }
        selection.select(card)
        let form: CardFormSession
        do {
            form = try session.cardForm()
        } catch {
            return "cardForm: \(error)"
        }
        form.updateCardNumber("4242 4242 4242 4242")
        form.updateExpiryDate("12/34")
        form.updateCvv("123")
        form.updateCardholderName("Ada Lovelace")
        form.updateBillingField(.postalCode, "1011AB")
        form.updateBillingField(.countryCode, "NL")
        guard form.state.isValid else { return "the card form is invalid: \(form.state.fieldErrors)" }
        await form.settled()
        switch await form.submit() {
        case .succeeded: return nil
        case let other: return "payment ended in \(other)"
        }
    }

    static func run(_ options: BenchOptions) async throws -> [Figure] {
        var figures: [Figure] = []
        let fifty = try fiftyMethods()

        let standardSetup = try standard(options)

        // Start to ready: 50 methods, and the standard configuration.
        let count = options.scale(1_500, quick: 300)
        for (name, setup) in [("50_methods", fifty), ("standard", standardSetup)] {
            let (seconds, spread) = try await Measure.repeated(options.repeats) {
                try await Measure.seconds {
                    for _ in 0..<count {
                        let session = setup.makeSession()
                        await session.start()
                        guard session.phase == .ready, session.paymentMethods.count == setup.methodCount else {
                            throw BenchFailure("sessions: a benchmark session did not become ready")
                        }
                    }
                }
            }
            let rate = Double(count) / seconds
            let judged = name == "50_methods"
            figures.append(Figure(name: "session.start_to_ready_\(name)", value: rate,
                                  unit: "sessions/s", spread: spread,
                                  target: judged ? ">= 5,000/s" : nil, targetMet: judged ? rate >= 5_000 : nil,
                                  note: "\(setup.methodCount) methods; one task, sequential; latency "
                                      + "\(Figure.format(seconds / Double(count) * 1e6)) µs"))
        }

        // Memory per idle ready session: start N, keep them alive, divide the RSS growth.
        let idle = options.scale(10_000, quick: 800)
        for (name, setup) in [("standard", standardSetup), ("50_methods", fifty)] {
            let (sessions, rss, heap, _) = try await idleSessions(setup, count: idle)
            let perSession = Double(rss) / Double(idle) / 1024
            figures.append(Figure(
                name: "session.idle_ready_memory_\(name)", value: perSession, unit: "KB/session",
                target: "< 16 KB", targetMet: perSession < 16,
                note: "RSS growth over \(idle) ready sessions (\(setup.methodCount) methods); heap growth "
                    + "\(Figure.format(Double(heap) / Double(idle) / 1024)) KB/session"))
            withExtendedLifetime(sessions) {}
        }

        // Select + validate + pay, many concurrent tasks on all cores, sessions started beforehand.
        let payments = options.scale(5_000, quick: 1_000)
        var paySamples: [Double] = []
        for _ in 0..<(options.quick ? 1 : 2) {
            let (ready, _, _, _) = try await idleSessions(standardSetup, count: payments)
            let start = DispatchTime.now().uptimeNanoseconds
            let failures = await withTaskGroup(of: String?.self) { group -> [String] in
                for session in ready { group.addTask { await selectValidatePay(session) } }
                var failures: [String] = []
                for await failure in group { if let failure { failures.append(failure) } }
                return failures
            }
            paySamples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            if let first = failures.first {
                throw BenchFailure("sessions: \(failures.count) of \(payments) payments failed, e.g. \(first)")
            }
        }
        let pay = Measure.summarize(paySamples)
        figures.append(Figure(
            name: "session.select_validate_pay", value: Double(payments) / pay.median, unit: "payments/s",
            spread: pay.spread,
            note: "\(payments) concurrent tasks on \(ProcessInfo.processInfo.activeProcessorCount) cores: select card, "
                + "fill the card form (card plugin), submit to SandboxProcessor; sessions started beforehand"))

        // 10,000 concurrent sessions: start, select, validate and pay all at once, count errors.
        let concurrent = options.scale(10_000, quick: 800)
        Measure.trimHeap()
        let rssBefore = Measure.rssBytes
        let concurrentStart = DispatchTime.now().uptimeNanoseconds
        let (errors, alive) = await withTaskGroup(of: (String?, CheckoutSession).self) { group -> ([String], [CheckoutSession]) in
            for _ in 0..<concurrent {
                group.addTask {
                    let session = standardSetup.makeSession()
                    await session.start()
                    guard session.phase == .ready else { return ("a session did not become ready", session) }
                    return (await selectValidatePay(session), session)
                }
            }
            var errors: [String] = []
            var alive: [CheckoutSession] = []
            alive.reserveCapacity(concurrent)
            for await (error, session) in group {
                if let error { errors.append(error) }
                alive.append(session)
            }
            return (errors, alive)
        }
        let concurrentSeconds = Double(DispatchTime.now().uptimeNanoseconds - concurrentStart) / 1e9
        let rssGrowth = Measure.rssBytes - rssBefore
        figures.append(Figure(
            name: "session.concurrent_\(concurrent)_errors", value: Double(errors.count), unit: "errors",
            target: "0 errors with 10,000 sessions", targetMet: concurrent >= 10_000 ? errors.isEmpty : nil,
            note: "\(concurrent) sessions started, paid and held at once in \(Figure.format(concurrentSeconds)) s; "
                + "RSS growth \(rssGrowth / 1_048_576) MiB" + (errors.first.map { "; first error: \($0)" } ?? "")))
        withExtendedLifetime(alive) {}
        return figures
    }
}
