import CheckoutJSON
import Foundation

/// The machine the figures were measured on (printed with every run, stored in the JSON).
enum Machine {
    /// The CPU model from /proc/cpuinfo, or "unknown".
    static var cpuModel: String {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return "unknown"
    }

    static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }
    static var memoryGiB: Double { Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824 }

    /// This executable's path, for spawning a second process of it.
    static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    static var summary: String {
        "\(cores) cores, \(String(format: "%.1f", memoryGiB)) GiB, \(cpuModel), \(ProcessInfo.processInfo.operatingSystemVersionString)"
    }

    static var json: JSONValue {
        .object(["cores": .number(Double(cores)), "memoryGiB": .number(memoryGiB), "cpu": .string(cpuModel),
                 "os": .string(ProcessInfo.processInfo.operatingSystemVersionString)])
    }
}
