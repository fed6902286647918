/// One wrong command line and the start of the message it must print on stderr (exit 2).
struct UsageCase: Sendable, CustomStringConvertible {
    /// The words after `checkout` (or after the command, where a suite adds it).
    let words: [String]
    /// The expected start of stderr.
    let message: String
    var description: String { words.joined(separator: " ") }
}
