import CheckoutCore
import CheckoutJSON
import Foundation

/// The vault server's settings, as read from `Config/vault-server.json`.
///
/// Every field of the file is required (no silent defaults) except those documented as optional
/// (`tls`, `storage`, `apiKeys`, and the limits `idleConnectionTimeoutSeconds`,
/// `maxConnectionsPerIP`, `requestTimeoutSeconds` and the rate limits per customer, per address
/// and of failed authentication, each with a documented default); the initializer's defaults
/// serve code that builds a configuration directly, such as tests and `vault-server` without
/// `--config`. Rate limiting is on by default, at rates real clients never reach.
public struct VaultServerConfiguration: Codable, Sendable, Equatable {
    /// Where to listen.
    public struct Listen: Codable, Sendable, Equatable {
        /// An IPv4 or IPv6 literal; loopback by default.
        public var host: String
        /// The TCP port; 0 picks a free one.
        public var port: Int

        /// Creates a listen address (loopback, port 8080 by default).
        public init(host: String = "127.0.0.1", port: Int = 8080) {
            self.host = host
            self.port = port
        }
    }

    /// Caps that protect the server from oversized or abusive requests.
    public struct Limits: Codable, Sendable, Equatable {
        /// The largest accepted request body; larger bodies get 413.
        public var maxBodyBytes: Int
        /// The largest page of the change feed; a larger `limit` is lowered to this.
        public var maxPageSize: Int
        /// The page size when the request names none.
        public var defaultPageSize: Int
        /// The most ops one batch may carry; more get 413.
        public var maxOpsPerBatch: Int
        /// Sustained requests per second per merchant; 0 disables this limit (not recommended).
        /// `defaultRateLimitPerSecond` when the configuration is built in code.
        public var rateLimitPerSecond: Double
        /// Requests a merchant may burst above the sustained rate (`defaultRateLimitBurst`).
        public var rateLimitBurst: Int
        /// Seconds a kept-alive connection may sit idle before the server closes it. Optional in
        /// the file; absent means `defaultIdleConnectionTimeoutSeconds`. Set it above the idle
        /// timeout of any load balancer or client pool in front of the server.
        public var idleConnectionTimeoutSeconds: Int?
        /// Connections one client address may hold open at once; more are closed as soon as they
        /// are accepted. Optional in the file; absent means `defaultMaxConnectionsPerIP`, well below
        /// `maxConnections` so that a few addresses cannot fill the table. Raise it when many
        /// clients reach the server through one proxy address.
        public var maxConnectionsPerIP: Int?
        /// Seconds a request may take to arrive, from its request line to the last byte of its
        /// body; a slower one is closed (408 `request-timeout` when its head arrives late). The head
        /// alone has `headTimeoutSeconds`, when that is shorter. Optional
        /// in the file; absent means `defaultRequestTimeoutSeconds`.
        public var requestTimeoutSeconds: Int?
        /// Seconds a connection may take to deliver a whole request head (on a new connection, from
        /// its accept, TLS handshake included), however slowly its bytes trickle in; a later head
        /// closes the connection (a plain-HTTP client gets 408 first). Optional in the file; absent
        /// means `defaultHeadTimeoutSeconds`.
        public var headTimeoutSeconds: Int?
        /// The slowest average rate, in bytes per second, at which a request body may arrive once its
        /// first 5 seconds have passed; a slower one is closed. Optional in the file; absent means
        /// `defaultMinBodyBytesPerSecond`.
        public var minBodyBytesPerSecond: Int?
        /// Ops one ephemeral (device) key may write per hour, sustained (each may leave a tombstone
        /// and an op record behind); 0 disables. Optional; absent means `defaultDeviceWriteOpsPerHour`.
        public var deviceWriteOpsPerHour: Double?
        /// Ops one device key may write at once; at least `maxOpsPerBatch`. Absent means
        /// `defaultDeviceWriteOpsBurst`.
        public var deviceWriteOpsBurst: Int?
        /// Ops one customer may have written per hour, by any caller; 0 disables. Optional;
        /// absent means `defaultCustomerWriteOpsPerHour`.
        public var customerWriteOpsPerHour: Double?
        /// Ops one customer may have written at once; at least `maxOpsPerBatch`. Absent means
        /// `defaultCustomerWriteOpsBurst`.
        public var customerWriteOpsBurst: Int?
        /// Tombstones one customer keeps; past it the oldest are purged early (older cursors then
        /// expire with 410, as after the retention). Optional; absent means 10,000.
        public var maxTombstonesPerCustomer: Int?
        /// Op records one customer keeps; past it the oldest are purged early (a replay of such an
        /// op is judged by its versions). Optional; absent means 10,000.
        public var maxOpRecordsPerCustomer: Int?
        /// Seconds an op's recorded outcome is kept, so that a replay of the op is answered with it
        /// instead of being applied again. A replay after this window is judged by the row versions
        /// it carries, like any new op. Optional; absent means `defaultOpRecordRetentionSeconds`.
        public var opRecordRetentionSeconds: Double?
        /// Sustained requests per second per customer of a merchant (a device's ephemeral key
        /// reaches one customer, so this bounds a key too); 0 disables. Optional in the file;
        /// absent means `defaultCustomerRateLimitPerSecond`.
        public var customerRateLimitPerSecond: Double?
        /// Requests one customer may burst; absent means `defaultCustomerRateLimitBurst`.
        public var customerRateLimitBurst: Int?
        /// Sustained requests per second per client address (an IPv6 client per /64), counted
        /// before authentication; 0 disables. Optional in the file; absent means
        /// `defaultAddressRateLimitPerSecond`. Raise it behind a proxy that hides client addresses.
        public var addressRateLimitPerSecond: Double?
        /// Requests one address may burst; absent means `defaultAddressRateLimitBurst`.
        public var addressRateLimitBurst: Int?
        /// Failed authentications (401) one client address may make before it is refused with
        /// 429 `auth-throttled` and `Retry-After`, whatever it presents; 0 disables the budget.
        /// Optional in the file; absent means `defaultFailedAuthBurst`.
        public var failedAuthBurst: Int?
        /// Seconds after which one failed authentication is forgiven (the budget refills at one
        /// attempt per this many seconds). Optional; absent means `defaultFailedAuthRefillSeconds`.
        public var failedAuthRefillSeconds: Double?
        /// Live instruments one customer may hold; an upsert creating one more is rejected with
        /// `instrument-limit-reached`. Optional in the file; absent means
        /// `InstrumentLimits.maxInstrumentsPerCustomer` (1,000). Any value keeps sync working
        /// (feed pages are bounded by bytes, not by the customer's size); it bounds storage.
        public var maxInstrumentsPerCustomer: Int?
        /// The byte bound of one change-feed page: its rows' JSON totals at most this, unless the
        /// page holds one row only. Optional in the file; absent means `VaultService`'s 1 MiB.
        /// 256 bytes–64 MiB: smaller pages cost more requests, never correctness.
        public var maxFeedPageBytes: Int?

        /// The merchant rate when the configuration is built in code (the file names its own).
        public static let defaultRateLimitPerSecond: Double = 2000
        /// The merchant burst when the configuration is built in code.
        public static let defaultRateLimitBurst = 4000
        /// The per-customer rate when the configuration names none: far above any sync's needs.
        public static let defaultCustomerRateLimitPerSecond: Double = 100
        /// The per-customer burst when the configuration names none.
        public static let defaultCustomerRateLimitBurst = 500
        /// The per-address rate when the configuration names none.
        public static let defaultAddressRateLimitPerSecond: Double = 2000
        /// The per-address burst when the configuration names none.
        public static let defaultAddressRateLimitBurst = 4000
        /// The failed-authentication budget per address when the configuration names none.
        public static let defaultFailedAuthBurst = 20
        /// Seconds per forgiven failure when the configuration names none (12 a minute).
        public static let defaultFailedAuthRefillSeconds: Double = 5

        /// The idle timeout when the configuration names none.
        public static let defaultIdleConnectionTimeoutSeconds = 30
        /// The per-address connection cap when the configuration names none.
        public static let defaultMaxConnectionsPerIP = 32
        /// The request deadline when the configuration names none.
        public static let defaultRequestTimeoutSeconds = 30
        /// A device key's sustained write rate when the configuration names none: one op a second.
        public static let defaultDeviceWriteOpsPerHour: Double = 3_600
        /// A device key's write burst when the configuration names none: two full batches.
        public static let defaultDeviceWriteOpsBurst = 1_000
        /// A customer's sustained write rate when the configuration names none: ten ops a second.
        public static let defaultCustomerWriteOpsPerHour: Double = 36_000
        /// A customer's write burst when the configuration names none.
        public static let defaultCustomerWriteOpsBurst = 5_000
        /// How long op outcomes are kept when the configuration names none: 7 days, longer than
        /// any device's outbox waits in practice.
        public static let defaultOpRecordRetentionSeconds: Double = 7 * 24 * 3600

        /// The device write rate in force.
        public var effectiveDeviceWriteOpsPerHour: Double { deviceWriteOpsPerHour ?? Self.defaultDeviceWriteOpsPerHour }
        /// The device write burst in force.
        public var effectiveDeviceWriteOpsBurst: Int { deviceWriteOpsBurst ?? Self.defaultDeviceWriteOpsBurst }
        /// The customer write rate in force.
        public var effectiveCustomerWriteOpsPerHour: Double { customerWriteOpsPerHour ?? Self.defaultCustomerWriteOpsPerHour }
        /// The customer write burst in force.
        public var effectiveCustomerWriteOpsBurst: Int { customerWriteOpsBurst ?? Self.defaultCustomerWriteOpsBurst }
        /// The tombstone cap in force.
        public var effectiveMaxTombstonesPerCustomer: Int { maxTombstonesPerCustomer ?? VaultService.RowCaps.standard.maxTombstones }
        /// The op-record cap in force.
        public var effectiveMaxOpRecordsPerCustomer: Int { maxOpRecordsPerCustomer ?? VaultService.RowCaps.standard.maxOpRecords }
        /// The op-record retention asked for (the server keeps records no longer than tombstones:
        /// `VaultServerConfiguration.effectiveOpRecordRetentionSeconds`).
        public var effectiveOpRecordRetentionSeconds: Double { opRecordRetentionSeconds ?? Self.defaultOpRecordRetentionSeconds }

        /// The head deadline when the configuration names none.
        public static let defaultHeadTimeoutSeconds = 10
        /// The minimum body rate when the configuration names none: 1 KiB/s.
        public static let defaultMinBodyBytesPerSecond = 1024

        /// The head deadline in force: never later than the request deadline.
        public var effectiveHeadTimeoutSeconds: Int {
            min(headTimeoutSeconds ?? Self.defaultHeadTimeoutSeconds, effectiveRequestTimeoutSeconds)
        }

        /// The minimum body rate in force.
        public var effectiveMinBodyBytesPerSecond: Int { minBodyBytesPerSecond ?? Self.defaultMinBodyBytesPerSecond }

        /// The idle timeout in force.
        public var effectiveIdleConnectionTimeoutSeconds: Int {
            idleConnectionTimeoutSeconds ?? Self.defaultIdleConnectionTimeoutSeconds
        }

        /// The per-address connection cap in force.
        public var effectiveMaxConnectionsPerIP: Int { maxConnectionsPerIP ?? Self.defaultMaxConnectionsPerIP }

        /// The request deadline in force.
        public var effectiveRequestTimeoutSeconds: Int { requestTimeoutSeconds ?? Self.defaultRequestTimeoutSeconds }

        /// The per-customer rate in force.
        public var effectiveCustomerRateLimitPerSecond: Double {
            customerRateLimitPerSecond ?? Self.defaultCustomerRateLimitPerSecond
        }

        /// The per-customer burst in force.
        public var effectiveCustomerRateLimitBurst: Int { customerRateLimitBurst ?? Self.defaultCustomerRateLimitBurst }

        /// The per-address rate in force.
        public var effectiveAddressRateLimitPerSecond: Double {
            addressRateLimitPerSecond ?? Self.defaultAddressRateLimitPerSecond
        }

        /// The per-address burst in force.
        public var effectiveAddressRateLimitBurst: Int { addressRateLimitBurst ?? Self.defaultAddressRateLimitBurst }

        /// The failed-authentication budget in force.
        public var effectiveFailedAuthBurst: Int { failedAuthBurst ?? Self.defaultFailedAuthBurst }

        /// The per-customer instrument cap in force.
        public var effectiveMaxInstrumentsPerCustomer: Int {
            maxInstrumentsPerCustomer ?? InstrumentLimits.maxInstrumentsPerCustomer
        }

        /// The byte bound of a change-feed page in force.
        public var effectiveMaxFeedPageBytes: Int { maxFeedPageBytes ?? VaultService.defaultMaxPageBytes }

        /// The seconds per forgiven failure in force.
        public var effectiveFailedAuthRefillSeconds: Double { failedAuthRefillSeconds ?? Self.defaultFailedAuthRefillSeconds }

        /// Creates limits; every rate limit is on, at its documented default.
        public init(maxBodyBytes: Int = 1 << 20, maxPageSize: Int = 1000, defaultPageSize: Int = 200,
                    maxOpsPerBatch: Int = 500, rateLimitPerSecond: Double = defaultRateLimitPerSecond,
                    rateLimitBurst: Int = defaultRateLimitBurst,
                    idleConnectionTimeoutSeconds: Int? = nil, maxConnectionsPerIP: Int? = nil,
                    requestTimeoutSeconds: Int? = nil, customerRateLimitPerSecond: Double? = nil,
                    customerRateLimitBurst: Int? = nil, addressRateLimitPerSecond: Double? = nil,
                    addressRateLimitBurst: Int? = nil, failedAuthBurst: Int? = nil,
                    failedAuthRefillSeconds: Double? = nil, maxInstrumentsPerCustomer: Int? = nil,
                    maxFeedPageBytes: Int? = nil, headTimeoutSeconds: Int? = nil, minBodyBytesPerSecond: Int? = nil,
                    deviceWriteOpsPerHour: Double? = nil, deviceWriteOpsBurst: Int? = nil,
                    customerWriteOpsPerHour: Double? = nil, customerWriteOpsBurst: Int? = nil,
                    opRecordRetentionSeconds: Double? = nil, maxTombstonesPerCustomer: Int? = nil,
                    maxOpRecordsPerCustomer: Int? = nil) {
            self.maxBodyBytes = maxBodyBytes
            self.maxPageSize = maxPageSize
            self.defaultPageSize = defaultPageSize
            self.maxOpsPerBatch = maxOpsPerBatch
            self.rateLimitPerSecond = rateLimitPerSecond
            self.rateLimitBurst = rateLimitBurst
            self.idleConnectionTimeoutSeconds = idleConnectionTimeoutSeconds
            self.maxConnectionsPerIP = maxConnectionsPerIP
            self.requestTimeoutSeconds = requestTimeoutSeconds
            self.customerRateLimitPerSecond = customerRateLimitPerSecond
            self.customerRateLimitBurst = customerRateLimitBurst
            self.addressRateLimitPerSecond = addressRateLimitPerSecond
            self.addressRateLimitBurst = addressRateLimitBurst
            self.failedAuthBurst = failedAuthBurst
            self.failedAuthRefillSeconds = failedAuthRefillSeconds
            self.maxInstrumentsPerCustomer = maxInstrumentsPerCustomer
            self.maxFeedPageBytes = maxFeedPageBytes
            self.headTimeoutSeconds = headTimeoutSeconds
            self.minBodyBytesPerSecond = minBodyBytesPerSecond
            self.deviceWriteOpsPerHour = deviceWriteOpsPerHour
            self.deviceWriteOpsBurst = deviceWriteOpsBurst
            self.customerWriteOpsPerHour = customerWriteOpsPerHour
            self.customerWriteOpsBurst = customerWriteOpsBurst
            self.opRecordRetentionSeconds = opRecordRetentionSeconds
            self.maxTombstonesPerCustomer = maxTombstonesPerCustomer
            self.maxOpRecordsPerCustomer = maxOpRecordsPerCustomer
        }

        /// Every rate limit off: for benchmarks and load tests that measure the server, never for
        /// a deployment.
        public var withoutRateLimits: Limits {
            var limits = self
            limits.rateLimitPerSecond = 0
            limits.customerRateLimitPerSecond = 0
            limits.addressRateLimitPerSecond = 0
            limits.failedAuthBurst = 0
            limits.deviceWriteOpsPerHour = 0
            limits.customerWriteOpsPerHour = 0
            return limits
        }
    }

    /// The fewest characters a plain API key may have; shorter ones are refused at start. A
    /// `sha256:` entry hides its key's length, so the server cannot check it: whoever writes the
    /// digest vouches for a key of at least this many random characters (`openssl rand -hex 32`).
    public static let minimumAPIKeyLength = 32

    /// The most connections the server holds open at once, whatever their address.
    public static let maxConnections = 1024

    /// Connections kept for fresh clients: above `maxConnections` minus these, each new
    /// connection closes the oldest one still waiting for its head (`ConnectionWatch`).
    public static let reservedConnections = 128

    /// The server's certificate and key, for HTTPS.
    public struct TLS: Codable, Sendable, Equatable {
        /// A PEM file holding the server certificate, then any intermediate certificates.
        public var certificate: String
        /// A PEM file holding the certificate's private key (unencrypted). Refused at start when
        /// its group or others may read it.
        public var privateKey: String
        /// A GnuTLS priority string naming the protocol versions and suites served. Optional;
        /// absent means `TLSPEM.intermediateProfile` (Mozilla's "intermediate": TLS 1.3, and TLS 1.2
        /// with ECDHE and AEAD suites only). `vault-server --tls-priority` sets it.
        public var priorities: String?

        /// Creates TLS settings from two PEM file paths.
        public init(certificate: String, privateKey: String, priorities: String? = nil) {
            self.certificate = certificate
            self.privateKey = privateKey
            self.priorities = priorities
        }
    }

    /// Listen address and port.
    public var listen: Listen
    /// HTTPS: the certificate and key. Optional in the file; absent means plain HTTP, which
    /// belongs only behind a TLS-terminating proxy or on loopback (clients refuse plain HTTP to
    /// any other host by default).
    public var tls: TLS?
    /// API key -> merchant id. Keys are secrets: never logged. An entry may instead be
    /// `sha256:` and the lowercase hex SHA-256 of the key (64 digits), so the file holds no usable
    /// key; several entries may name one merchant (rotation). Plain keys may not start with `eks_`,
    /// the prefix of ephemeral key secrets, and are at least `VaultServerConfiguration.minimumAPIKeyLength`
    /// characters. Optional in the file (absent means none): `vault-server` takes keys from
    /// `--api-key-file`, `CHECKOUTKIT_VAULT_API_KEYS` or `--api-key` instead.
    public var apiKeys: [String: String]
    /// How long tombstones are kept, in seconds; cursors older than a purged tombstone get 410.
    public var tombstoneRetentionSeconds: Double
    /// Request caps.
    public var limits: Limits
    /// Worker threads of the HTTP server.
    public var threads: Int
    /// Networks of the TLS-terminating proxies in front of the server (CIDR, IPv4 or IPv6), whose
    /// `Forwarded` / `X-Forwarded-For` name the client the limits count against. Optional; absent
    /// or empty means the peer's address, always (`vault-server --trusted-proxy` adds to it).
    public var trustedProxies: [String]?
    /// Where the vault lives: `postgres://...` (shared by several instances) or `sqlite:PATH`.
    /// Optional: without it, `vault-server --db PATH` (SQLite) or `--storage URL` says where;
    /// the command line wins over the file. Parsed by `VaultStorageLocation` (VaultServerPostgres).
    /// Keep the password out of the URL: libpq reads it from `PGPASSFILE` or `PGPASSWORD`.
    public var storage: String?

    /// Creates a configuration; the defaults suit tests and local runs.
    public init(listen: Listen = Listen(), apiKeys: [String: String] = [:],
                tombstoneRetentionSeconds: Double = 30 * 24 * 3600, limits: Limits = Limits(), threads: Int = 4,
                storage: String? = nil, tls: TLS? = nil, trustedProxies: [String]? = nil) {
        self.listen = listen
        self.tls = tls
        self.apiKeys = apiKeys
        self.tombstoneRetentionSeconds = tombstoneRetentionSeconds
        self.limits = limits
        self.threads = threads
        self.storage = storage
        self.trustedProxies = trustedProxies
    }

    private enum CodingKeys: String, CodingKey {
        case listen, tls, apiKeys, tombstoneRetentionSeconds, limits, threads, storage, trustedProxies
    }

    /// Decodes a configuration file: every field required except the optional ones.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        listen = try container.decode(Listen.self, forKey: .listen)
        tls = try container.decodeIfPresent(TLS.self, forKey: .tls)
        apiKeys = try container.decodeIfPresent([String: String].self, forKey: .apiKeys) ?? [:]
        tombstoneRetentionSeconds = try container.decode(Double.self, forKey: .tombstoneRetentionSeconds)
        limits = try container.decode(Limits.self, forKey: .limits)
        threads = try container.decode(Int.self, forKey: .threads)
        storage = try container.decodeIfPresent(String.self, forKey: .storage)
        trustedProxies = try container.decodeIfPresent([String].self, forKey: .trustedProxies)
    }

    /// Reads and validates a configuration file.
    public static func load(from url: URL) throws(VaultServerConfigurationError) -> VaultServerConfiguration {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw VaultServerConfigurationError("cannot read \(url.path)")
        }
        let configuration: VaultServerConfiguration
        do {
            configuration = try JSONReader.decode(VaultServerConfiguration.self, from: data)
        } catch {
            throw VaultServerConfigurationError("\(url.lastPathComponent): \(DecodingErrorDescription.describe(error))")
        }
        try configuration.validate()
        return configuration
    }

    /// How long op outcomes are kept: `limits.opRecordRetentionSeconds`, never longer than tombstones.
    public var effectiveOpRecordRetentionSeconds: Double {
        min(limits.effectiveOpRecordRetentionSeconds, tombstoneRetentionSeconds)
    }

    /// Checks the values for ranges the server cannot work with.
    public func validate() throws(VaultServerConfigurationError) {
        guard (0...65535).contains(listen.port) else { throw VaultServerConfigurationError("listen.port must be 0–65535") }
        guard !listen.host.isEmpty else { throw VaultServerConfigurationError("listen.host must not be empty") }
        guard tombstoneRetentionSeconds >= 0, tombstoneRetentionSeconds.isFinite else {
            throw VaultServerConfigurationError("tombstoneRetentionSeconds must be a non-negative number")
        }
        guard limits.maxBodyBytes > 0 else { throw VaultServerConfigurationError("limits.maxBodyBytes must be positive") }
        guard limits.maxPageSize > 0 else { throw VaultServerConfigurationError("limits.maxPageSize must be positive") }
        guard (1...limits.maxPageSize).contains(limits.defaultPageSize) else {
            throw VaultServerConfigurationError("limits.defaultPageSize must be between 1 and maxPageSize")
        }
        guard limits.maxOpsPerBatch > 0 else { throw VaultServerConfigurationError("limits.maxOpsPerBatch must be positive") }
        guard limits.rateLimitPerSecond >= 0, limits.rateLimitPerSecond.isFinite, limits.rateLimitBurst >= 0 else {
            throw VaultServerConfigurationError("limits.rateLimitPerSecond and rateLimitBurst must not be negative")
        }
        guard limits.effectiveCustomerRateLimitPerSecond >= 0, limits.effectiveCustomerRateLimitPerSecond.isFinite,
              limits.effectiveCustomerRateLimitBurst >= 0 else {
            throw VaultServerConfigurationError("limits.customerRateLimitPerSecond and customerRateLimitBurst must not be negative")
        }
        guard limits.effectiveAddressRateLimitPerSecond >= 0, limits.effectiveAddressRateLimitPerSecond.isFinite,
              limits.effectiveAddressRateLimitBurst >= 0 else {
            throw VaultServerConfigurationError("limits.addressRateLimitPerSecond and addressRateLimitBurst must not be negative")
        }
        guard limits.effectiveFailedAuthBurst >= 0 else {
            throw VaultServerConfigurationError("limits.failedAuthBurst must not be negative")
        }
        guard limits.effectiveFailedAuthRefillSeconds > 0, limits.effectiveFailedAuthRefillSeconds.isFinite else {
            throw VaultServerConfigurationError("limits.failedAuthRefillSeconds must be a positive number")
        }
        guard (1...86_400).contains(limits.effectiveIdleConnectionTimeoutSeconds) else {
            throw VaultServerConfigurationError("limits.idleConnectionTimeoutSeconds must be 1–86400")
        }
        guard (1...Self.maxConnections).contains(limits.effectiveMaxConnectionsPerIP) else {
            throw VaultServerConfigurationError("limits.maxConnectionsPerIP must be 1–\(Self.maxConnections)")
        }
        guard (1...10_000_000).contains(limits.effectiveMaxInstrumentsPerCustomer) else {
            throw VaultServerConfigurationError("limits.maxInstrumentsPerCustomer must be 1–10000000")
        }
        guard (256...(64 << 20)).contains(limits.effectiveMaxFeedPageBytes) else {
            throw VaultServerConfigurationError("limits.maxFeedPageBytes must be 256–67108864")
        }
        guard (1...3_600).contains(limits.effectiveRequestTimeoutSeconds) else {
            throw VaultServerConfigurationError("limits.requestTimeoutSeconds must be 1–3600")
        }
        guard (1...3_600).contains(limits.headTimeoutSeconds ?? Limits.defaultHeadTimeoutSeconds) else {
            throw VaultServerConfigurationError("limits.headTimeoutSeconds must be 1–3600")
        }
        for (name, rate, burst) in [("deviceWriteOps", limits.effectiveDeviceWriteOpsPerHour, limits.effectiveDeviceWriteOpsBurst),
                                    ("customerWriteOps", limits.effectiveCustomerWriteOpsPerHour, limits.effectiveCustomerWriteOpsBurst)] {
            guard rate >= 0, rate.isFinite else { throw VaultServerConfigurationError("limits.\(name)PerHour must not be negative") }
            guard rate == 0 || burst >= limits.maxOpsPerBatch else {
                throw VaultServerConfigurationError("limits.\(name)Burst must be at least maxOpsPerBatch (\(limits.maxOpsPerBatch))")
            }
        }
        guard (1...10_000_000).contains(limits.effectiveMaxTombstonesPerCustomer),
              (1...10_000_000).contains(limits.effectiveMaxOpRecordsPerCustomer) else {
            throw VaultServerConfigurationError("limits.maxTombstonesPerCustomer and maxOpRecordsPerCustomer must be 1–10000000")
        }
        guard limits.effectiveOpRecordRetentionSeconds >= 0, limits.effectiveOpRecordRetentionSeconds.isFinite else {
            throw VaultServerConfigurationError("limits.opRecordRetentionSeconds must be a non-negative number")
        }
        guard limits.effectiveMinBodyBytesPerSecond >= 0 else {
            throw VaultServerConfigurationError("limits.minBodyBytesPerSecond must not be negative")
        }
        guard (1...256).contains(threads) else { throw VaultServerConfigurationError("threads must be 1–256") }
        _ = try ClientAddressResolver(cidrs: trustedProxies ?? [])
        if let storage, storage.isEmpty {
            throw VaultServerConfigurationError("storage must not be empty (omit it to use --db)")
        }
        if let tls, tls.certificate.isEmpty || tls.privateKey.isEmpty {
            throw VaultServerConfigurationError("tls.certificate and tls.privateKey must name PEM files")
        }
        if let priorities = tls?.priorities, priorities.isEmpty || priorities.utf8.contains(where: { $0 < 0x21 || $0 > 0x7E }) {
            throw VaultServerConfigurationError("tls.priorities must be a GnuTLS priority string (printable ASCII, no spaces)")
        }
        try APIKeyList.validate(apiKeys)
    }
}

/// A configuration file or value the server cannot use.
public struct VaultServerConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the field; never includes an API key.
    public let message: String

    /// Creates the error with a message naming what is wrong.
    public init(_ message: String) { self.message = message }

    /// A one-line explanation, safe to log.
    public var description: String { "invalid vault-server configuration: \(message)" }
}
