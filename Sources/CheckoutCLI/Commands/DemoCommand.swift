import CheckoutDemo
import CheckoutKit
import Dispatch
import Foundation

/// `checkout demo`: the README's first command.
enum DemoCommand: DeclaredCommand {
    static let spec = CommandSpec(
        name: "demo",
        summary: "Run the whole product end to end on the embedded defaults (seconds)",
        usage: "USAGE: checkout demo [--verbose] [--config-dir DIR]",
        about: """
            Starts a vault server on a free loopback port with a temporary SQLite database, a local vault
            that syncs with it over HTTP, and sandbox checkout sessions; then shows the payment-method list
            laid out with the theme tokens, pays by card, with a declined card and a retry, by redirect, and
            with the saved card (CVV recapture), goes offline, changes the vault, and shows the sync
            converging when the server is back. Exits 0 when every step passed, 1 naming the failed step.
            """,
        options: [
            .flag("--verbose", help: "also print state snapshots"),
            ConfigLocation.option,
        ])

    static func run(_ arguments: inout ParsedCommandLine, output: Output) async throws -> Int32 {
        let verbose = arguments.flag("--verbose")
        let defaults = try ConfigLocation.defaults(arguments)
        try arguments.finish()
        let configDirectory: URL? = if case .directory(let directory) = defaults.source { directory } else { nil }
        let runner = DemoRunner(options: .init(verbose: verbose, color: output.colorEnabled,
                                               configDirectory: configDirectory),
                                write: { output.line($0) })
        // Ctrl-C: stop the embedded server and remove nothing half-way; the process then exits 130.
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        interrupt.setEventHandler {
            runner.emergencyStop()
            output.error("interrupted: the embedded vault server was stopped")
            exit(130)
        }
        interrupt.resume()
        defer { interrupt.cancel() }
        do {
            try await runner.run()
            return 0
        } catch {
            output.error("demo failed: \(error)")
            return 1
        }
    }
}
