import CheckoutCore

/// A command line parsed by its `CommandSpec`: every declared option's value, and the words left
/// (positional arguments, and anything undeclared, which `finish()` rejects with a suggestion).
///
/// Reading an option the spec does not declare is a programming error (it traps), so an option
/// cannot be parsed without being in the help.
struct ParsedCommandLine {
    /// The declaration it was parsed by.
    let spec: CommandSpec
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []
    /// The words no declared option consumed.
    private(set) var rest: Arguments

    /// Parses `words` option by option, in the spec's order: a flag is one word; a valued option is
    /// `--name value` (the value may not start with `--`) or `--name=value`, at most once unless
    /// repeatable; a required option must be present.
    /// - Throws: `UsageError` (`--x needs a value`, `--x may be given only once`, `missing required option --x`).
    init(_ words: [String], spec: CommandSpec) throws {
        self.spec = spec
        rest = Arguments(words)
        for option in spec.optionsInParseOrder where !option.isGroupRow {
            if option.isFlag {
                if rest.flag(option.name) { flags.insert(option.name) }
                continue
            }
            let found = option.repeatable ? try rest.options(option.name) : try rest.option(option.name).map { [$0] } ?? []
            if option.required, found.isEmpty { throw UsageError(message: "missing required option \(option.name)") }
            if let validate = option.validate { try found.forEach(validate) }
            values[option.name] = found
        }
    }

    /// Whether the flag `name` was given.
    func flag(_ name: String) -> Bool {
        precondition(spec.option(name)?.isFlag == true, "\(name) is not a declared flag of \(spec.name)")
        return flags.contains(name)
    }

    /// The value of the single-valued option `name`, or nil when absent.
    func value(_ name: String) -> String? {
        values(name).first
    }

    /// Every value of the option `name`, in order.
    func values(_ name: String) -> [String] {
        precondition(spec.option(name).map { !$0.isFlag } == true, "\(name) is not a declared option of \(spec.name)")
        return values[name] ?? []
    }

    /// The value of a declared required option.
    func required(_ name: String) throws -> String {
        guard let value = value(name) else { throw UsageError(message: "missing required option \(name)") }
        return value
    }

    /// An integer option with a default and an allowed range.
    func integer(_ name: String, default defaultValue: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = value(name) else { return defaultValue }
        return try OptionSpec.integer(text, option: name, range: range)
    }

    /// A declared integer option (`OptionSpec.integer`), in its declared range, or `defaultValue`.
    func integer(_ name: String, default defaultValue: Int) throws -> Int {
        guard let range = spec.option(name)?.range else { preconditionFailure("\(name) is not a declared integer option of \(spec.name)") }
        return try integer(name, default: defaultValue, range: range)
    }

    /// The next positional word, consumed.
    mutating func positional() -> String? {
        rest.positional()
    }

    /// The next positional word as one of `Choice`'s cases (see `Arguments.choice`).
    mutating func choice<Choice: CaseIterable & RawRepresentable>(_ what: String, also: [String] = []) throws -> Choice
    where Choice.RawValue == String {
        try rest.choice(what, also: also)
    }

    /// Throws a usage error for the first given option (in declaration order) that `subcommand` does
    /// not take: its declared refusal, else `--cvv applies only to vaulted`.
    func check(subcommand: String) throws {
        for option in spec.options where !option.subcommands.isEmpty && !option.subcommands.contains(subcommand) {
            if flags.contains(option.name) || !(values[option.name] ?? []).isEmpty {
                throw UsageError(message: option.refusal?(subcommand)
                                 ?? "\(option.name) applies only to \(option.subcommands.joined(separator: ", "))")
            }
        }
    }

    /// Throws a usage error naming the first word nobody consumed; an unknown option close to a
    /// declared one (at most two edits) adds "did you mean".
    func finish() throws {
        guard let first = rest.words.first else { return }
        var message = "unexpected argument \(CommandSupport.quote(first))"
        if first.hasPrefix("--"), spec.suggestsCorrections {
            let name = first.split(separator: "=", maxSplits: 1).first.map(String.init) ?? first
            if spec.option(name) == nil,
               let suggestion = EditDistance.suggestion(for: name, among: spec.options.filter { !$0.isGroupRow }.map(\.name)) {
                message += "; did you mean '\(suggestion)'?"
            }
        }
        throw UsageError(message: message)
    }
}
