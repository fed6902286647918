import CheckoutLocking
import CheckoutOrchestration
import Foundation
import MicroHTTPServer

/// A local webhook receiver on `MicroHTTPServer`, as a merchant would write one: verifies the
/// signature, de-duplicates by event id with `WebhookDeduplicator`, and fails on a script.
final class WebhookReceiver: Sendable {
    /// How the receiver answers the n-th delivery it gets (0-based); beyond the script it succeeds.
    enum Failure: Sendable {
        /// 503 before handling anything (with `Retry-After` seconds when given).
        case unavailable(retryAfter: Int?)
        /// Handles the event, then answers 500 (the sender cannot know it was handled).
        case failAfterHandling
    }

    struct Delivery: Sendable {
        let eventId: String?
        let signatureVerified: Bool
        let status: Int
    }

    private struct State {
        var deliveries: [Delivery] = []
        var handled: [String: Int] = [:]
    }

    let secret: [UInt8]
    private let script: [Failure]
    private let dedup = WebhookDeduplicator()
    private let state = Locked(State())
    private let now: @Sendable () -> Date
    private let server: MicroHTTPServer
    let port: Int

    init(secret: [UInt8], failing script: [Failure], now: @escaping @Sendable () -> Date) throws {
        self.secret = secret
        self.script = script
        self.now = now
        let holder = Locked<WebhookReceiver?>(nil)
        let server = MicroHTTPServer { request in
            guard let receiver = holder.withLock({ $0 }) else { return ServedResponse(status: 503) }
            return receiver.receive(request)
        }
        self.server = server
        port = try server.start()
        holder.withLock { $0 = self }
    }

    func stop() { server.stop() }

    var deliveries: [Delivery] { state.withLock { $0.deliveries } }
    /// How many times the receiver's own handler ran per event id.
    var handledCounts: [String: Int] { state.withLock { $0.handled } }

    private func receive(_ request: ServedRequest) -> ServedResponse {
        let eventId = request.header(WebhookSignature.eventIdHeaderName)
        let verified = (try? WebhookSigner.verify(signature: request.header(WebhookSignature.headerName) ?? "", body: request.body,
                                                  secret: secret, tolerance: 300, now: now())) != nil
        let index = state.withLock { $0.deliveries.count }
        let failure = index < script.count ? script[index] : nil
        var status = 200
        var headers: [(name: String, value: String)] = []
        if !verified || eventId == nil {
            status = 400
        } else if case .unavailable(let retryAfter)? = failure {
            status = 503
            if let retryAfter { headers.append(("Retry-After", String(retryAfter))) }
        } else if let eventId {
            do {
                _ = try dedup.handleOnce(eventId: eventId, now: now()) {
                    state.withLock { $0.handled[eventId, default: 0] += 1 }
                }
                if case .failAfterHandling? = failure { status = 500 }
            } catch {
                status = 409
            }
        }
        state.withLock { $0.deliveries.append(Delivery(eventId: eventId, signatureVerified: verified, status: status)) }
        return ServedResponse(status: status, headers: headers)
    }
}
