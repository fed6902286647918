import CheckoutKit
import Foundation

/// `checkout theme`: resolves the design tokens (base, mode, merchant overrides) and prints every value.
///
/// Exit 0 with the tokens, 1 when the theme has errors (each listed with its token path on stderr),
/// 2 for a bad command line.
enum ThemeCommand: DeclaredCommand {
    static let spec = CommandSpec(
        name: "theme",
        summary: "Resolve the design tokens and print every value",
        usage: """
            USAGE: checkout theme [--json] [--mode light|dark] [--overrides FILE] [--config-dir DIR]
                   checkout theme --check-contrast [--mode light|dark] [--overrides FILE] [--json]
            """,
        about: """
            Resolves the configuration's theme.tokens.json (plus theme.dark.tokens.json in dark mode, plus
            an optional merchant override file in the same W3C design-token format) and prints every token.
            """,
        options: [
            .flag("--json", help: "Print one flat JSON object: token path -> value. Dimensions are numbers of",
                  "points, colours \"#rrggbb\" or \"#rrggbbaa\", durations milliseconds. A typography",
                  "token is flattened into PATH.fontFamily, PATH.fontSize, PATH.lineHeight,",
                  "PATH.fontWeight and PATH.letterSpacing."),
        ] + Options.specs(overrides: ["A token file merged last; aliases resolve after the merge, so overriding",
                                      "space.base rescales every spacing token."]) + [
            .flag("--check-contrast", help: "Instead, report the WCAG contrast ratio of every text/background token pair",
                  "(and borders, icons, focus) in both modes, or only --mode's, against AA:",
                  "4.5:1 text, 3:1 large text and UI components; disabled/loading are exempt.",
                  "With --json: {\"pairs\":[{\"mode\",\"foreground\",\"background\",\"foregroundColor\",",
                  "\"backgroundColor\",\"ratio\",\"kind\",\"required\",\"passes\",\"seedPasses\"}],",
                  "\"failures\",\"broken\"}. Exit 1 when any pair fails (each listed on stderr);",
                  "\"broken\" counts the failures that pass with the configuration's own tokens."),
            .showHelp,
        ],
        footer: """
            EXIT CODES: 0 ok; 1 the theme has errors (all listed on stderr with their token paths), or
            --check-contrast found a failing pair; 2 usage error.
            """)

    static func run(_ arguments: inout ParsedCommandLine, output: Output) async throws -> Int32 {
        let json = arguments.flag("--json")
        let checkContrast = arguments.flag("--check-contrast")
        let modeGiven = arguments.value("--mode") != nil
        let options = try Options.from(arguments)
        try arguments.finish()
        if checkContrast {
            return ContrastCheck.run(options: options, modes: modeGiven ? [options.mode] : ThemeMode.allCases, json: json,
                                     output: output)
        }
        guard let theme = options.resolve(reportingTo: output) else { return 1 }
        let flat = theme.tokens.flattened()
        if json {
            try output.json(flat)
        } else {
            let width = flat.keys.map(\.count).max() ?? 0
            for path in flat.keys.sorted() {
                let value = flat[path].map(describe) ?? ""
                output.line(path.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value)
            }
        }
        return 0
    }

    /// Prints every theme issue on stderr, one per line, with its token path.
    private static func report(_ error: ThemeError, output: Output) {
        output.error("error: the theme has \(error.issues.count) problem\(error.issues.count == 1 ? "" : "s"):")
        for issue in error.issues {
            output.error("  " + issue.description)
        }
    }

    private static func describe(_ value: FlatTokenValue) -> String {
        switch value {
        case .number(let number): format(number)
        case .string(let text): text
        case .strings(let list): list.joined(separator: ", ")
        }
    }

    /// A number without a trailing `.0` when it is integral (12 rather than 12.0).
    static func format(_ number: Double) -> String {
        if number.rounded() == number, abs(number) < 1e15 { return String(Int(number)) }
        return String(number)
    }

    /// The options `theme` and `layout` share: which configuration, which mode, which overrides.
    struct Options {
        /// Light or dark.
        var mode: ThemeMode
        /// An override token file, merged last.
        var overrides: URL?
        /// The configuration whose theme is resolved (`ConfigLocation`).
        var defaults: CheckoutDefaults

        /// `--mode MODE` (checked as it is read), `--overrides FILE` with each command's help for it,
        /// and `--config-dir DIR`.
        static func specs(overrides: [String]) -> [OptionSpec] {
            [
                OptionSpec.valued("--mode", "MODE", help: "light (default) or dark.").checked { _ = try mode($0) },
                OptionSpec(name: "--overrides", value: "FILE", help: overrides),
                ConfigLocation.option,
            ]
        }

        /// `--mode`'s value as a mode.
        private static func mode(_ text: String) throws -> ThemeMode {
            guard let mode = ThemeMode(rawValue: text) else { throw UsageError(message: "--mode must be light or dark, got '\(text)'") }
            return mode
        }

        /// The options of a command line parsed with `specs` declared; loads the configuration.
        static func from(_ parsed: ParsedCommandLine) throws -> Options {
            let mode = try parsed.value("--mode").map(mode) ?? .light
            let overrides = parsed.value("--overrides").map { URL(fileURLWithPath: $0) }
            return Options(mode: mode, overrides: overrides, defaults: try ConfigLocation.defaults(parsed))
        }

        /// `resolve()`, or nil after listing every problem on stderr.
        func resolve(reportingTo output: Output) -> ResolvedTheme? {
            do {
                return try resolve()
            } catch {
                ThemeCommand.report(error, output: output)
                return nil
            }
        }

        /// The resolved theme: the configuration's cached one, or, with overrides, its layers plus the
        /// override file; every problem (unreadable files included) is in the thrown error.
        func resolve() throws(ThemeError) -> ResolvedTheme {
            guard let overrides else { return try defaults.themes.theme(mode) }
            var issues: [ThemeIssue] = []
            var layers: [ThemeLayer] = []
            do {
                layers = try baseLayers()
            } catch {
                issues += error.issues
            }
            do {
                layers.append(try ThemeFiles.layer(file: overrides))
            } catch {
                issues += error.issues
            }
            guard issues.isEmpty else { throw ThemeError(issues: issues) }
            return try ThemeResolver.resolve(layers: layers)
        }

        /// The configuration's token layers for `mode`: its files, or the embedded copies.
        private func baseLayers() throws(ThemeError) -> [ThemeLayer] {
            switch defaults.source {
            case .directory(let directory):
                return try ThemeFiles.layers(configDirectory: directory, mode: mode)
            case .embedded:
                let base = ThemeLayer.json(Data(EmbeddedConfig.themeLight.utf8), name: ThemeFiles.baseFileName)
                let dark = ThemeLayer.json(Data(EmbeddedConfig.themeDark.utf8), name: ThemeFiles.darkFileName)
                return mode == .dark ? [base, dark] : [base]
            }
        }
    }
}
