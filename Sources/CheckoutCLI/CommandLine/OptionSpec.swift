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
    /// The usage error for it given to another subcommand (which it receives), or nil for
    /// `--x applies only to a, b`.
    var refusal: (@Sendable (String) -> String)? = nil
    /// Whether help leaves it out: an option a command reads only to refuse it with its own message
    /// (`route explain` and `--expiry`), or accepts without documenting it.
    var hidden = false
    /// The allowed values of an integer option (`integer(_:_:range:help:)`), or nil.
    var range: ClosedRange<Int>? = nil
    /// Checks a value as soon as it is read (before the options after it), or nil.
    var validate: (@Sendable (String) throws -> Void)? = nil
    /// For a help row that stands for several options (`group(_:help:)`): their names; empty for an option.
    var grouped: [String] = []

    /// True for a help row that stands for several options: the parser skips it.
    var isGroupRow: Bool { !grouped.isEmpty }

    /// One help row for several options (`--number, --expiry, --cvv, --name   The card`), when a
    /// command documents them together. Only a row: declare each option too (hidden), so the parser
    /// reads and checks it. A label too long for the column keeps its help on its line, three
    /// spaces after it, as the hand-written helps had it.
    static func group(_ names: [String], help: String...) -> OptionSpec {
        var spec = OptionSpec(name: names.joined(separator: ", "), value: nil, help: help)
        spec.grouped = names
        return spec
    }

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

    /// An integer option whose value must lie in `range`, checked as it is read:
    /// `--timeout must be an integer in 1...600, got 'x'`. Read it with `ParsedCommandLine.integer(_:default:)`.
    static func integer(_ name: String, _ value: String, range: ClosedRange<Int>, help: String...) -> OptionSpec {
        var spec = OptionSpec(name: name, value: value, help: help)
        spec.range = range
        spec.validate = { text in _ = try integer(text, option: name, range: range) }
        return spec
    }

    /// `text` as an integer in `range`, or the usage error that names `option`.
    static func integer(_ text: String, option: String, range: ClosedRange<Int>) throws -> Int {
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(message: "\(option) must be an integer in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return number
    }

    /// This option, left out of the help.
    func isHidden() -> OptionSpec {
        var copy = self
        copy.hidden = true
        return copy
    }

    /// This option, taken only by `subcommands`; given to another, `ParsedCommandLine.check(subcommand:)`
    /// refuses it with `refusal` of that subcommand, or with `--x applies only to a, b`.
    func only(_ subcommands: String..., refusing refusal: (@Sendable (String) -> String)? = nil) -> OptionSpec {
        var copy = self
        copy.subcommands = subcommands
        copy.refusal = refusal
        return copy
    }
}
