// vault-server: the remote vault service as a process.
//
//   vault-server (--db PATH | --storage URL) [--port N] [--host ADDR] [--config FILE]
//                [--tls-cert PEM --tls-key PEM] [--api-key KEY:MERCHANT]...
//
// Prints `listening on http(s)://HOST:PORT` once ready; SIGTERM or SIGINT drain in-flight requests
// (new ones get 503) and exit 0. Exit 2 on usage errors, 1 when the server cannot start.
import Dispatch
import Foundation
import VaultServer
import VaultServerPostgres

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
    var help = false
}

let usage = """
    usage: vault-server (--db PATH | --storage URL) [--port N] [--host ADDR] [--config FILE]
                        [--tls-cert PEM --tls-key PEM] [--api-key KEY:MERCHANT]...

      --db PATH              SQLite database file (created if missing)
      --storage URL          postgres://USER@HOST:PORT/DB (several instances may share it) or sqlite:PATH;
                             default: the config's "storage"
      --port N               TCP port; 0 picks a free one (default: the config's listen.port)
      --host ADDR            IPv4 or IPv6 literal to bind (default: the config's listen.host, 127.0.0.1)
      --config FILE          configuration JSON (default: Config/vault-server.json when it exists)
      --tls-cert PEM         serve HTTPS with this certificate chain (with --tls-key; default: the config's "tls")
      --tls-key PEM          the certificate's unencrypted private key
      --api-key KEY:MERCHANT accept KEY for MERCHANT, besides the config's keys (repeatable); KEY may be
                             sha256:HEX, the lowercase hex SHA-256 of the key, so the command line holds no key
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
            let text = value(argument)
            guard let colon = text.lastIndex(of: ":"), colon != text.startIndex, text.index(after: colon) != text.endIndex else {
                fail("--api-key expects KEY:MERCHANT", code: 2)
            }
            options.apiKeys.append((String(text[..<colon]), String(text[text.index(after: colon)...])))
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
    if let path = options.configPath {
        configuration = try VaultServerConfiguration.load(from: URL(fileURLWithPath: path))
    } else if FileManager.default.fileExists(atPath: "Config/vault-server.json") {
        configuration = try VaultServerConfiguration.load(from: URL(fileURLWithPath: "Config/vault-server.json"))
    } else {
        configuration = VaultServerConfiguration()
    }
} catch {
    fail(error.description, code: 1)
}
if let port = options.port { configuration.listen.port = port }
if let host = options.host { configuration.listen.host = host }
if let certificate = options.tlsCertificate, let key = options.tlsKey {
    configuration.tls = VaultServerConfiguration.TLS(certificate: certificate, privateKey: key)
}
for entry in options.apiKeys { configuration.apiKeys[entry.key] = entry.merchant }
do {
    try configuration.validate()
} catch {
    fail(error.description, code: 2)
}
if configuration.apiKeys.isEmpty { fail("no API keys: pass --api-key KEY:MERCHANT or a config with apiKeys", code: 2) }

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
    fail("cannot open the storage \(location): \(error)", code: 1)
}

let server = VaultServer(configuration: configuration, storage: storage)
let port: Int
do {
    port = try server.start()
} catch {
    fail(error.description, code: 1)
}

/// Installs SIGTERM/SIGINT handlers that drain the server and exit 0.
///
/// Outside top-level code on purpose: closures formed there are main-actor isolated, and a
/// Dispatch signal handler runs on its own queue, so it must not inherit that isolation.
enum ShutdownSignals {
    static func install(draining server: VaultServer) -> [any DispatchSourceSignal] {
        // Signals are delivered through Dispatch, not through an async-signal-unsafe handler.
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        let queue = DispatchQueue(label: "vault-server.signals")
        return [SIGTERM, SIGINT].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { @Sendable in
                server.drain(timeout: .seconds(10))
                exit(0)
            }
            source.resume()
            return source
        }
    }
}

let signalSources = ShutdownSignals.install(draining: server)

let displayHost = configuration.listen.host.contains(":") ? "[\(configuration.listen.host)]" : configuration.listen.host
// Unbuffered: the line reaches a parent process reading the pipe at once.
let scheme = server.isTLS ? "https" : "http"
FileHandle.standardOutput.write(Data("listening on \(scheme)://\(displayHost):\(port)\n".utf8))
withExtendedLifetime(signalSources) { dispatchMain() }
