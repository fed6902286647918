import CheckoutTestSupport
#if canImport(Glibc)
import Glibc
#endif
import CheckoutLocking
import Foundation

/// A loopback TCP relay in front of the vault server when it speaks HTTPS: the fault proxy for
/// encrypted traffic. It cannot read the requests (that is the point of TLS), so it injects its
/// faults on the byte stream of each connection, drawn on a seeded schedule when the connection
/// is accepted: refuse it, cut it inside the TLS handshake, cut the request on its way to the
/// server, cut the response on its way back (the server may have applied the batch), or delay
/// every chunk and cut it later. A kept-alive connection carries many requests, so one cut can
/// land in any of them; while faults are on, every connection ends in one (`faultPercent`
/// 100, the default), or a share of them passes untouched.
final class TLSFaultRelay: Sendable {
    enum Fault: String, CaseIterable, Sendable {
        case pass, refuse, cutHandshake, cutRequest, cutResponse, delay
    }

    /// What happens to one connection.
    private struct Plan: Sendable {
        var fault: Fault
        /// Bytes relayed towards the server before the connection is cut (nil: no limit).
        var upstreamBudget: Int?
        /// Bytes relayed towards the client before the connection is cut (nil: no limit).
        var downstreamBudget: Int?
        var delayMicros: UInt32
    }

    private struct State {
        var random: SeededRandom
        var enabled = true
        var counts: [Fault: Int] = [:]
        /// The faults still to come in this round of the bag (every kind once per round).
        var bag: [Fault] = []
    }

    var port: UInt16 { listener.port }
    private let upstreamPort: UInt16
    private let listener: ProxyListener
    private let faultPercent: Int
    private let state: Locked<State>

    init(upstreamPort: UInt16, seed: UInt64, faultPercent: Int = 100) throws {
        self.upstreamPort = upstreamPort
        self.faultPercent = faultPercent
        state = Locked(State(random: SeededRandom(seed: seed)))
        listener = try ProxyListener()
        listener.start { [self] client in relay(client) }
    }

    deinit { stop() }

    /// Turns fault injection on or off (off: every connection passes untouched).
    func setFaults(enabled: Bool) { state.withLock { $0.enabled = enabled } }

    /// How often each fault was drawn.
    var counts: [Fault: Int] { state.withLock { $0.counts } }

    /// Stops accepting and cuts every relayed connection (safe to call twice).
    func stop() { listener.stop() }

    private func plan() -> Plan {
        state.withLock { state in
            let delay = UInt32(1_000 + state.random.below(20_000))
            guard state.enabled, state.random.below(100) < faultPercent else {
                state.counts[.pass, default: 0] += 1
                return Plan(fault: .pass, delayMicros: delay)
            }
            let fault = state.random.draw(from: &state.bag, refill: Array(Fault.allCases.dropFirst()))
            state.counts[fault, default: 0] += 1
            switch fault {
            case .cutHandshake:
                // The server's first flight (hello, certificate, ...) is about a kilobyte.
                return Plan(fault: fault, downstreamBudget: 1 + state.random.below(600), delayMicros: delay)
            case .cutRequest:
                return Plan(fault: fault, upstreamBudget: 400 + state.random.below(6_000), delayMicros: delay)
            case .cutResponse:
                return Plan(fault: fault, downstreamBudget: 1_200 + state.random.below(20_000), delayMicros: delay)
            case .delay:
                return Plan(fault: fault, downstreamBudget: 20_000 + state.random.below(200_000), delayMicros: delay)
            default:
                return Plan(fault: fault, delayMicros: delay)
            }
        }
    }

    /// Relays one accepted connection to the server according to its plan.
    private func relay(_ client: Int32) {
        let plan = plan()
        guard plan.fault != .refuse, let upstream = try? RawHTTP.connect(port: upstreamPort) else {
            listener.unregister(client)
            return
        }
        guard listener.register(upstream) else {
            close(upstream)
            listener.unregister(client)
            return
        }
        RawHTTP.setTimeouts(client, seconds: 30)
        // One thread per direction; the first to end cuts both sockets, which ends the other.
        let done = Locked(0)
        let finish: @Sendable () -> Void = { [self] in
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(upstream, Int32(SHUT_RDWR))
            let last = done.withLock { count -> Bool in
                count += 1
                return count == 2
            }
            if last {
                listener.unregister(client)
                listener.unregister(upstream)
            }
        }
        Thread { Self.pump(from: client, to: upstream, budget: plan.upstreamBudget, plan: plan); finish() }.start()
        Thread { Self.pump(from: upstream, to: client, budget: plan.downstreamBudget, plan: plan); finish() }.start()
    }

    /// Copies bytes until either side ends or `budget` bytes have gone through.
    private static func pump(from source: Int32, to destination: Int32, budget: Int?, plan: Plan) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var relayed = 0
        while true {
            let count = recv(source, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            if plan.fault == .delay { usleep(plan.delayMicros) }
            var chunk = Array(buffer.prefix(count))
            if let budget {
                chunk = Array(chunk.prefix(max(0, budget - relayed)))
            }
            relayed += chunk.count
            guard chunk.isEmpty || RawHTTP.writeAll(destination, chunk) else { return }
            if let budget, relayed >= budget { return }
        }
    }
}
