import CheckoutCore
import CheckoutVault
import HTTPTransport
import Foundation

/// `checkout vault key create|revoke`: mints or revokes a customer-scoped ephemeral vault key with
/// the merchant's API key, as a backend does for a device. `VaultCommand` routes here.
enum VaultKeyCommand: DeclaredCommand {
    /// The refusal of `--customer` or `--read-only` given to `revoke`.
    private static let createOnly: @Sendable (String) -> String = { _ in "--customer and --read-only belong to create" }

    static let spec = CommandSpec(
        name: "vault key",
        summary: "Mint or revoke an ephemeral key for one customer's vault",
        usage: """
            USAGE: checkout vault key create --remote URL --api-key KEY --customer C [--ttl SECONDS] [--read-only]
                                             [--ca-bundle PEM] [--json]
                   checkout vault key revoke --remote URL --api-key KEY --id ID [--ca-bundle PEM] [--json]
            """,
        about: """
            A device never holds the merchant's API key: the merchant's backend mints a short-lived key for
            one customer and hands the device its secret (checkout vault sync --ephemeral-key SECRET). The
            server keeps only a hash of the secret; revoke a key by its id.
            """,
        options: [
            OptionSpec.valued("--remote", "URL", help: "The vault server, e.g. https://vault.example.com:8443.").isRequired(),
            .valued("--api-key", "KEY", help: "The merchant's API key (default: the VAULT_API_KEY environment variable)."),
            OptionSpec.valued("--customer", "C", help: "create: the customer the key is for.").only("create", refusing: createOnly),
            OptionSpec.integer("--ttl", "SECONDS", range: 1...86_400, help: "create: how long the key lives, 1...86400 (default 3600).")
                .only("create"),
            OptionSpec.flag("--read-only", help: "create: the key reads the vault but cannot change it.")
                .only("create", refusing: createOnly),
            OptionSpec.valued("--id", "ID", help: "revoke: the key's id.").only("revoke", refusing: { _ in "--id belongs to revoke" }),
            .valued("--ca-bundle", "PEM", help: "Trust the CAs in this PEM file instead of the system store."),
            .flag("--json", help: "create: {\"id\", \"secret\", \"customer\", \"expiresAt\", \"scope\"}; revoke: {\"id\", \"revoked\"}."),
            .showHelp,
        ],
        footer: "EXIT CODES: 0 done; 1 the server refused or could not be reached (the message says why); 2 usage error.",
        parseOrder: ["--remote", "--api-key", "--customer", "--id", "--ttl", "--ca-bundle"])

    private enum Subcommand: String, CaseIterable {
        case create, revoke
    }

    static func run(_ arguments: inout ParsedCommandLine, output: Output) async throws -> Int32 {
        if arguments.flag("--help") {
            output.line(help)
            return 0
        }
        let json = arguments.flag("--json")
        let readOnly = arguments.flag("--read-only")
        let remoteText = try arguments.required("--remote")
        let apiKeyOption = arguments.value("--api-key")
        let customer = arguments.value("--customer")
        let id = arguments.value("--id")
        let ttl = try arguments.integer("--ttl", default: 3600)
        let caBundle = arguments.value("--ca-bundle")
        let subcommand: Subcommand = try arguments.choice("subcommand")
        try arguments.finish()

        let remoteURL = try CommandSupport.remoteURL(remoteText)
        guard let apiKey = apiKeyOption ?? ProcessInfo.processInfo.environment["VAULT_API_KEY"], !apiKey.isEmpty else {
            throw UsageError(message: "missing required option --api-key (or the VAULT_API_KEY environment variable)")
        }
        if let caBundle, !FileManager.default.isReadableFile(atPath: caBundle) {
            throw CommandFailure(message: "cannot read the CA bundle \(caBundle)")
        }
        let remote = HTTPRemoteVault(baseURL: remoteURL, apiKey: apiKey, tls: TLSOptions(caBundle: caBundle))
        do {
            switch subcommand {
            case .create:
                guard let customer, !customer.isEmpty else { throw UsageError(message: "create needs --customer C") }
                try arguments.check(subcommand: subcommand.rawValue)
                let key = try await remote.createEphemeralKey(customerId: customer, ttlSeconds: ttl, readOnly: readOnly)
                let expiresAt = ISO8601DateFormatter().string(from: key.expiresAt)
                if json {
                    try output.json(CommandJSON.EphemeralKey(id: key.id, secret: key.secret, customer: key.customer,
                                                             expiresAt: expiresAt, scope: key.scope))
                } else {
                    output.line("id \(key.id)\nsecret \(key.secret)\nexpires \(expiresAt)\nscope \(key.scope)")
                }
            case .revoke:
                guard let id, !id.isEmpty else { throw UsageError(message: "revoke needs --id ID") }
                try arguments.check(subcommand: subcommand.rawValue)
                try await remote.revokeEphemeralKey(id: id)
                if json {
                    try output.json(CommandJSON.Revoked(id: id))
                } else {
                    output.line("revoked \(id)")
                }
            }
            return 0
        } catch let error as RemoteVaultError {
            let failure = SyncError(error)
            if json { try output.json(CommandJSON.Failure(error: .init(code: failure.code.rawValue, message: failure.message), pending: nil)) }
            output.error("error: \(PrintedTextRedactor.redact(failure.message))")
            return 1
        }
    }
}
