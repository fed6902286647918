import Foundation
import Testing
@testable import VaultServer

struct VaultServerConfigurationTests {
    @Test("the shipped Config/vault-server.json loads and ships no key")
    func shippedConfiguration() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Config/vault-server.json")
        let configuration = try VaultServerConfiguration.load(from: url)
        #expect(configuration.apiKeys.isEmpty)
        #expect(configuration.limits.rateLimitPerSecond > 0 && configuration.limits.effectiveFailedAuthBurst > 0)
        #expect(configuration.listen == .init(host: "127.0.0.1", port: 8080))
        #expect(configuration.limits.maxBodyBytes == 1_048_576)
        #expect(configuration.limits.idleConnectionTimeoutSeconds == nil)
        #expect(configuration.limits.effectiveIdleConnectionTimeoutSeconds == 30)
        #expect(configuration.limits.maxConnectionsPerIP == nil)
        #expect(configuration.limits.effectiveMaxConnectionsPerIP == 32)
        #expect(configuration.limits.requestTimeoutSeconds == nil)
        #expect(configuration.limits.effectiveRequestTimeoutSeconds == 30)
        #expect(configuration.limits.effectiveHeadTimeoutSeconds == 10)
        #expect(configuration.limits.effectiveDeviceWriteOpsPerHour == 3600)
        #expect(configuration.trustedProxies == nil && configuration.tls?.priorities == nil)
    }

    @Test("the optional limits are read from the file when present")
    func optionalLimitsFromFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vault-server-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(#"""
            {"listen":{"host":"127.0.0.1","port":1},"apiKeys":{},"tombstoneRetentionSeconds":60,"threads":1,
             "limits":{"maxBodyBytes":1024,"maxPageSize":10,"defaultPageSize":5,"maxOpsPerBatch":5,
                       "rateLimitPerSecond":0,"rateLimitBurst":0,"idleConnectionTimeoutSeconds":120,
                       "maxConnectionsPerIP":8,"requestTimeoutSeconds":12}}
            """#.utf8).write(to: url)
        let limits = try VaultServerConfiguration.load(from: url).limits
        #expect(limits.effectiveIdleConnectionTimeoutSeconds == 120)
        #expect(limits.effectiveMaxConnectionsPerIP == 8)
        #expect(limits.effectiveRequestTimeoutSeconds == 12)
    }

    @Test("invalid values are refused with the field named", arguments: [
        (VaultServerConfiguration(listen: .init(port: 70000)), "listen.port must be 0–65535"),
        (VaultServerConfiguration(tombstoneRetentionSeconds: -1), "tombstoneRetentionSeconds must be a non-negative number"),
        (VaultServerConfiguration(limits: .init(maxBodyBytes: 0)), "limits.maxBodyBytes must be positive"),
        (VaultServerConfiguration(limits: .init(maxPageSize: 10, defaultPageSize: 11)),
         "limits.defaultPageSize must be between 1 and maxPageSize"),
        (VaultServerConfiguration(apiKeys: ["": "m"]), "API keys and merchant ids must not be empty"),
        (VaultServerConfiguration(threads: 0), "threads must be 1–256"),
        (VaultServerConfiguration(limits: .init(idleConnectionTimeoutSeconds: 0)), "limits.idleConnectionTimeoutSeconds must be 1–86400"),
        (VaultServerConfiguration(limits: .init(idleConnectionTimeoutSeconds: 86_401)),
         "limits.idleConnectionTimeoutSeconds must be 1–86400"),
        (VaultServerConfiguration(limits: .init(maxConnectionsPerIP: 0)), "limits.maxConnectionsPerIP must be 1–1024"),
        (VaultServerConfiguration(limits: .init(maxConnectionsPerIP: 1025)), "limits.maxConnectionsPerIP must be 1–1024"),
        (VaultServerConfiguration(limits: .init(requestTimeoutSeconds: 0)), "limits.requestTimeoutSeconds must be 1–3600"),
        (VaultServerConfiguration(limits: .init(requestTimeoutSeconds: 3601)), "limits.requestTimeoutSeconds must be 1–3600"),
        (VaultServerConfiguration(limits: .init(headTimeoutSeconds: 0)), "limits.headTimeoutSeconds must be 1–3600"),
        (VaultServerConfiguration(limits: .init(minBodyBytesPerSecond: -1)), "limits.minBodyBytesPerSecond must not be negative"),
        (VaultServerConfiguration(limits: .init(maxOpsPerBatch: 500, deviceWriteOpsBurst: 499)),
         "limits.deviceWriteOpsBurst must be at least maxOpsPerBatch (500)"),
        (VaultServerConfiguration(limits: .init(customerWriteOpsPerHour: -1)), "limits.customerWriteOpsPerHour must not be negative"),
        (VaultServerConfiguration(limits: .init(opRecordRetentionSeconds: -1)), "limits.opRecordRetentionSeconds must be a non-negative number"),
        (VaultServerConfiguration(trustedProxies: ["10.0.0.0/33"]),
         "trustedProxies: '10.0.0.0/33' is not an IPv4 or IPv6 address or CIDR network"),
        (VaultServerConfiguration(tls: .init(certificate: "c.pem", privateKey: "k.pem", priorities: "NORMAL -VERS-TLS1.0")),
         "tls.priorities must be a GnuTLS priority string (printable ASCII, no spaces)"),
    ])
    func invalid(_ configuration: VaultServerConfiguration, _ message: String) {
        #expect(throws: VaultServerConfigurationError(message)) { try configuration.validate() }
    }

    static let hashedKeyMessage = "apiKeys: an entry of merchant_x starts with sha256: but is not followed by exactly "
        + "64 lowercase hex digits (write sha256: and the hex SHA-256 of the key, e.g. from `printf %s KEY | sha256sum`)"

    @Test("sha256: entries need exactly 64 lowercase hex digits; plain keys may not look like ephemeral secrets",
          arguments: [
            ("sha256:", hashedKeyMessage),
            ("sha256:" + String(repeating: "a", count: 63), hashedKeyMessage),
            ("sha256:" + String(repeating: "a", count: 65), hashedKeyMessage),
            ("sha256:" + String(repeating: "A", count: 64), hashedKeyMessage),
            ("sha256:" + String(repeating: "g", count: 64), hashedKeyMessage),
            ("sha256: " + String(repeating: "a", count: 63), hashedKeyMessage),
            ("SHA256:" + String(repeating: "a", count: 64), nil),
            ("sha256:" + String(repeating: "0123456789abcdef", count: 4), nil),
            ("eks_my-backend-key", "apiKeys: a key of merchant_x starts with eks_, which marks ephemeral key secrets"),
          ] as [(String, String?)])
    func hashedKeys(_ key: String, _ message: String?) throws {
        let configuration = VaultServerConfiguration(apiKeys: [key: "merchant_x", "plain-key-\(UUID().uuidString)": "merchant_y"])
        if let message {
            #expect(throws: VaultServerConfigurationError(message)) { try configuration.validate() }
            let fragment = String(key.dropFirst(7).prefix(8))
            do { try configuration.validate() } catch { #expect(fragment.isEmpty || !error.description.contains(fragment)) }
        } else {
            try configuration.validate()
        }
    }

    @Test("a file with a missing field is refused, naming the field")
    func missingField() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vault-server-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(#"{"listen":{"host":"127.0.0.1","port":1},"apiKeys":{},"limits":{},"threads":1}"#.utf8).write(to: url)
        #expect(throws: VaultServerConfigurationError("\(url.lastPathComponent): tombstoneRetentionSeconds: required key is missing")) {
            try VaultServerConfiguration.load(from: url)
        }
    }

    @Test("a server refuses to start with an invalid configuration")
    func invalidStart() {
        let server = VaultServer(configuration: VaultServerConfiguration(threads: -1), storage: InMemoryVaultServerStorage())
        #expect(throws: VaultServerStartError("threads must be 1–256")) { try server.start() }
    }

    @Test("a server cannot listen on a non-literal host")
    func badHost() {
        let server = VaultServer(configuration: VaultServerConfiguration(listen: .init(host: "not-an-address", port: 0)),
                                 storage: InMemoryVaultServerStorage())
        #expect(throws: VaultServerStartError("cannot listen on not-an-address:0")) { try server.start() }
    }
}
