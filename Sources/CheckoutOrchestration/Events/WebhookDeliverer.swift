import CheckoutCore
import CheckoutLocking
import Foundation
import HTTPTransport

/// Delivers the ledger's outbox events to one webhook endpoint: signed, retried, never a storm.
///
/// Protocol, per event: `POST` its `body` (exact bytes) to the endpoint with
/// `Content-Type: application/json`, `CheckoutKit-Signature: t=<unix>,v1=<hex>` (`WebhookSigner`)
/// and `CheckoutKit-Event-Id: <event id>`. A 2xx answer is delivered (`markDelivered`). Anything
/// else (another status, a timeout, a refused or cut connection) is a failed attempt: the event
/// is rescheduled after `RetryPolicy`'s exponential, jittered wait (`scheduleRetry`), or
/// abandoned once the next attempt would be more than `maxAge` (24 h) after the event was
/// created (`markAbandoned`). A delivery may arrive more than once (an answer lost after the
/// receiver handled it): receivers de-duplicate by event id (`WebhookDeduplicator`).
///
/// A body in which `CardNumberDetector` finds what looks like a card number is never sent: the
/// event is abandoned at once with that reason.
///
/// Bounds: one pass takes at most `batchSize` due events and has at most
/// `maxConcurrentDeliveries` in flight. Once a delivery of a pass fails, the pass starts no
/// further ones (the endpoint is in trouble; the rest stay due, untried), and `run()` waits the
/// policy's growing backoff between passes that delivered nothing, so a dead endpoint sees a
/// handful of requests per backoff period, never one per event. All waits and timestamps come
/// from the injected clocks (a `TestClock` and its `wallClock` in tests); transport is `HTTPTransport`
/// (libcurl: TLS verified, plain HTTP only to loopback).
///
/// ```swift
/// let deliverer = WebhookDeliverer(outbox: ledger, configuration: .init(endpoint: url, secret: secret))
/// let task = Task { await deliverer.run() }   // until cancelled
/// ```
public final class WebhookDeliverer: Sendable {
    /// What one pass did.
    public struct PassReport: Sendable, Equatable {
        /// Events answered 2xx.
        public var delivered: Int = 0
        /// Events that failed and were rescheduled.
        public var retried: Int = 0
        /// Events given up on (past `maxAge`).
        public var abandoned: Int = 0
        /// Due events left untried because an earlier delivery of the pass failed.
        public var deferred: Int = 0
        /// Outbox calls that failed (the events stay as they were and are tried again).
        public var outboxErrors: Int = 0

        /// Creates a report.
        public init() {}
    }

    private let outbox: any WebhookOutbox
    private let configuration: WebhookDeliveryConfiguration
    private let clock: any Clock<Duration>
    private let wallClock: WallClock
    private let transport: HTTPTransport
    private let path: String
    private let signer: WebhookSigner
    private let random: Locked<RetryPolicy.Generator>

    /// A deliverer of `outbox`'s events: it waits on `clock` between passes and judges what is due
    /// by `wallClock`; `seed` fixes the jitter (tests), nil seeds it from the system.
    public init(outbox: any WebhookOutbox, configuration: WebhookDeliveryConfiguration,
                clock: any Clock<Duration> = ContinuousClock(), wallClock: WallClock = .system, seed: UInt64? = nil) {
        self.outbox = outbox
        self.configuration = configuration
        self.clock = clock
        self.wallClock = wallClock
        let (base, path) = Self.split(configuration.endpoint)
        self.path = path
        var transportConfiguration = configuration.transport
        transportConfiguration.maxConnections = configuration.maxConcurrentDeliveries
        transport = HTTPTransport(baseURL: base, configuration: transportConfiguration)
        signer = WebhookSigner(secret: configuration.secret)
        random = Locked(seed.map(RetryPolicy.Generator.init(seed:)) ?? RetryPolicy.Generator())
    }

    /// Throws the error every delivery would fail with: an unusable endpoint URL (plain HTTP to
    /// a remote host, no host, ...) or TLS settings.
    public func validate() throws(HTTPTransportError) {
        try transport.validate()
    }

    /// Delivers until the calling task is cancelled: a pass, then `pollInterval` (or, after a
    /// pass that only failed, the policy's backoff for that many failing passes in a row).
    public func run() async {
        var failingPasses = 0
        while !Task.isCancelled {
            let report = await deliverDue()
            let failed = report.retried + report.abandoned > 0 && report.delivered == 0
            failingPasses = failed ? failingPasses + 1 : 0
            var wait = configuration.pollInterval
            if failingPasses > 0 {
                let backoff = random.withLock { configuration.retry.delay(afterFailures: failingPasses, retryAfter: nil, using: &$0) }
                wait = max(wait, backoff)
            }
            do { try await clock.sleep(for: wait) } catch { return }
        }
    }

    /// One pass: takes the due events (at most `batchSize`) and delivers them, at most
    /// `maxConcurrentDeliveries` at once, stopping to start new ones after the first failure.
    @discardableResult
    public func deliverDue() async -> PassReport {
        var report = PassReport()
        let due: [OutboxEntry]
        do {
            due = try await outbox.dueEvents(now: wallClock.now, limit: configuration.batchSize)
        } catch {
            report.outboxErrors += 1
            return report
        }
        var pending = due[...]
        var stopStarting = false
        await withTaskGroup(of: Outcome.self) { group in
            var inFlight = 0
            while true {
                while !stopStarting, inFlight < configuration.maxConcurrentDeliveries, let entry = pending.popFirst() {
                    group.addTask { await self.deliver(entry) }
                    inFlight += 1
                }
                guard let outcome = await group.next() else { break }
                inFlight -= 1
                switch outcome {
                case .delivered: report.delivered += 1
                case .retried: report.retried += 1; stopStarting = true
                case .abandoned: report.abandoned += 1; stopStarting = true
                case .outboxFailed: report.outboxErrors += 1
                }
            }
        }
        report.deferred = pending.count
        return report
    }

    private enum Outcome: Sendable { case delivered, retried, abandoned, outboxFailed }

    /// One attempt at one event, and its bookkeeping in the outbox.
    private func deliver(_ entry: OutboxEntry) async -> Outcome {
        let event = entry.event
        let body = [UInt8](event.body)
        // The ledger checks every event it writes; this is the last line: a body that looks like it
        // holds a card number never leaves the process, however it got into the outbox.
        if CardNumberDetector.containsCardNumber(String(decoding: body, as: UTF8.self)) {
            do {
                try await outbox.markAbandoned(eventId: event.id, at: wallClock.now,
                                               lastError: "not sent: the body holds what looks like a card number")
                return .abandoned
            } catch {
                return .outboxFailed
            }
        }
        let signature = signer.sign(body: body, at: wallClock.now)
        let request = HTTPRequest(method: "POST", path: path, headers: [
            HTTPHeaderField(name: "Content-Type", value: "application/json"),
            HTTPHeaderField(name: WebhookSignature.headerName, value: signature.headerValue),
            HTTPHeaderField(name: WebhookSignature.eventIdHeaderName, value: event.id),
            HTTPHeaderField(name: "User-Agent", value: "CheckoutKit-Webhooks/1"),
        ], body: body)
        let failure: String
        var retryAfter: Duration?
        do {
            let response = try await transport.send(request)
            if (200..<300).contains(response.status) {
                do {
                    try await outbox.markDelivered(eventId: event.id, at: wallClock.now)
                    return .delivered
                } catch {
                    return .outboxFailed
                }
            }
            failure = "the endpoint answered HTTP \(response.status)"
            retryAfter = response.header("Retry-After").flatMap { Int($0) }.map { .seconds(max(0, $0)) }
        } catch {
            failure = "delivery failed: \(error.code) (\(error.message))"
        }
        let attempts = entry.attempts + 1
        let wait = random.withLock { configuration.retry.delay(afterFailures: attempts, retryAfter: retryAfter, using: &$0) }
        let current = wallClock.now
        let next = current.addingTimeInterval(wait.inSeconds)
        do {
            if next.timeIntervalSince(event.createdAt) > configuration.maxAge {
                try await outbox.markAbandoned(eventId: event.id, at: current,
                                               lastError: failure + "; abandoned after \(attempts) attempts")
                return .abandoned
            }
            try await outbox.scheduleRetry(eventId: event.id, attempts: attempts, nextAttemptAt: next, lastError: failure)
            return .retried
        } catch {
            return .outboxFailed
        }
    }

    /// The endpoint as the transport's base (scheme, host, port) and the request path (path and query).
    private static func split(_ url: URL) -> (base: URL, path: String) {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return (url, "/") }
        var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { path += "?" + query }
        components.percentEncodedPath = ""
        components.percentEncodedQuery = nil
        components.fragment = nil
        return (components.url ?? url, path)
    }
}
