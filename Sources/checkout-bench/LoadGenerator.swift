import CheckoutJSON
import CheckoutLocking
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `checkout-bench --load-generator URL --api-key KEY [--connections N] [--seconds S] [--max-requests M]`:
/// the second process of the server benchmark.
///
/// Keeps N requests in flight over N kept-alive libcurl connections (`CurlLoadLoop`: one thread,
/// one multi handle; HTTPS with `--ca-bundle PEM`) to a loopback URL, each connection sending GET
/// requests back to back, for S seconds or M requests in all, whichever comes first. Prints one
/// JSON line: requests, errors, seconds and latency percentiles in microseconds. Refuses any host but loopback.
enum LoadGenerator {
    static let flag = "--load-generator"

    static func modeIndex(in arguments: [String]) -> Int? { arguments.firstIndex(of: flag) }

    struct Options: Sendable {
        var baseURL = URL(string: "http://127.0.0.1")!
        var caBundle: String?
        var pathAndQuery = "/"
        var apiKey = ""
        var connections = 8
        var seconds = 5.0
        var maxRequests = 1_000_000
    }

    struct Tally: Sendable {
        var requests = 0
        var errors = 0
        var statusErrors: [Int: Int] = [:]
        var latencies: [UInt32] = []
        var firstError: String?
    }

    static func main(_ arguments: [String]) async -> Int32 {
        let options: Options
        do {
            options = try parse(arguments)
        } catch {
            FileHandle.standardError.write(Data("checkout-bench --load-generator: \(error)\n".utf8))
            return 2
        }
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start + UInt64(options.seconds * 1e9)
        // The loop blocks: it runs on a thread of its own, never on a task's.
        let total = await onOwnThread { CurlLoadLoop.run(options, deadline: deadline) }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let sorted = total.latencies.sorted().map(Double.init)
        let report = ServerBench.LoadGeneratorOutput(requests: total.requests, errors: total.errors, seconds: seconds, connections: options.connections,
                                p50_us: Measure.percentile(sorted, 0.50), p90_us: Measure.percentile(sorted, 0.90),
                                p99_us: Measure.percentile(sorted, 0.99), max_us: sorted.last ?? 0,
                                statusErrors: Dictionary(uniqueKeysWithValues: total.statusErrors.map { (String($0.key), $0.value) }),
                                firstError: total.firstError ?? "")
        guard let data = try? JSONWriter.encode(report) else { return 1 }
        FileHandle.standardOutput.write(Data(data + [0x0A]))
        return 0
    }

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        guard let urlText = arguments.first, let url = URLComponents(string: urlText),
              url.scheme == "http" || url.scheme == "https",
              let host = url.host, let port = url.port, (1...65535).contains(port) else {
            throw UsageError(description: "expected http(s)://127.0.0.1:PORT/PATH as the first argument")
        }
        guard host == "127.0.0.1" || host == "localhost" else {
            throw UsageError(description: "loopback only: the host must be 127.0.0.1")
        }
        options.baseURL = URL(string: "\(url.scheme!)://\(host):\(port)")!
        options.pathAndQuery = (url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath)
            + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
        var index = 1
        func next() throws -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(description: "\(arguments[index - 1]) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--api-key": options.apiKey = try next()
            case "--ca-bundle": options.caBundle = try next()
            case "--connections":
                guard let value = Int(try next()), (1...256).contains(value) else {
                    throw UsageError(description: "--connections must be 1-256")
                }
                options.connections = value
            case "--seconds":
                guard let value = Double(try next()), value > 0, value <= 120 else {
                    throw UsageError(description: "--seconds must be in (0, 120]")
                }
                options.seconds = value
            case "--max-requests":
                guard let value = Int(try next()), value > 0, value <= 100_000_000 else {
                    throw UsageError(description: "--max-requests must be 1-100000000")
                }
                options.maxRequests = value
            default:
                throw UsageError(description: "unknown argument '\(arguments[index].prefix(40))'")
            }
            index += 1
        }
        return options
    }
}
