import Foundation
import VaultServer

/// Where a `vault-server` keeps its data: a SQLite file (the default) or a PostgreSQL database.
///
/// Lives beside the PostgreSQL storage so that the `VaultServer` library itself never links
/// libpq: only a program that can open both (the `vault-server` executable) depends on this
/// module. Written as `--storage postgres://user@host/db`, `"storage": "postgres://..."` in
/// `Config/vault-server.json`, or `sqlite:PATH` (the same as `--db PATH`).
public enum VaultStorageLocation: Sendable, Equatable, CustomStringConvertible {
    /// A SQLite database file, created if missing.
    case sqlite(path: String)
    /// A PostgreSQL database shared by any number of server instances (a libpq URL).
    case postgres(url: String)

    /// Parses a storage value: `postgres://...`, `postgresql://...` or `sqlite:PATH`.
    /// Anything else is an error naming the accepted forms (never echoing the value, which may
    /// hold a password).
    public init(parsing text: String) throws(VaultServerConfigurationError) {
        if PostgresVaultServerStorage.isPostgresURL(text) {
            guard URLComponents(string: text)?.host.map({ !$0.isEmpty }) == true || text.contains("host=") else {
                throw VaultServerConfigurationError("storage: a postgres:// URL needs a host, e.g. postgres://vault@127.0.0.1:5432/vault")
            }
            self = .postgres(url: text)
        } else if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw VaultServerConfigurationError("storage: sqlite: needs a file path, e.g. sqlite:vault.db") }
            self = .sqlite(path: path)
        } else {
            throw VaultServerConfigurationError("storage must be postgres://..., postgresql://... or sqlite:PATH")
        }
    }

    /// Picks the storage of a server from its command line and configuration: `--storage` wins,
    /// then `--db PATH`, then the configuration's `storage`. Throws when none is given, or when
    /// `--storage` and `--db` are both given (a silent choice between two would hide a mistake).
    public static func resolve(storageOption: String?, databaseOption: String?,
                               configured: String?) throws(VaultServerConfigurationError) -> VaultStorageLocation {
        switch (storageOption, databaseOption) {
        case (.some, .some):
            throw VaultServerConfigurationError("pass either --storage or --db, not both")
        case (.some(let storage), nil):
            return try VaultStorageLocation(parsing: storage)
        case (nil, .some(let path)):
            guard !path.isEmpty else { throw VaultServerConfigurationError("--db needs a file path") }
            return .sqlite(path: path)
        case (nil, nil):
            guard let configured else {
                throw VaultServerConfigurationError("no storage: pass --db PATH, --storage postgres://... or set \"storage\" in the config")
            }
            return try VaultStorageLocation(parsing: configured)
        }
    }

    /// Opens the storage (applying its migrations). `poolSize` bounds the PostgreSQL connections
    /// of this instance; match it to the server's worker threads.
    public func open(poolSize: Int = 8) throws -> any VaultServerStorage {
        switch self {
        case .sqlite(let path):
            return try SQLiteVaultServerStorage(path: path)
        case .postgres(let url):
            return try PostgresVaultServerStorage(url: url, options: .init(poolSize: max(1, poolSize)))
        }
    }

    /// The connection parameters whose values are credentials: masked wherever the location is
    /// printed (libpq reads `passfile` for passwords, so its name is masked too).
    static let credentialParameters: Set<String> = ["password", "sslpassword", "passfile"]

    /// Safe to print or log: a URL's password and every credential parameter
    /// (`credentialParameters`) are replaced by `***`.
    public var description: String {
        switch self {
        case .sqlite(let path):
            return "sqlite:\(path)"
        case .postgres(let url):
            guard var components = URLComponents(string: url) else { return "postgres://(unparsable URL)" }
            if components.password != nil { components.password = "***" }
            components.queryItems = components.queryItems?.map { item in
                Self.credentialParameters.contains(item.name.lowercased()) ? URLQueryItem(name: item.name, value: "***") : item
            }
            return components.string ?? "postgres://(unparsable URL)"
        }
    }

    /// `text` (an error message, which libpq may build from the URL's values) with every
    /// credential of this location replaced by `***`.
    public func redacting(_ text: String) -> String {
        guard case .postgres(let url) = self, let components = URLComponents(string: url) else { return text }
        var secrets = (components.queryItems ?? []).filter { Self.credentialParameters.contains($0.name.lowercased()) }
            .compactMap(\.value)
        if let password = components.password { secrets.append(password) }
        if let password = components.percentEncodedPassword { secrets.append(password) }
        var redacted = text
        for secret in secrets.filter({ !$0.isEmpty }).sorted(by: { $0.count > $1.count }) {
            redacted = redacted.replacingOccurrences(of: secret, with: "***")
        }
        return redacted
    }
}
