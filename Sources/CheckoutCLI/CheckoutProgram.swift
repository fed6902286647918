/// `checkout`'s whole command line, in-process: picks the command, prints help, runs it and maps
/// errors to exit codes. The executable is `exit(await CheckoutProgram.run(arguments, output: .process()))`;
/// tests call it with captured sinks.
public enum CheckoutProgram {
    /// Runs `checkout WORDS...` and returns its exit code: 0 ok, 1 the operation failed, 2 the
    /// command line is wrong (help on request is 0).
    /// - Parameter words: the words after `checkout`.
    public static func run(_ words: [String], output: Output) async -> Int32 {
        var words = words
        guard let name = words.first, !name.hasPrefix("-") else {
            if words.contains("--help") || words.contains("-h") {
                output.line(topLevelHelp)
                return 0
            }
            output.error(topLevelHelp)
            return 2
        }
        words.removeFirst()
        guard var command = CommandList.all.first(where: { $0.name == name }) else {
            output.error("error: unknown command '\(PrintedTextRedactor.redact(name))'\n\n\(topLevelHelp)")
            return 2
        }
        // `vault sync ...`: the word right after the name picks a declared subcommand.
        while let word = words.first, let subcommand = command.subcommand(word) {
            words.removeFirst()
            command = subcommand
        }
        if words.contains("--help") || words.contains("-h") {
            output.line(command.help(for: words))
            return 0
        }
        return await execute(command, name: name, words: words, output: output)
    }

    /// `checkout --help`: every command with its summary, in `CommandList` order.
    static var topLevelHelp: String {
        """
        checkout: the CheckoutKit command line.

        USAGE: checkout <command> [options]

        COMMANDS:
        \(CommandList.all.map { "  " + $0.name.padding(toLength: 12, withPad: " ", startingAt: 0) + $0.summary }
            .joined(separator: "\n"))

        Run `checkout <command> --help` for a command's options.
        Exit codes: 0 ok, 1 the operation failed (the message says why), 2 the command line is wrong.
        """
    }

    /// Runs the command and maps errors to exit codes (1 domain failure, 2 usage error).
    private static func execute(_ command: any CLICommand.Type, name: String, words: [String], output: Output) async -> Int32 {
        var arguments = Arguments(words)
        do {
            return try await command.run(&arguments, output: output)
        } catch let error as UsageError {
            output.error("error: \(PrintedTextRedactor.redact(error.message))\nRun `checkout \(name) --help` for usage.")
            return 2
        } catch let error as CommandFailure {
            output.error("error: \(PrintedTextRedactor.redact(error.message))")
            return 1
        } catch {
            output.error("error: \(PrintedTextRedactor.redact(String(describing: error)))")
            return 1
        }
    }
}
