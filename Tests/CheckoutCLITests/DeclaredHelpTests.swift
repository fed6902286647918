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

    /// Every declared option (and argument) of every declared command appears in its help, with its value name.
    @Test func everyDeclaredOptionIsInTheHelp() {
        let declared = CommandList.all.compactMap { $0 as? any DeclaredCommand.Type }
        #expect(declared.count >= 10)
        for command in declared {
            for option in command.spec.options + command.spec.arguments where !option.hidden {
                #expect(command.help.contains("  " + option.label + " "), "\(command.name) help lacks \(option.label)")
            }
        }
    }

    /// The declared commands' help is byte for byte the hand-written help it replaced.
    @Test(arguments: ["demo", "methods", "card", "new-method", "theme", "layout", "preview", "vault", "vault sync", "vault key",
                      "route", "ledger"])
    func derivedHelpIsTheOldHelp(_ name: String) async throws {
        for flag in ["--help", "-h"] {
            let result = await runCheckout(name.split(separator: " ").map(String.init) + [flag])
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout == (try pinned("\(name.replacingOccurrences(of: " ", with: "-"))-help.stdout")), "\(result)")
            #expect(result.stderr.isEmpty, "\(result)")
        }
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
