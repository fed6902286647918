import CheckoutJSON
import CheckoutOrchestration
import CheckoutPlatform
import Foundation
import MicroHTTPServer

// Before any thread starts, so that a stop signal arriving at any moment waits for the end below.
ShutdownSignals.block()

// sandbox-psp: the processor API (Config/processor-api.openapi.yaml) on libmicrohttpd, answering
// with the scripted sandbox's rules, so the router, its faults and its ledger can be tested
// across a process boundary.

let usage = """
usage: sandbox-psp [--host ADDR] [--port N] [--name NAME] [--behaviour JSON]
                   [--tls-cert PEM --tls-key PEM] [--threads N]
  --host       address to bind (default 127.0.0.1)
  --port       port (default 8443; 0 picks a free one)
  --name       the sandbox's name, prefixed to its token and payment ids (default sandbox-psp)
  --behaviour  the scripted behaviour, as a routing file's "behaviour" object, e.g.
               '{"createPayment": "processor-error"}'; values: \(SandboxBehaviourValue.allCodes.joined(separator: ", "))
  --tls-cert, --tls-key  serve HTTPS with this certificate chain and key (PEM)
Prints "listening on http(s)://HOST:PORT" once ready; SIGTERM or SIGINT stops it.
"""

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("sandbox-psp: \(message)\n".utf8))
    exit(status)
}

var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--help" || argument == "-h" { print(usage); exit(0) }
    guard ["--host", "--port", "--name", "--behaviour", "--tls-cert", "--tls-key", "--threads"].contains(argument) else {
        fail("unknown option \(argument)\n\(usage)", status: 2)
    }
    guard let value = arguments.popFirst() else { fail("\(argument) needs a value", status: 2) }
    options[argument] = value
}

var behaviour = SandboxBehaviour()
if let text = options["--behaviour"] {
    do {
        behaviour = try JSONReader.decode(SandboxBehaviour.self, from: text)
    } catch {
        fail("--behaviour is not a behaviour object (operations createPayment, resumePayment, attemptStatus, paymentStatus; values \(SandboxBehaviourValue.allCodes.joined(separator: ", ")))", status: 2)
    }
}
guard let port = Int(options["--port"] ?? "8443"), (0...65535).contains(port) else { fail("--port must be 0-65535", status: 2) }
guard let threads = Int(options["--threads"] ?? "4"), (1...64).contains(threads) else { fail("--threads must be 1-64", status: 2) }
var tls: (certificate: String, privateKey: String)?
switch (options["--tls-cert"], options["--tls-key"]) {
case (let certificate?, let key?): tls = (certificate, key)
case (nil, nil): tls = nil
default: fail("--tls-cert and --tls-key go together", status: 2)
}
let host = options["--host"] ?? "127.0.0.1"
let name = options["--name"] ?? "sandbox-psp"

let service = SandboxPSPService(processor: ScriptedSandboxProcessor(name: name, behaviour: behaviour))
let server = MicroHTTPServer(configuration: .init(host: host, port: port, threads: threads, tls: tls)) { request in
    await service.handle(request)
}
service.server.withLock { $0 = server }
let bound: Int
do {
    bound = try server.start()
} catch {
    fail(error.description, status: 1)
}
let shown = host.contains(":") ? "[\(host)]" : host
FileHandle.standardOutput.write(Data("listening on \(tls == nil ? "http" : "https")://\(shown):\(bound)\n".utf8))

// The server runs on its own threads; this one waits for SIGTERM or SIGINT.
_ = ShutdownSignals.wait()
server.stop()
exit(0)
