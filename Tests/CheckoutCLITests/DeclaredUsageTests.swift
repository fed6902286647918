@testable import CheckoutCLI
import Testing

/// The hand-written usage synopses against the declarations they sit in: every option a synopsis
/// names is declared, and taken by the subcommand its line shows, so a synopsis cannot name an
/// option the parser would refuse.
@Suite struct DeclaredUsageTests {
    static let specs: [CommandSpec] = [
        DemoCommand.spec, MethodsCommand.spec, CardCommand.spec, PayCommand.spec, RoutedPayCommand.spec,
        RouteCommand.spec, LedgerCommand.spec, VaultCommand.spec, VaultSyncCommand.spec, VaultKeyCommand.spec,
        ThemeCommand.spec, LayoutCommand.spec, PreviewCommand.spec, NewMethodCommand.spec,
    ]

    /// The option names in `line` (`--x` words, without brackets, values or `=`).
    static func options(in line: Substring) -> [String] {
        line.split(whereSeparator: { $0 == " " || $0 == "[" || $0 == "]" || $0 == "|" || $0 == "(" || $0 == ")" || $0 == "," })
            .compactMap { word -> String? in
                guard word.hasPrefix("--"), word.count > 2 else { return nil }
                let name = word.split(separator: "=", maxSplits: 1)[0]
                return String(name.filter { $0.isLetter || $0.isNumber || $0 == "-" })
            }
    }

    @Test(arguments: specs.map(\.name))
    func everyOptionASynopsisNamesIsDeclaredForItsSubcommand(_ name: String) throws {
        let spec = try #require(Self.specs.first { $0.name == name })
        let subcommands = Set(spec.options.flatMap(\.subcommands))
        #expect(!Self.options(in: Substring(spec.usage)).isEmpty, "\(name): its synopsis names no option")
        for line in spec.usage.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            let subcommand = words.first { subcommands.contains($0) }
            for option in Self.options(in: line) where option != "--help" {
                guard let declared = spec.option(option) else {
                    Issue.record("\(name): the synopsis names \(option), which is not declared: \(line)")
                    continue
                }
                if let subcommand, !declared.subcommands.isEmpty {
                    #expect(declared.subcommands.contains(subcommand),
                            "\(name): the synopsis gives \(option) to \(subcommand), which does not take it: \(line)")
                }
            }
        }
    }

    @Test func theOptionWordsOfALineAreFound() {
        #expect(Self.options(in: "USAGE: checkout x add --a A [--b B|-] [--c=1] (--d|--e)") == ["--a", "--b", "--c", "--d", "--e"])
    }
}
