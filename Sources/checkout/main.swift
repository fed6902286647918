import Foundation

/// Every subcommand, in the order `checkout --help` lists them.
let commands = CommandList.all

let topLevelHelp = """
checkout: the CheckoutKit command line.

USAGE: checkout <command> [options]

COMMANDS:
\(commands.map { "  " + $0.name.padding(toLength: 12, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n"))

Run `checkout <command> --help` for a command's options.
Exit codes: 0 ok, 1 the operation failed (the message says why), 2 the command line is wrong.
"""

let output = Output()
var words = Array(CommandLine.arguments.dropFirst())

guard let name = words.first, !name.hasPrefix("-") else {
    if words.contains("--help") || words.contains("-h") {
        output.line(topLevelHelp)
        exit(0)
    }
    output.error(topLevelHelp)
    exit(2)
}
words.removeFirst()

guard let command = commands.first(where: { $0.name == name }) else {
    output.error("error: unknown command '\(PaymentDataRedactorBridge.redact(name))'\n\n\(topLevelHelp)")
    exit(2)
}

if words.contains("--help") || words.contains("-h") {
    output.line(command.help(for: words))
    exit(0)
}

/// Runs the command and maps errors to exit codes (1 domain failure, 2 usage error).
func execute(_ command: any CLICommand.Type, name: String, words: [String], output: Output) async -> Int32 {
    var arguments = Arguments(words)
    do {
        return try await command.run(&arguments, output: output)
    } catch let error as UsageError {
        output.error("error: \(PaymentDataRedactorBridge.redact(error.message))\nRun `checkout \(name) --help` for usage.")
        return 2
    } catch let error as CommandFailure {
        output.error("error: \(PaymentDataRedactorBridge.redact(error.message))")
        return 1
    } catch {
        output.error("error: \(PaymentDataRedactorBridge.redact(String(describing: error)))")
        return 1
    }
}

exit(await execute(command, name: name, words: words, output: output))
