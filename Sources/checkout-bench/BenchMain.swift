import CBenchBaselines
import CheckoutJSON
import CheckoutKit
import Foundation

/// The benchmark's command line (see `main.swift`): parses the options, runs a probe or the sections,
/// prints every figure and exits with the documented status.
enum BenchMain {
    static func run() async {
        cbench_line_buffer_stdout()
        let arguments = Array(CommandLine.arguments.dropFirst())
        let usage = """
            USAGE: checkout-bench [--quick] [--report-only] [--json FILE] [--only SECTION,...] [--config-dir DIR]

            Sections: \(BenchSections.all.map(\.name).joined(separator: ", "))
            --quick       smaller inputs, finishes in under a minute (CI smoke use)
            --report-only a missed target is reported but does not change the exit code
            --json FILE   also write every figure to FILE as one JSON document
            --only LIST   run only the named sections (comma-separated)
            --config-dir  the Config directory (default: ./Config when it exists, else the embedded copies)
            --probe NAME --count N     the fixed work scripts/bench-instructions.sh counts with callgrind
                                       (\(InstructionProbes.names.joined(separator: ", ")); see InstructionProbes.swift)
            --load-generator URL ...   internal: the server section's second process (see LoadGenerator.swift)

            Each figure prints as `name: value unit (±spread%) (baseline NAME: value unit, ratio: x, HOW)`;
            the ratio is how many times slower than the baseline (1.0 = as fast), and HOW says whether it
            is the median of pair ratios (subject and baseline run alternately) or a ratio of medians.
            Every figure is the median of repeated runs after a warm-up; the spread is (max - min) / median.
            Exit codes: 0 every figure measured and every target met, 1 a section failed, 2 usage error,
            3 a figure is missing (no value or no baseline), 4 a target was missed (0 with --report-only,
            for a noisy shared machine or the tiny inputs of --quick).
            """
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            exit(0)
        }
        if let mode = LoadGenerator.modeIndex(in: arguments) {
            exit(await LoadGenerator.main(Array(arguments[(mode + 1)...])))
        }

        func value(after flag: String) -> String? {
            guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
            return arguments[index + 1]
        }

        let valued = ["--json", "--only", "--config-dir", "--probe", "--count"]
        let known = Set(["--quick", "--report-only"] + valued)
        for (index, argument) in arguments.enumerated() where argument.hasPrefix("-") && !known.contains(argument) {
            guard index > 0, valued.contains(arguments[index - 1]) else {
                FileHandle.standardError.write(Data("checkout-bench: unknown option '\(argument)'\n\(usage)\n".utf8))
                exit(2)
            }
        }
        for flag in valued where arguments.contains(flag) && value(after: flag) == nil {
            FileHandle.standardError.write(Data("checkout-bench: \(flag) needs a value\n".utf8))
            exit(2)
        }
        let only = value(after: "--only").map { Set($0.split(separator: ",").map(String.init)) }
        if let only {
            let unknown = only.subtracting(BenchSections.all.map(\.name))
            guard unknown.isEmpty else {
                FileHandle.standardError.write(Data("checkout-bench: unknown section(s) \(unknown.sorted().joined(separator: ", "))\n".utf8))
                exit(2)
            }
        }
        // The --json file's directory is made now (bench-results/ on a fresh clone), so a path that
        // cannot be written fails at once instead of after every section has run.
        if let path = value(after: "--json") {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                FileHandle.standardError.write(Data("checkout-bench: cannot create the directory of --json \(path): \(error.localizedDescription)\n".utf8))
                exit(2)
            }
        }

        let configDirectory: URL? = {
            if let given = value(after: "--config-dir") { return URL(fileURLWithPath: given, isDirectory: true) }
            let local = URL(fileURLWithPath: "Config", isDirectory: true)
            return FileManager.default.fileExists(atPath: local.appendingPathComponent("checkout.json").path) ? local : nil
        }()
        let options = BenchOptions(quick: arguments.contains("--quick"), configDirectory: configDirectory,
                                   executablePath: Machine.executablePath)
        if let probe = value(after: "--probe") {
            guard let count = value(after: "--count").flatMap(Int.init), count >= 0 else {
                FileHandle.standardError.write(Data("checkout-bench: --probe needs --count N (N >= 0)\n".utf8))
                exit(2)
            }
            do {
                try await InstructionProbes.run(probe, count: count, options: options)
                exit(0)
            } catch {
                FileHandle.standardError.write(Data("checkout-bench: \(error)\n".utf8))
                exit(1)
            }
        }
        var results: [(String, [Figure])] = []
        #if DEBUG
        print("warning: debug build; run `swift run -c release checkout-bench` for meaningful figures")
        #endif
        let startedAt = WallClock.system.now
        let started = Stopwatch(ContinuousClock())
        print("checkout-bench \(options.quick ? "(quick)" : "(full)"): \(Machine.summary)")
        print("config: \(configDirectory?.path ?? "embedded defaults")")
        for section in BenchSections.all where only?.contains(section.name) ?? true {
            print("\n[\(section.name)]")
            let sectionStart = Stopwatch(ContinuousClock())
            do {
                let figures = try await section.run(options)
                for figure in figures { print(figure.line) }
                results.append((section.name, figures))
            } catch {
                print("\(section.name): FAILED: \(error)")
                exit(1)
            }
            print("(\(section.name) took \(String(format: "%.1f", sectionStart.elapsed.inSeconds)) s)")
        }
        let elapsed = started.elapsed.inSeconds
        print("\ntotal: \(String(format: "%.1f", elapsed)) s")
        // A figure without a value or baseline is missing, and so is a section that returned nothing.
        var missing: [String] = []
        for (section, figures) in results {
            if figures.isEmpty { missing.append("\(section): no figures") }
            for figure in figures { if let why = figure.missing { missing.append("\(figure.name): \(why)") } }
        }
        let missedTargets = results.flatMap(\.1).filter { $0.targetMet == false }.map(\.name)
        let reportOnly = arguments.contains("--report-only")
        if !missedTargets.isEmpty {
            print("targets missed\(reportOnly ? " (--report-only: not an error)" : ""): \(missedTargets.joined(separator: ", "))")
        }
        if let path = value(after: "--json") {
            let document: JSONValue = .object([
                "quick": .bool(options.quick),
                "machine": Machine.json,
                "command": .string(CommandLine.arguments.joined(separator: " ")),
                "date": .string(ISO8601DateFormatter().string(from: startedAt)),
                "seconds": .number(elapsed),
                "sections": .object(JSONObject(results.map { ($0.0, JSONValue.array($0.1.map(\.json))) })),
                "order": .array(results.map { .string($0.0) }),
                "missing": .array(missing.map { .string($0) }),
            ])
            do {
                try Data(JSONWriter.write(document) + [0x0A]).write(to: URL(fileURLWithPath: path))
                print("wrote \(path)")
            } catch {
                FileHandle.standardError.write(Data("checkout-bench: cannot write --json \(path): \(error.localizedDescription)\n".utf8))
                exit(1)
            }
        }
        if !missing.isEmpty {
            FileHandle.standardError.write(Data("checkout-bench: missing figures: \(missing.joined(separator: "; "))\n".utf8))
            exit(3)
        }
        if !missedTargets.isEmpty && !reportOnly {
            FileHandle.standardError.write(Data("checkout-bench: \(missedTargets.count) target(s) missed (--report-only to report them without failing)\n".utf8))
            exit(4)
        }
    }
}
