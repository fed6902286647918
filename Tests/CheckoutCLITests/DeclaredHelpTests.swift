@testable import CheckoutCLI
import Testing

/// Help derived from the declarations: the layout, every option listed, the old texts kept.
@Suite struct DeclaredHelpTests {
    @Test func helpIsUsageAboutArgumentsOptionsAndFooterInThatLayout() {
        let spec = CommandSpec(
            name: "tool", summary: "s", usage: "USAGE: checkout tool [--fast]", about: "Does things.",
            arguments: [OptionSpec(name: "NAME", value: nil, help: ["the name"])],
            options: [.flag("--fast", help: "go fast,", "really"), .valued("--a-very-long-option", "VALUE", help: "long"),
                      OptionSpec.flag("--secret", help: "not shown").isHidden()],
            footer: "EXIT CODES: 0 ok.", column: 12)
        #expect(spec.help == """
            USAGE: checkout tool [--fast]

            Does things.

            ARGUMENTS:
              NAME        the name
            OPTIONS:
              --fast      go fast,
                          really
              --a-very-long-option VALUE
                          long

            EXIT CODES: 0 ok.
            """)
    }

    /// A group row documents several options on one line; the parser skips it and reads each option
    /// (declared hidden) on its own.
    @Test func aGroupRowKeepsItsHelpOnItsLineAndIsNotParsed() throws {
        let spec = CommandSpec(
            name: "tool", summary: "s", usage: "USAGE: checkout tool", about: "Does things.",
            options: [.group(["--number", "--expiry"], help: "The card,", "both parts."),
                      OptionSpec.valued("--number", "N", help: "n").isHidden(), OptionSpec.valued("--expiry", "E", help: "e").isHidden(),
                      .flag("--json", help: "JSON.")],
            column: 12)
        #expect(spec.help == """
            USAGE: checkout tool

            Does things.

            OPTIONS:
              --number, --expiry   The card,
                          both parts.
              --json      JSON.
            """)
        let parsed = try ParsedCommandLine(["--expiry", "12/30", "--number", "4242"], spec: spec)
        #expect(parsed.value("--number") == "4242")
        #expect(parsed.value("--expiry") == "12/30")
        #expect(spec.option("--number, --expiry") == nil)
        #expect(throws: UsageError.self) { try ParsedCommandLine(["--number, --expiry"], spec: spec).finish() }
    }

    /// A spec that does not suggest corrections reports a near miss as a plain unexpected argument.
    @Test func suggestionsCanBeTurnedOff() throws {
        var spec = CommandSpec(name: "tool", summary: "s", usage: "u", about: "a", options: [.valued("--number", "N", help: "n")])
        let words = ["--numbr", "1"]
        #expect(throws: UsageError(message: "unexpected argument '--numbr'; did you mean '--number'?")) {
            try ParsedCommandLine(words, spec: spec).finish()
        }
        spec.suggestsCorrections = false
        #expect(throws: UsageError(message: "unexpected argument '--numbr'")) { try ParsedCommandLine(words, spec: spec).finish() }
    }

    /// `pay --routing --help`, derived from its declaration, is the pinned hand-written help.
    @Test func routedPayHelpIsTheOldHelp() async throws {
        let result = await runCheckout(["pay", "--routing", "--help"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == (try pinned("pay-routing-help.stdout")), "\(result)")
    }

    /// Every declared option (and argument) of every declared command appears in its help, with its value name.
    @Test func everyDeclaredOptionIsInTheHelp() {
        let declared = CommandList.all.compactMap { $0 as? any DeclaredCommand.Type }
        #expect(declared.count >= 10)
        for command in declared {
            for option in command.spec.options + command.spec.arguments where !option.hidden {
                // A label too long for the column has its help on the next line.
                #expect(command.help.contains("  " + option.label + " ") || command.help.contains("  " + option.label + "\n"),
                        "\(command.name) help lacks \(option.label)")
            }
        }
    }

    /// The declared commands' help is byte for byte the hand-written help it replaced.
    @Test(arguments: ["demo", "methods", "card", "pay", "new-method", "theme", "layout", "preview", "vault", "vault sync", "vault key",
                      "route", "ledger"])
    func derivedHelpIsTheOldHelp(_ name: String) async throws {
        for flag in ["--help", "-h"] {
            let result = await runCheckout(name.split(separator: " ").map(String.init) + [flag])
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout == (try pinned("\(name.replacingOccurrences(of: " ", with: "-"))-help.stdout")), "\(result)")
            #expect(result.stderr.isEmpty, "\(result)")
        }
    }

    /// Subcommands are declared by their parent and named after it, and the word after the
    /// parent's name reaches the subcommand's own parser (its required options, not the parent's).
    @Test func subcommandsAreRoutedByTheirDeclaration() async throws {
        #expect(VaultCommand.subcommands.map { $0.name } == ["vault sync", "vault key"])
        for command in CommandList.all {
            for subcommand in command.subcommands {
                #expect(subcommand.name.hasPrefix(command.name + " "), "\(subcommand.name) is not under \(command.name)")
                #expect(subcommand.name.split(separator: " ").count == 2, "\(subcommand.name): one word after the parent")
            }
        }
        let sync = await runCheckout(["vault", "sync"])
        #expect(sync.status == 2 && sync.stderr.hasPrefix("error: missing required option --db\n"), "\(sync)")
        let key = await runCheckout(["vault", "key", "create"])
        #expect(key.status == 2 && key.stderr.hasPrefix("error: missing required option --remote\n"), "\(key)")
    }

    @Test func topLevelHelpIsTheOldOne() async throws {
        let result = await runCheckout(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout == (try pinned("top-help.stdout")), "\(result)")
        let none = await runCheckout([])
        #expect(none.status == 2)
        #expect(none.stderr == (try pinned("no-command.stderr")), "\(none)")
    }
}
