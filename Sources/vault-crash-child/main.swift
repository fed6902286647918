// vault-crash-child: the process the reliability suite kills with SIGKILL.
//
//   vault-crash-child --db PATH --run N --count K [--server URL --api-key KEY]
//
// Writes to a local VaultStore in a loop and prints one line per committed write, flushed before
// the next write starts: `U <token>` after an upsert committed, `D <token>` after a delete
// committed, and with a server `S <pending>` after a sync round (`E` when the round failed).
// Tokens are `r<N>-<i>`: every run writes new tokens, so each is upserted at most once.
// Exit 2 on usage errors, 1 when the store cannot be opened.
//
//   vault-crash-child --db PATH --nested-call
//
// Saves one instrument, then calls the store from inside one of its own read closures (a listing
// inside `forEachInstrument`): SQLiteKit's nesting precondition must stop the process with its message.
import CheckoutCore
import CheckoutVault
import Foundation

/// The parsed command line.
struct ChildOptions {
    var database = ""
    var run = 0
    var count = 0
    var server: URL?
    var apiKey = ""
    var nestedCall = false
}

func usageFailure(_ message: String) -> Never {
    FileHandle.standardError.write(Data("vault-crash-child: \(message)\n".utf8))
    exit(2)
}

func parseOptions(_ arguments: [String]) -> ChildOptions {
    var options = ChildOptions()
    var iterator = arguments.makeIterator()
    func value(_ flag: String) -> String {
        guard let value = iterator.next() else { usageFailure("\(flag) needs a value") }
        return value
    }
    while let argument = iterator.next() {
        switch argument {
        case "--db": options.database = value(argument)
        case "--run": options.run = Int(value(argument)) ?? -1
        case "--count": options.count = Int(value(argument)) ?? -1
        case "--server": options.server = URL(string: value(argument))
        case "--api-key": options.apiKey = value(argument)
        case "--nested-call": options.nestedCall = true
        default: usageFailure("unknown argument '\(argument.prefix(40))'")
        }
    }
    guard !options.database.isEmpty, options.nestedCall || (options.run >= 0 && options.count > 0) else {
        usageFailure("usage: vault-crash-child --db PATH --run N --count K [--server URL --api-key KEY]")
    }
    return options
}

/// Writes one line to stdout without buffering, so the parent sees it before the next write.
func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// A masked card instrument (the crash test never stores anything else).
func instrument(_ token: String, index: Int) -> VaultedPaymentMethod {
    VaultedPaymentMethod(id: token, paymentMethodType: .paymentCard, paymentInstrumentType: .paymentCard,
                         paymentInstrumentData: PaymentInstrumentData(network: .visa, first6Digits: "424242",
                                                                     last4Digits: String(format: "%04d", index % 10_000),
                                                                     expirationMonth: 1 + index % 12, expirationYear: 2031,
                                                                     cardholderName: "Crash Test"),
                         analyticsId: "an-\(token)")
}

let options = parseOptions(Array(CommandLine.arguments.dropFirst()))
let scope = VaultScope(merchantId: "merchant_a", customerId: "crash-customer")
let store: VaultStore
do {
    store = try VaultStore(path: options.database)
} catch {
    FileHandle.standardError.write(Data("vault-crash-child: cannot open the store: \(error)\n".utf8))
    exit(1)
}
if options.nestedCall {
    do {
        try await store.upsert(instrument("nested-0", index: 0), scope: scope)
        try store.blocking.forEachInstrument { scope, _ in _ = try store.blocking.instruments(scope: scope) }
    } catch {
        FileHandle.standardError.write(Data("vault-crash-child: \(error)\n".utf8))
    }
    exit(0)
}

let engine = options.server.map { url in
    SyncEngine(store: store, remote: HTTPRemoteVault(baseURL: url, apiKey: options.apiKey, timeout: 10),
               configuration: .init(scopes: [scope], pushBatchSize: 7, interval: nil, retry: .noRetry))
}

for index in 0..<options.count {
    let token = "r\(options.run)-\(index)"
    do {
        try await store.upsert(instrument(token, index: index), scope: scope)
        report("U \(token)")
        if index % 5 == 4 {
            let victim = "r\(options.run)-\(index - 2)"
            if try await store.delete(token: victim, scope: scope) { report("D \(victim)") }
        }
    } catch {
        FileHandle.standardError.write(Data("vault-crash-child: write failed: \(error)\n".utf8))
        exit(1)
    }
    if let engine, index % 3 == 2 {
        do {
            let result = try await engine.syncNow(scope: scope)
            report("S \(result.pending)")
        } catch {
            report("E")
        }
    }
}
