/// A command whose options are declared in a `CommandSpec`: its name, summary and help come from
/// the spec, and `run` receives the command line already parsed by it.
protocol DeclaredCommand: CLICommand {
    /// The declaration: options, usage, description.
    static var spec: CommandSpec { get }
    /// Runs on the parsed command line; returns the exit code. Call `parsed.finish()` once every
    /// positional word has been read.
    static func run(_ parsed: inout ParsedCommandLine, output: Output) async throws -> Int32
}

extension DeclaredCommand {
    static var name: String { spec.name }
    static var summary: String { spec.summary }
    static var help: String { spec.help }

    static func run(_ arguments: inout Arguments, output: Output) async throws -> Int32 {
        var parsed = try ParsedCommandLine(arguments.words, spec: spec)
        return try await run(&parsed, output: output)
    }
}
