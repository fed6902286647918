import CheckoutKit
import Foundation
import MicroHTTPServer

/// How `checkout serve` runs: where it listens, the merchants' keys, how long a checkout lives, and the limits.
///
/// Plain HTTP is served only on a loopback address; anywhere else the server needs a certificate and key
/// (`HostedCheckoutServer.start()` refuses otherwise).
public struct HostedCheckoutConfiguration: Sendable {
    /// The address to listen on (default `127.0.0.1`).
    public var host: String
    /// The port (0 picks a free one; `HostedCheckoutServer.start()` returns it).
    public var port: Int
    /// PEM files of the certificate chain and private key; nil serves plain HTTP (loopback only).
    public var tls: (certificate: String, privateKey: String)?
    /// The base of the checkout URLs handed to merchants (e.g. `https://pay.example.com`); nil uses the
    /// address listened on.
    public var publicURL: String?
    /// Merchant API keys: key (or `sha256:` + its hex digest) -> merchant id, as the vault server reads them.
    public var apiKeys: [String: String]
    /// How long a new checkout stays open unless its request asks for less.
    public var checkoutLifetime: Duration
    /// The most checkouts open at once; a create beyond it is refused with 503.
    public var maxOpenCheckouts: Int
    /// Requests per second each client address may make (with a burst of 10 seconds' worth).
    public var requestsPerSecondPerAddress: Double
    /// Payment attempts (submits) per minute on one checkout (with a burst of 5).
    public var attemptsPerMinutePerCheckout: Double
    /// Worker threads of the HTTP server.
    public var threads: Int
    /// Deadlines on a request's head and body, and eviction of slow clients when the connection table fills.
    public var slowClientLimits: ConnectionWatch.Limits
    /// Connections one client address may hold.
    public var maxConnectionsPerAddress: Int
    /// Serve `GET /return?checkout_id=ID`, a stand-in for a merchant's return page that shows the checkout's
    /// outcome (`--demo` and tests point `successUrl` and `cancelUrl` at it).
    public var servesReturnPage: Bool

    public init(host: String = "127.0.0.1", port: Int = 0, tls: (certificate: String, privateKey: String)? = nil,
                publicURL: String? = nil, apiKeys: [String: String] = [:], checkoutLifetime: Duration = .seconds(3600),
                maxOpenCheckouts: Int = 100_000, requestsPerSecondPerAddress: Double = 20, attemptsPerMinutePerCheckout: Double = 6,
                threads: Int = 4, servesReturnPage: Bool = false,
                slowClientLimits: ConnectionWatch.Limits = HostedCheckoutConfiguration.slowClients, maxConnectionsPerAddress: Int = 64) {
        self.host = host
        self.port = port
        self.tls = tls
        self.publicURL = publicURL
        self.apiKeys = apiKeys
        self.checkoutLifetime = checkoutLifetime
        self.maxOpenCheckouts = maxOpenCheckouts
        self.requestsPerSecondPerAddress = requestsPerSecondPerAddress
        self.attemptsPerMinutePerCheckout = attemptsPerMinutePerCheckout
        self.threads = threads
        self.servesReturnPage = servesReturnPage
        self.slowClientLimits = slowClientLimits
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
    }

    /// A shopper's browser sends a head and a small form at once; a client that trickles them holds a slot for seconds,
    /// and when the table (1,024) fills past 896 the slowest waiting heads make room for new clients.
    public static let slowClients = ConnectionWatch.Limits(headTimeout: .seconds(10), requestTimeout: .seconds(20),
                                                           idleTimeout: .seconds(30), minBodyBytesPerSecond: 512,
                                                           bodyRateGrace: .seconds(5), softLimit: 1024 - 128)
}

/// Why the hosted checkout cannot start.
public struct HostedCheckoutError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
