/// One option (or positional argument) of a command, declared once: its parsing, its help row and
/// the "did you mean" suggestions are all derived from this value.
///
/// A flag has no `value`; a valued option names its value (`--number N|-`) and is read as
/// `--name value` or `--name=value`.
struct OptionSpec: Sendable {
    /// The word as typed, e.g. `--number` (or, for a positional argument, its name, e.g. `NAME`).
    let name: String
    /// The value's name in help (`N|-`), or nil for a flag.
    let value: String?
    /// The help text, one element per line (later lines are indented under the first).
    let help: [String]
    /// Whether the option may be given more than once (every value is kept, in order).
    var repeatable = false
    /// Whether the parse fails with "missing required option" when it is absent.
    var required = false
    /// The subcommands that take it; empty means every subcommand (or the command has none).
    var subcommands: [String] = []
    /// Checks a value as soon as it is read (before the options after it), or nil.
    var validate: (@Sendable (String) throws -> Void)? = nil

    /// A flag: present or not.
    static func flag(_ name: String, help: String...) -> OptionSpec {
        OptionSpec(name: name, value: nil, help: help)
    }

    /// An option with a value.
    static func valued(_ name: String, _ value: String, help: String...) -> OptionSpec {
        OptionSpec(name: name, value: value, help: help)
    }

    /// True for a flag.
    var isFlag: Bool { value == nil }

    /// The left column of its help row: `--number N|-`.
    var label: String { value.map { "\(name) \($0)" } ?? name }

    /// `--help` / `-h`, for the commands whose help lists it (the dispatcher handles it before parsing).
    static let showHelp = OptionSpec.flag("--help", help: "Show this help.")

    /// This option, required.
    func isRequired() -> OptionSpec {
        var copy = self
        copy.required = true
        return copy
    }

    /// This option, repeatable.
    func isRepeatable() -> OptionSpec {
        var copy = self
        copy.repeatable = true
        return copy
    }

    /// This option, its value checked by `check` as soon as it is read (a `UsageError` for a bad value).
    func checked(_ check: @escaping @Sendable (String) throws -> Void) -> OptionSpec {
        var copy = self
        copy.validate = check
        return copy
    }

    /// This option, taken only by `subcommands`.
    func only(_ subcommands: String...) -> OptionSpec {
        var copy = self
        copy.subcommands = subcommands
        return copy
    }
}
