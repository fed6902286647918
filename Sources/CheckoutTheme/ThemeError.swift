/// The typed error thrown when a theme cannot be resolved: every issue found, in a stable order.
///
/// Thrown only after all layers are read and all tokens visited, never at the first problem.
public struct ThemeError: Error, Sendable, CustomStringConvertible {
    /// All issues, sorted by path, code, message, then layer; never empty.
    public let issues: [ThemeIssue]

    /// Creates an error from issues (sorted and de-duplicated here).
    public init(issues: [ThemeIssue]) {
        self.issues = Array(Set(issues)).sorted {
            ($0.path, $0.code.description, $0.message, $0.layer ?? "") < ($1.path, $1.code.description, $1.message, $1.layer ?? "")
        }
    }

    /// One issue per line.
    public var description: String { issues.map(\.description).joined(separator: "\n") }
}
