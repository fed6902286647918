// vault-server: the remote vault service as a process.
//
//   vault-server (--db PATH | --storage URL) [--port N] [--host ADDR] [--config FILE]
//                [--tls-cert PEM --tls-key PEM [--tls-priority GNUTLS-PRIORITY]] [--trusted-proxy CIDR]...
//                [--api-key-file PATH]... [--api-key KEY:MERCHANT]...
//
// Keys come from the config's apiKeys, every --api-key-file, CHECKOUTKIT_VAULT_API_KEYS and every
// --api-key, together; a configuration file is read only when --config names one.
//
// Prints `listening on http(s)://HOST:PORT` once ready; SIGTERM or SIGINT drain in-flight requests
// (new ones get 503) and exit 0. Exit 2 on usage errors (an invalid configuration, key or key file
// included), 1 when the server cannot start.
import CheckoutPlatform
import Foundation
import MicroHTTPServer
import VaultServer
import VaultServerPostgres

// Before any thread starts, so that a stop signal arriving at any moment waits for the end below.
ShutdownSignals.block()

/// The parsed command line.
struct ServerOptions {
    var database: String?
    var storage: String?
    var port: Int?
    var host: String?
    var configPath: String?
    var tlsCertificate: String?
    var tlsKey: String?
    var apiKeys: [(key: String, merchant: String)] = []
    var apiKeyFiles: [String] = []
    var tlsPriority: String?
    var trustedProxies: [String] = []
    var help = false
}

let usage = """
    usage: vault-server (--db PATH | --storage URL) [--port N] [--host ADDR] [--config FILE]
                        [--tls-cert PEM --tls-key PEM [--tls-priority GNUTLS-PRIORITY]] [--trusted-proxy CIDR]...
                        [--api-key-file PATH]... [--api-key KEY:MERCHANT]...

      --db PATH              SQLite database file (created if missing, mode 0600)
      --storage URL          postgres://USER@HOST:PORT/DB (several instances may share it) or sqlite:PATH;
                             default: the config's "storage". Leave the password out: libpq reads it from
                             PGPASSFILE (default ~/.pgpass) or PGPASSWORD
      --port N               TCP port; 0 picks a free one (default: the config's listen.port)
      --host ADDR            IPv4 or IPv6 literal to bind (default: the config's listen.host, 127.0.0.1)
      --config FILE          configuration JSON; without it none is read, and the built-in defaults apply
      --tls-cert PEM         serve HTTPS with this certificate chain (with --tls-key; default: the config's "tls")
      --tls-key PEM          the certificate's unencrypted private key (mode 0600 or stricter)
      --tls-priority TEXT    a GnuTLS priority string replacing the default profile (Mozilla's "intermediate":
                             TLS 1.3, and TLS 1.2 with ECDHE and AEAD suites only)
      --trusted-proxy CIDR   a proxy network whose Forwarded / X-Forwarded-For headers name the client that
                             limits count against (repeatable; default: the config's trustedProxies, else none)
      --api-key-file PATH    accept the keys in PATH: one KEY:MERCHANT a line, # comments (repeatable;
                             keeps keys out of argv; mode 0600 or stricter, else refused)
      --api-key KEY:MERCHANT accept KEY for MERCHANT (repeatable); KEY may be sha256:HEX, the lowercase hex
                             SHA-256 of the key, so the command line holds no key

    Keys also come from the environment variable CHECKOUTKIT_VAULT_API_KEYS (KEY:MERCHANT entries
    separated by newlines or commas) and from the config's apiKeys; all of them are accepted. A plain
    key must be at least 32 characters (make one with `openssl rand -hex 32`).
    """

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("vault-server: \(message)\n".utf8))
    exit(code)
}

func parse(_ arguments: [String]) -> ServerOptions {
    var options = ServerOptions()
    var iterator = arguments.makeIterator()
    func value(_ flag: String) -> String {
        guard let value = iterator.next() else { fail("\(flag) needs a value\n\(usage)", code: 2) }
        return value
    }
    while let argument = iterator.next() {
        switch argument {
        case "--db": options.database = value(argument)
        case "--storage": options.storage = value(argument)
        case "--port":
            guard let port = Int(value(argument)), (0...65535).contains(port) else { fail("--port must be 0–65535", code: 2) }
            options.port = port
        case "--host": options.host = value(argument)
        case "--config": options.configPath = value(argument)
        case "--tls-cert": options.tlsCertificate = value(argument)
        case "--tls-key": options.tlsKey = value(argument)
        case "--api-key":
            do {
                options.apiKeys.append(try APIKeyList.entry(Substring(value(argument)), source: "--api-key"))
            } catch {
                fail(error.message, code: 2)
            }
        case "--api-key-file": options.apiKeyFiles.append(value(argument))
        case "--tls-priority": options.tlsPriority = value(argument)
        case "--trusted-proxy": options.trustedProxies.append(value(argument))
        case "--help", "-h": options.help = true
        default: fail("unknown argument '\(argument.prefix(40))'\n\(usage)", code: 2)
        }
    }
    guard (options.tlsCertificate == nil) == (options.tlsKey == nil) else {
        fail("--tls-cert and --tls-key go together", code: 2)
    }
    return options
}

let options = parse(Array(CommandLine.arguments.dropFirst()))
if options.help {
    print(usage)
    exit(0)
}
var configuration: VaultServerConfiguration
do {
    // Only the file the operator names: a stray ./Config/vault-server.json is never picked up.
    if let path = options.configPath {
        configuration = try VaultServerConfiguration.load(from: URL(fileURLWithPath: path))
    } else {
        configuration = VaultServerConfiguration()
    }
} catch {
    fail(error.description, code: 2)
}
if let port = options.port { configuration.listen.port = port }
if let host = options.host { configuration.listen.host = host }
if let certificate = options.tlsCertificate, let key = options.tlsKey {
    configuration.tls = VaultServerConfiguration.TLS(certificate: certificate, privateKey: key,
                                                     priorities: configuration.tls?.priorities)
}
if let priority = options.tlsPriority {
    guard configuration.tls != nil else { fail("--tls-priority needs --tls-cert and --tls-key (or the config's tls)", code: 2) }
    configuration.tls?.priorities = priority
}
if !options.trustedProxies.isEmpty { configuration.trustedProxies = (configuration.trustedProxies ?? []) + options.trustedProxies }
do {
    for path in options.apiKeyFiles {
        if let refusal = SecretFile.refusal(path, what: "--api-key-file") { fail(refusal, code: 2) }
        guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read --api-key-file \(path)", code: 2) }
        let entries = try APIKeyList.parse(String(decoding: data, as: UTF8.self), source: "--api-key-file \(path)")
        try APIKeyList.merge(entries, into: &configuration.apiKeys)
    }
    if let text = ProcessInfo.processInfo.environment[APIKeyList.environmentVariable] {
        try APIKeyList.merge(try APIKeyList.parse(text, source: APIKeyList.environmentVariable), into: &configuration.apiKeys)
    }
    try APIKeyList.merge(options.apiKeys, into: &configuration.apiKeys)
    try configuration.validate()
} catch {
    fail(error.description, code: 2)
}
if configuration.apiKeys.isEmpty {
    fail("no API keys: pass --api-key-file PATH, set \(APIKeyList.environmentVariable), or pass --api-key KEY:MERCHANT", code: 2)
}

let location: VaultStorageLocation
do {
    location = try VaultStorageLocation.resolve(storageOption: options.storage, databaseOption: options.database,
                                                configured: configuration.storage)
} catch {
    fail("\(error.description)\n\(usage)", code: 2)
}
let storage: any VaultServerStorage
do {
    // One pooled PostgreSQL connection per worker thread; errors never contain the URL.
    storage = try location.open(poolSize: configuration.threads)
} catch {
    fail("cannot open the storage \(location): \(location.redacting(String(describing: error)))", code: 1)
}

let server = VaultServer(configuration: configuration, storage: storage)
let port: Int
do {
    port = try server.start()
} catch {
    fail(error.description, code: 1)
}

let displayHost = configuration.listen.host.contains(":") ? "[\(configuration.listen.host)]" : configuration.listen.host
// Unbuffered: the line reaches a parent process reading the pipe at once.
let scheme = server.isTLS ? "https" : "http"
FileHandle.standardOutput.write(Data("listening on \(scheme)://\(displayHost):\(port)\n".utf8))
// The server runs on its own threads; this one waits for SIGTERM or SIGINT, then drains.
_ = ShutdownSignals.wait()
server.drain(timeout: .seconds(10))
exit(0)
