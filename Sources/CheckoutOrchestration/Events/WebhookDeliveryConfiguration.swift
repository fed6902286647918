import CheckoutCore
import Foundation
import HTTPTransport

/// Where and how `WebhookDeliverer` delivers: the endpoint, its secret, the retry schedule and
/// the bounds that keep a failing endpoint from being flooded.
public struct WebhookDeliveryConfiguration: Sendable {
    /// The receiver's URL (`https://…`, or `http://` to loopback only: `HTTPTransport` refuses
    /// plain HTTP elsewhere unless `transport.allowInsecureHTTP` opts in).
    public var endpoint: URL
    /// The shared secret the signature is made with (32 random bytes is right).
    public var secret: [UInt8]
    /// The wait after each failed delivery of one event: exponential, capped, full jitter, and
    /// never shorter than the receiver's `Retry-After`. The default starts at 5 s and caps at 1 h.
    public var retry: RetryPolicy
    /// How long an event is retried, counted from its `createdAt`: then it is abandoned (kept in
    /// the outbox as abandoned, with its last error). 24 hours by default.
    public var maxAge: TimeInterval
    /// The most deliveries in flight at once (also the transport's connection limit).
    public var maxConcurrentDeliveries: Int
    /// The most events one pass takes from the outbox.
    public var batchSize: Int
    /// How often `run()` looks for due events while everything succeeds.
    public var pollInterval: Duration
    /// Timeouts, TLS (CA bundle, pins) and bounds of the HTTP exchanges.
    public var transport: HTTPTransportConfiguration

    /// Creates a configuration; only the endpoint and secret have no default.
    public init(endpoint: URL, secret: [UInt8],
                retry: RetryPolicy = RetryPolicy(baseDelay: .seconds(5), maxDelay: .seconds(3600), maxAttempts: 1,
                                                 maxRetryAfter: .seconds(3600)),
                maxAge: TimeInterval = 24 * 3600, maxConcurrentDeliveries: Int = 4, batchSize: Int = 64,
                pollInterval: Duration = .seconds(1),
                transport: HTTPTransportConfiguration = HTTPTransportConfiguration(timeout: 10, exchangeTimeout: 30,
                                                                                  maxBodyBytes: 64 * 1024)) {
        self.endpoint = endpoint
        self.secret = secret
        self.retry = retry
        self.maxAge = max(0, maxAge)
        self.maxConcurrentDeliveries = max(1, maxConcurrentDeliveries)
        self.batchSize = max(1, batchSize)
        self.pollInterval = max(.milliseconds(1), pollInterval)
        self.transport = transport
    }
}
