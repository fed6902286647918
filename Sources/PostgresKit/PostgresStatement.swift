/// A named SQL statement, prepared once per connection and then executed with text parameters.
///
/// Values are always bound as `$1, $2, ...` parameters, never interpolated into the SQL, so the
/// SQL text is constant and safe to put in an error message.
public struct PostgresStatement: Sendable, Hashable {
    /// The server-side name of the prepared statement (unique per connection).
    public let name: String
    /// The SQL text with `$n` placeholders.
    public let sql: String

    public init(name: String, sql: String) {
        self.name = name
        self.sql = sql
    }
}
