import Foundation

/// `checkout-bench [--quick] [--json FILE] [--only SECTION,...]`: every figure against a baseline
/// measured in the same run. Build in release: `swift run -c release checkout-bench`.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print("""
    USAGE: checkout-bench [--quick] [--json FILE] [--only SECTION,...]

    Sections: \(BenchSections.all.map(\.name).joined(separator: ", "))
    --quick   smaller inputs, finishes in under a minute (CI smoke use)
    --json    also write every figure to FILE as one JSON document
    --only    run only the named sections
    """)
    exit(0)
}

func value(after flag: String) -> String? {
    guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

let options = BenchOptions(quick: arguments.contains("--quick"))
let only = value(after: "--only").map { Set($0.split(separator: ",").map(String.init)) }
var results: [(String, [Figure])] = []
#if DEBUG
print("warning: debug build; run `swift run -c release checkout-bench` for meaningful figures")
#endif
print("checkout-bench \(options.quick ? "(quick)" : "(full)") on \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory / 1_073_741_824) GiB")
for section in BenchSections.all where only?.contains(section.name) ?? true {
    print("\n[\(section.name)]")
    do {
        let figures = try await section.run(options)
        for figure in figures { print(figure.line) }
        results.append((section.name, figures))
    } catch {
        print("\(section.name): FAILED: \(error)")
        exit(1)
    }
}
if let path = value(after: "--json") {
    let document: [String: Any] = [
        "quick": options.quick,
        "cores": ProcessInfo.processInfo.activeProcessorCount,
        "sections": Dictionary(uniqueKeysWithValues: results.map { ($0.0, $0.1.map(\.json)) }),
    ]
    let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
    try data.write(to: URL(fileURLWithPath: path))
    print("\nwrote \(path)")
}
