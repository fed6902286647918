import CheckoutKit
import Foundation

/// `checkout theme --check-contrast`: the WCAG AA contrast of every checkout token pair, per mode,
/// compared with the configuration's own tokens (to say whether an override broke a pair). Any
/// failing pair exits 1: the shipped defaults pass every one.
enum ContrastCheck {
    static func run(options: ThemeCommand.Options, modes: [ThemeMode], json: Bool, output: Output) -> Int32 {
        var reports: [(report: ContrastReport, seed: ContrastReport)] = []
        for mode in modes {
            var modeOptions = options
            modeOptions.mode = mode
            guard let theme = modeOptions.resolve(reportingTo: output) else { return 1 }
            var seedOptions = modeOptions
            seedOptions.overrides = nil
            guard let seed = seedOptions.resolve(reportingTo: output) else { return 1 }
            reports.append((ContrastReport(theme: theme, mode: mode), ContrastReport(theme: seed, mode: mode)))
        }
        let failures = reports.reduce(0) { $0 + $1.report.failures.count }
        /// Whether `entry` fails with the configuration's own tokens too (not broken by the overrides).
        func failsWithoutOverrides(_ entry: ContrastReport.Entry, _ seed: ContrastReport) -> Bool {
            seed.entries.first { $0.pair == entry.pair }.map { !$0.passes } ?? false
        }
        let broken = reports.flatMap { $0.report.broken(comparedWith: $0.seed) }
        if json {
            let pairs = reports.flatMap { report, seed in
                report.entries.map { entry in
                    CommandJSON.ContrastPair(mode: report.mode.rawValue, foreground: entry.pair.foreground,
                                             background: entry.pair.background, foregroundColor: entry.foregroundColor.hex,
                                             backgroundColor: entry.backgroundColor.hex, ratio: entry.displayRatio,
                                             kind: entry.pair.kind.rawValue, required: JSONNullable(entry.pair.kind.required),
                                             passes: entry.passes,
                                             seedPasses: seed.entries.first { $0.pair == entry.pair }?.passes ?? true)
                }
            }
            try? output.json(CommandJSON.ContrastCheck(pairs: pairs, failures: failures, broken: broken.count))
        } else {
            for (report, seed) in reports {
                output.line(output.styled("\(report.mode.rawValue): WCAG AA contrast", "1"))
                let width = report.entries.map { $0.pair.foreground.count + $0.pair.background.count + 4 }.max() ?? 0
                for entry in report.entries {
                    let name = "\(entry.pair.foreground) on \(entry.pair.background)".padding(toLength: width, withPad: " ", startingAt: 0)
                    let required = entry.pair.kind.required.map { "needs \(ThemeCommand.format($0)):1" } ?? "exempt"
                    let verdict = entry.passes ? "pass"
                        : failsWithoutOverrides(entry, seed) ? "FAIL (also with the defaults)" : "FAIL (broken by the overrides)"
                    output.line("  \(name)  \(entry.foregroundColor.hex) on \(entry.backgroundColor.hex)  "
                                + "\(String(format: "%.2f", entry.displayRatio)):1  \(entry.pair.kind.rawValue), \(required)  \(verdict)")
                }
            }
            output.line("\(failures) failing pair\(failures == 1 ? "" : "s"), \(broken.count) broken by the overrides")
        }
        for (report, seed) in reports {
            for entry in report.failures {
                output.error("error: \(report.mode.rawValue): \(entry.pair.foreground) on \(entry.pair.background) is "
                             + "\(String(format: "%.2f", entry.displayRatio)):1 in \(entry.pair.kind.rawValue) "
                             + "(needs \(ThemeCommand.format(entry.pair.kind.required ?? 0)):1)"
                             + (failsWithoutOverrides(entry, seed) ? "" : "; it passes without the overrides"))
            }
        }
        return failures == 0 ? 0 : 1
    }
}
