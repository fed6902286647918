import Foundation

/// A usage error: the command line itself is wrong. Exit code 2.
struct UsageError: Error, Equatable, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// A domain failure that has already been explained to the user. Exit code 1.
struct CommandFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// One `checkout` subcommand: help text, and exit 0 (ok), 1 (domain failure) or 2 (usage error).
/// A command that declares its options conforms to `DeclaredCommand`, which derives all but `run`.
protocol CLICommand {
    /// The word after `checkout`, e.g. `theme`.
    static var name: String { get }
    /// One line for `checkout --help`.
    static var summary: String { get }
    /// The full help text for `checkout NAME --help`.
    static var help: String { get }
    /// Runs the command; returns the exit code. Throw `UsageError` for a bad command line.
    static func run(_ arguments: inout Arguments, output: Output) async throws -> Int32
    /// The help to show for `checkout NAME WORDS... --help`; a command whose help depends on an
    /// option (`pay --routing`) picks it from `words`.
    static func help(for words: [String]) -> String
    /// The commands reached by one more word after this one's name, each named `NAME WORD`
    /// (`vault sync`): `CheckoutProgram` routes that word there, with the rest of the command line,
    /// and shows that command's help for `NAME WORD --help`.
    static var subcommands: [any CLICommand.Type] { get }
}

extension CLICommand {
    /// The command's one help text, whatever the words.
    static func help(for words: [String]) -> String { help }
    /// None.
    static var subcommands: [any CLICommand.Type] { [] }

    /// The subcommand `word` names, if any.
    static func subcommand(_ word: String) -> (any CLICommand.Type)? {
        subcommands.first { $0.name == name + " " + word }
    }
}

/// The remaining command-line words of a command, consumed option by option.
///
/// Accepts `--name value` and `--name=value`. After all lookups, `finish()` rejects anything left over,
/// so a misspelt option is a usage error rather than silently ignored.
struct Arguments {
    private(set) var words: [String]

    init(_ words: [String]) { self.words = words }

    /// True (and consumed) when the flag is present.
    mutating func flag(_ name: String) -> Bool {
        guard let index = words.firstIndex(of: name) else { return false }
        words.remove(at: index)
        return true
    }

    /// The value of a single-valued option, or nil when absent.
    mutating func option(_ name: String) throws -> String? {
        let values = try options(name)
        guard values.count <= 1 else { throw UsageError(message: "\(name) may be given only once") }
        return values.first
    }

    /// Every value of a repeatable option, in order.
    mutating func options(_ name: String) throws -> [String] {
        var values: [String] = []
        var index = 0
        while index < words.count {
            let word = words[index]
            if word == name {
                guard index + 1 < words.count, !words[index + 1].hasPrefix("--") else {
                    throw UsageError(message: "\(name) needs a value")
                }
                values.append(words[index + 1])
                words.removeSubrange(index...(index + 1))
            } else if word.hasPrefix(name + "=") {
                values.append(String(word.dropFirst(name.count + 1)))
                words.remove(at: index)
            } else {
                index += 1
            }
        }
        return values
    }

    /// A required single-valued option.
    mutating func required(_ name: String) throws -> String {
        guard let value = try option(name) else { throw UsageError(message: "missing required option \(name)") }
        return value
    }

    /// An integer option with a default and an allowed range.
    mutating func integer(_ name: String, default defaultValue: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = try option(name) else { return defaultValue }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError(message: "\(name) must be an integer in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return value
    }

    /// The next positional word (not starting with `--`), consumed.
    mutating func positional() -> String? {
        guard let index = words.firstIndex(where: { !$0.hasPrefix("--") }) else { return nil }
        return words.remove(at: index)
    }

    /// Throws a usage error naming any word nobody consumed.
    func finish() throws {
        if let first = words.first {
            throw UsageError(message: "unexpected argument \(CommandSupport.quote(first))")
        }
    }
}
