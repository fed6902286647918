/// A command's whole command line, declared once: its name and summary for `checkout --help`, its
/// usage synopsis and description, and its options. `help` and `parse(_:)` are derived from it, so
/// the help, the parser and the error messages cannot drift apart.
struct CommandSpec: Sendable {
    /// The word after `checkout`, e.g. `card`.
    let name: String
    /// One line for `checkout --help`.
    let summary: String
    /// The usage synopsis, starting `USAGE: `, as printed.
    let usage: String
    /// The paragraphs between the usage and the options.
    let about: String
    /// Positional arguments, listed under `ARGUMENTS:` (documentation only: commands read them with
    /// `ParsedCommandLine.positional()`).
    var arguments: [OptionSpec] = []
    /// The title of the arguments' section (`COMPONENTS:` for `layout`).
    var argumentsTitle = "ARGUMENTS:"
    /// Whether a blank line separates the arguments' section from the options.
    var blankLineAfterArguments = false
    /// The arguments' left column when it differs from the options' (`vault`'s subcommands: 10).
    var argumentsColumn: Int? = nil
    /// The options, in the order help lists them and the parser reads them.
    let options: [OptionSpec]
    /// Text after the options (error codes, exit codes), or nil.
    var footer: String? = nil
    /// The width of the help's left column (the label and its padding, after a two-space indent).
    var column = 20
    /// Option names the parser reads first, in this order (the rest follow in help order): the order
    /// the hand-written parser read them, so a command line with two mistakes still reports the same one.
    var parseOrder: [String] = []
    /// Whether an unknown option close to a declared one adds "did you mean" (`pay` keeps the plain
    /// "unexpected argument" its hand-written parser printed).
    var suggestsCorrections = true

    /// The options in the order the parser reads them.
    var optionsInParseOrder: [OptionSpec] {
        parseOrder.compactMap(option) + options.filter { !parseOrder.contains($0.name) }
    }

    /// The help text for `checkout NAME --help`.
    var help: String {
        var text = usage + "\n\n" + about + "\n\n"
        if !arguments.isEmpty {
            text += argumentsTitle + "\n" + rows(arguments, column: argumentsColumn ?? column) + (blankLineAfterArguments ? "\n\n" : "\n")
        }
        text += "OPTIONS:\n" + rows(options.filter { !$0.hidden }, column: column)
        if let footer { text += "\n\n" + footer }
        return text
    }

    /// The declared option called `name`, if any (group rows are not options).
    func option(_ name: String) -> OptionSpec? {
        options.first { $0.name == name && !$0.isGroupRow }
    }

    /// One row per spec: the label padded to `column`, then the help; a label too long for the column
    /// stands on its own line, the help indented below it.
    private func rows(_ specs: [OptionSpec], column: Int) -> String {
        let indent = String(repeating: " ", count: 2 + column)
        return specs.map { spec in
            guard spec.label.count < column else {
                if spec.isGroupRow, let first = spec.help.first {
                    return (["  " + spec.label + "   " + first] + spec.help.dropFirst().map { indent + $0 }).joined(separator: "\n")
                }
                return (["  " + spec.label] + spec.help.map { indent + $0 }).joined(separator: "\n")
            }
            let label = spec.label.padding(toLength: column, withPad: " ", startingAt: 0)
            return (["  " + label + (spec.help.first ?? "")] + spec.help.dropFirst().map { indent + $0 }).joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
