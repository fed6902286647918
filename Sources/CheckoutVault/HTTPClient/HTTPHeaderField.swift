/// One header field of a response: its lower-cased name and its value without surrounding spaces.
package struct HTTPHeaderField: Sendable, Equatable {
    /// The field name, lower-cased.
    package var name: String
    /// The field value, optional whitespace trimmed.
    package var value: String

    /// Creates a field (the name is lower-cased).
    package init(name: String, value: String) {
        self.name = name.lowercased()
        self.value = value
    }
}
