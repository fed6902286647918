// swift-tools-version:6.0
// CheckoutKit: the headless core of a payment checkout.
// The folder layout is the architecture: see README.md ("Modules").
// Linux only: the socket, process and clock code calls Glibc directly, and nothing here is
// build-checked on Darwin, so no Apple platform is declared.
import PackageDescription

let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "CheckoutKit",
    products: [
        .library(name: "CheckoutKit", targets: ["CheckoutKit"]),
        .library(name: "CheckoutCore", targets: ["CheckoutCore"]),
        .library(name: "CheckoutTheme", targets: ["CheckoutTheme"]),
        .library(name: "CheckoutVault", targets: ["CheckoutVault"]),
        .library(name: "VaultServer", targets: ["VaultServer"]),
        .library(name: "HTTPTransport", targets: ["HTTPTransport"]),
        // Deterministic doubles for hosts' own tests: an in-memory remote vault (the server's rules),
        // a manual sync clock, a hold on remote calls.
        .library(name: "CheckoutVaultTesting", targets: ["CheckoutVaultTesting"]),
        // The core's doubles for hosts' own tests: a controllable processor, a test clock, and a
        // harness that records every flow state and outcome and fails on any not asserted.
        .library(name: "CheckoutCoreTesting", targets: ["CheckoutCoreTesting"]),
        .executable(name: "vault-server", targets: ["vault-server"]),
        .executable(name: "vault-sim", targets: ["vault-sim"]),
        .executable(name: "checkout", targets: ["checkout"]),
        // Backend orchestration: routing across processors, the payment ledger, signed events.
        .library(name: "CheckoutOrchestration", targets: ["CheckoutOrchestration"]),
        .library(name: "CheckoutOrchestrationPostgres", targets: ["CheckoutOrchestrationPostgres"]),
        // The sandbox payment processor over HTTP (Config/processor-api.openapi.yaml).
        .executable(name: "sandbox-psp", targets: ["sandbox-psp"]),
    ],
    targets: [
        // System-library shims (C libraries from Debian -dev packages).
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibUUID", path: "Sources/CLibUUID", providers: [.apt(["uuid-dev"])]),
        // libcrypto (not libssl): every cryptographic primitive of the package comes from here.
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", providers: [.apt(["libssl-dev"])]),

        .systemLibrary(name: "CCurl", path: "Sources/CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // The package's lock (a Mutex the thread sanitizer can see, `make tsan`) and the one bounded pool of threads
        // for blocking work (`onOwnThread`).
        .target(name: "CheckoutLocking", path: "Sources/CheckoutLocking", swiftSettings: swift6),
        // libcrypto wrapped: digests, HMAC, HKDF, AES, random bytes, constant-time compare. Knows nothing of vaults.
        .target(name: "CheckoutCrypto", dependencies: ["COpenSSL", "CheckoutPlatform"], path: "Sources/CheckoutCrypto", swiftSettings: swift6),
        // The one JSON stack: a strict, bounded reader (tokenizer, JSONValue, typed fields, Codable decoding) and the
        // writer (JSONValue and Encodable, byte-identical to JSONEncoder). Every JSON byte goes through it; a test
        // fails on Foundation's coders in product code.
        .target(name: "CheckoutJSON", path: "Sources/CheckoutJSON", swiftSettings: swift6),
        // The platform layer: generic pieces the product modules share and none of them owns (retry
        // backoff with jitter, Duration in seconds, the subscriber list every publisher uses, the one error-code
        // type, the temporary-storage-failure marker). Depends on nothing; CheckoutCore re-exports it.
        .target(name: "CheckoutPlatform", path: "Sources/CheckoutPlatform", swiftSettings: swift6),
        // Pure domain: no I/O; its one C call is libuuid's, for SafeIdentifier (every id the package makes).
        .target(name: "CheckoutCore", dependencies: ["CheckoutLocking", "CheckoutJSON", "CheckoutPlatform", "CLibUUID"], path: "Sources/CheckoutCore", swiftSettings: swift6),
        // Design tokens and layout.
        .target(name: "CheckoutTheme", dependencies: ["CheckoutLocking", "CheckoutCore", "CheckoutJSON"], path: "Sources/CheckoutTheme", swiftSettings: swift6),
        // SQLite wrapper shared by the client store, the vault server and the orchestration ledger.
        .target(name: "SQLiteKit", dependencies: ["CSQLite", "CheckoutLocking", "CheckoutPlatform"], path: "Sources/SQLiteKit", swiftSettings: swift6),
        // Outbound HTTP(S) on libcurl: every request the package sends goes through it.
        .target(name: "HTTPTransport", dependencies: ["CCurl", "CheckoutLocking", "CheckoutPlatform"], path: "Sources/HTTPTransport",
                swiftSettings: swift6),
        // Offline vault cache with outbox.
        .target(name: "CheckoutVault", dependencies: ["CheckoutCore", "CheckoutPlatform", "SQLiteKit", "CheckoutJSON", "CheckoutLocking",
                                                      "HTTPTransport"],
                path: "Sources/CheckoutVault", swiftSettings: swift6),

        // The remote vault service: a library and its executable, on libmicrohttpd.
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", providers: [.apt(["libmicrohttpd-dev"])]),
        .target(name: "VaultServer", dependencies: ["CMicroHTTPD", "MicroHTTPServer", "SQLiteKit", "CheckoutCore", "CheckoutJSON", "CheckoutLocking", "CheckoutPlatform",
                                                    "CheckoutCrypto"],
                path: "Sources/VaultServer", swiftSettings: swift6),
        // PostgreSQL storage for several vault-server instances on one vault (libpq).
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", providers: [.apt(["libpq-dev"])]),
        // libpq for every PostgreSQL user (the vault server's storage, the orchestration ledger): connections with their
        // prepared statements and pipelines, the pool, results and errors.
        .target(name: "PostgresKit", dependencies: ["CLibPQ", "CheckoutLocking", "CheckoutPlatform"],
                path: "Sources/PostgresKit", swiftSettings: swift6),
        .target(name: "VaultServerPostgres", dependencies: ["VaultServer", "PostgresKit", "CLibPQ", "CheckoutLocking", "CheckoutPlatform"],
                path: "Sources/VaultServerPostgres", swiftSettings: swift6),
        .executableTarget(name: "vault-server", dependencies: ["VaultServer", "VaultServerPostgres", "MicroHTTPServer", "CheckoutPlatform"],
                          path: "Sources/vault-server", swiftSettings: swift6),
        // The deterministic simulator of the whole sync system (real stores, engines, server and
        // storage under a seeded network, clock and crashes), and its command line: vault-sim.
        .target(name: "VaultSimulation", dependencies: ["CheckoutVault", "VaultServer", "VaultServerPostgres", "CheckoutCore",
                                                        "CheckoutJSON", "CheckoutLocking", "CheckoutPlatform", "HTTPTransport"],
                path: "Sources/VaultSimulation", swiftSettings: swift6),
        .executableTarget(name: "vault-sim", dependencies: ["VaultSimulation"], path: "Sources/vault-sim", swiftSettings: swift6),
        // Deterministic doubles for sync tests: an in-memory remote vault and a manual clock.
        .target(name: "CheckoutVaultTesting", dependencies: ["CheckoutVault", "CheckoutCore", "CheckoutCoreTesting", "CheckoutLocking"],
                path: "Sources/CheckoutVaultTesting", swiftSettings: swift6),

        // The core's testing product (Swift Testing for its failures): processor, clock, harness.
        .target(name: "CheckoutCoreTesting", dependencies: ["CheckoutCore", "CheckoutLocking"],
                path: "Sources/CheckoutCoreTesting", swiftSettings: swift6),

        // Orchestration: PaymentRouter, decline taxonomy, ledger + reconcile, breaker, events; its
        // PostgreSQL ledger in a separate target like VaultServerPostgres. It needs nothing of the vault.
        .target(name: "CheckoutOrchestration", dependencies: ["CheckoutCore", "SQLiteKit", "CheckoutCrypto", "HTTPTransport",
                                                              "CheckoutLocking", "CheckoutJSON", "CheckoutPlatform"],
                path: "Sources/CheckoutOrchestration", swiftSettings: swift6),
        .target(name: "CheckoutOrchestrationPostgres", dependencies: ["CheckoutOrchestration", "PostgresKit", "CLibPQ",
                                                                      "CheckoutLocking", "CheckoutCore"],
                path: "Sources/CheckoutOrchestrationPostgres", swiftSettings: swift6),

        // Orchestration over the wire: webhooks, HTTPPaymentProcessor, sandbox-psp.
        // The one libmicrohttpd server core for small JSON services (sandbox-psp, tests' receivers).
        .target(name: "MicroHTTPServer", dependencies: ["CMicroHTTPD", "CheckoutLocking", "CheckoutJSON"],
                path: "Sources/MicroHTTPServer", swiftSettings: swift6),
        .executableTarget(name: "sandbox-psp", dependencies: ["CheckoutOrchestration", "MicroHTTPServer", "CheckoutCore", "CheckoutCrypto", "CheckoutJSON",
                                                          "CheckoutLocking", "CheckoutPlatform"],
                          path: "Sources/sandbox-psp", swiftSettings: swift6),
        .testTarget(name: "OrchestrationWireTests",
                    dependencies: ["CheckoutTestSupport", "CheckoutOrchestration", "MicroHTTPServer", "CheckoutCore", "CheckoutCrypto",
                                   "CheckoutVault", "CheckoutVaultTesting", "HTTPTransport", "CheckoutLocking", "Spawning", "TLSTestSupport",
                                   "Loopback", "CheckoutCoreTesting"],
                    path: "Tests/OrchestrationWireTests", swiftSettings: swift6),

        // Payment-method modules: each depends on CheckoutCore only.
        .target(name: "CardPaymentMethod", dependencies: ["CheckoutCore", "CheckoutLocking"],
                path: "Plugins/CardPaymentMethod", swiftSettings: swift6),

        .target(name: "RedirectPaymentMethod", dependencies: ["CheckoutCore"],
                path: "Plugins/RedirectPaymentMethod", swiftSettings: swift6),
        .target(name: "WalletPaymentMethods", dependencies: ["CheckoutCore", "CheckoutLocking"],
                path: "Plugins/WalletPaymentMethods", swiftSettings: swift6),
        .target(name: "VaultedPaymentMethod", dependencies: ["CheckoutCore"],
                path: "Plugins/VaultedPaymentMethod", swiftSettings: swift6),
        // new-method: targets

        // Umbrella: re-exports and the standard registry.
        .target(name: "CheckoutKit",
                dependencies: ["CheckoutCore", "CheckoutTheme", "CheckoutVault", "HTTPTransport", "CheckoutLocking", "CardPaymentMethod",
                               "RedirectPaymentMethod", "WalletPaymentMethods", "VaultedPaymentMethod"],
                path: "Sources/CheckoutKit", swiftSettings: swift6),
        // `checkout demo`, as a library so that a test can run it end to end.
        .target(name: "CheckoutDemo", dependencies: ["CheckoutKit", "VaultServer", "CheckoutLocking", "Spawning", "CheckoutCrypto",
                                                     "CheckoutHosted"],
                path: "Sources/CheckoutDemo", swiftSettings: swift6),
        // `checkout serve`: the hosted checkout page (the preview renderer's screens as working forms, on real sessions).
        .target(name: "CheckoutHosted",
                dependencies: ["CheckoutKit", "CheckoutPreview", "MicroHTTPServer", "VaultServer", "CheckoutCrypto", "CheckoutLocking",
                               "CheckoutOrchestration", "HTTPTransport"],
                path: "Sources/CheckoutHosted", swiftSettings: swift6),
        // The CLI's commands and their declared options, as a library so that tests parse and run them
        // in-process (output sinks injected); `checkout` is its thin entry point.
        .target(name: "CheckoutCLI",
                dependencies: ["CheckoutKit", "CheckoutCore", "CheckoutJSON", "CheckoutTheme", "CheckoutVault", "HTTPTransport",
                               "CardPaymentMethod", "RedirectPaymentMethod", "WalletPaymentMethods",
                               "VaultedPaymentMethod", "CheckoutScaffold", "CheckoutDemo",
                               "CheckoutPreview", "CheckoutOrchestration", "CheckoutOrchestrationPostgres", "CheckoutHosted",
                               "VaultServer", "CheckoutLocking", "CheckoutPlatform"],
                path: "Sources/CheckoutCLI", swiftSettings: swift6),
        // The CLI.
        .executableTarget(name: "checkout", dependencies: ["CheckoutCLI"], path: "Sources/checkout", swiftSettings: swift6),

        // Benchmarks: run in release. C baselines live in their own small C target.
        // Child processes for the tests and the benchmark, started with posix_spawn (not Foundation's
        // Process, whose run() can crash the parent on Linux; see ChildProcess).
        .target(name: "CSpawn", path: "Sources/CSpawn", cSettings: [.define("_GNU_SOURCE")]),
        .target(name: "Spawning", dependencies: ["CSpawn", "CheckoutLocking"], path: "Sources/Spawning", swiftSettings: swift6),
        // The loopback listening socket of the tests' stub servers and proxies and the bench's proxy.
        .target(name: "Loopback", path: "Sources/Loopback", swiftSettings: swift6),
        .target(name: "CBenchBaselines", path: "Sources/CBenchBaselines", linkerSettings: [.linkedLibrary("sqlite3"), .linkedLibrary("uuid")]),
        .executableTarget(name: "checkout-bench", dependencies: ["CheckoutKit", "CheckoutDemo", "CBenchBaselines", "VaultServer",
                                                             "VaultServerPostgres", "CLibPQ", "CheckoutLocking", "Spawning", "HTTPTransport",
                                         "Loopback", "CheckoutOrchestration", "CheckoutOrchestrationPostgres",
                                                             "MicroHTTPServer", "CMicroHTTPD", "CCurl", "CheckoutJSON", "CheckoutCore", "CheckoutVault",
                                                             "CheckoutHosted", "CheckoutPreview"],
                          path: "Sources/checkout-bench", swiftSettings: swift6),

        // A child process the crash-safety tests SIGKILL while it writes and syncs.
        .executableTarget(name: "vault-crash-child", dependencies: ["CheckoutVault", "CheckoutCore"],
                          path: "Sources/vault-crash-child", swiftSettings: swift6),

        // Issue 19, previews: renders layout + theme to self-contained HTML; screenshots with headless Chromium.
        .target(name: "CheckoutPreview", dependencies: ["CheckoutTheme", "CheckoutCore", "Spawning"],
                path: "Sources/CheckoutPreview", swiftSettings: swift6),
        // libpng, for the preview tests to read screenshot pixels back.
        .systemLibrary(name: "CLibPNG", path: "Sources/CLibPNG", providers: [.apt(["libpng-dev"])]),
        .testTarget(name: "HostedCheckoutTests",
                    dependencies: ["CheckoutHosted", "CheckoutPreview", "CheckoutKit", "CheckoutCoreTesting", "MicroHTTPServer",
                                   "CheckoutOrchestration", "CheckoutLocking", "HTTPTransport", "TLSTestSupport", "Spawning",
                                   "VaultServer",
                                   "CheckoutTestSupport"],
                    path: "Tests/HostedCheckoutTests", swiftSettings: swift6),
        .testTarget(name: "CheckoutPreviewTests",
                    dependencies: ["CheckoutPreview", "CheckoutKit", "CheckoutTheme", "CheckoutTestSupport", "CLibPNG", "Spawning"],
                    path: "Tests/CheckoutPreviewTests", swiftSettings: swift6),

        // Scaffolding for `checkout new-method`.
        .target(name: "CheckoutScaffold", path: "Sources/CheckoutScaffold", swiftSettings: swift6),

        // Tests: one target per module, and a throwaway PKI (real certificates) for the TLS tests.
        .target(name: "TLSTestSupport", dependencies: ["Spawning"], path: "Tests/TLSTestSupport", swiftSettings: swift6),
        // The tests' one bounded wait (`eventually`) and one seeded generator (`TestSeed`, `SeededRandom`).
        .target(name: "CheckoutTestSupport", dependencies: ["Spawning", "CheckoutLocking", "Loopback"], // the crash tests' CrashLoop, the raw HTTP stub
                path: "Tests/CheckoutTestSupport", swiftSettings: swift6),
        // new-method: tests
        // The CLI in-process: the declared options' parsing, derived help and errors, run with captured output.
        .testTarget(name: "CheckoutCLITests", dependencies: ["CheckoutCLI", "CheckoutCore", "CheckoutLocking"], path: "Tests/CheckoutCLITests",
                    swiftSettings: swift6),
        .testTarget(name: "CLITests", dependencies: ["CheckoutTestSupport", "CheckoutLocking", "Spawning", "TLSTestSupport"], path: "Tests/CLITests", swiftSettings: swift6),
        .testTarget(name: "PaymentMethodsTests",
                    dependencies: ["CheckoutTestSupport", "CheckoutCore", "CheckoutCoreTesting", "RedirectPaymentMethod", "WalletPaymentMethods", "VaultedPaymentMethod", "CheckoutLocking", "Spawning"],
                    path: "Tests/PaymentMethodsTests", swiftSettings: swift6),
        .testTarget(name: "VaultSimulationTests", dependencies: ["VaultSimulation", "CheckoutVault", "CheckoutCore", "VaultServer",
                                                                "HTTPTransport", "CheckoutLocking"],
                    path: "Tests/VaultSimulationTests", swiftSettings: swift6),
        .testTarget(name: "HTTPTransportTests", dependencies: ["CheckoutTestSupport", "HTTPTransport"],
                    path: "Tests/HTTPTransportTests", swiftSettings: swift6),
        .testTarget(name: "SyncEngineTests",
                    dependencies: ["CheckoutTestSupport", "CheckoutVault", "CheckoutVaultTesting", "VaultServer", "SQLiteKit", "CheckoutCore", "CheckoutLocking",
                                   "Loopback", "HTTPTransport", "Spawning", "TLSTestSupport", "VaultServerPostgres", "CheckoutCoreTesting"],
                    path: "Tests/SyncEngineTests", swiftSettings: swift6),
        .testTarget(name: "VaultServerTests", dependencies: ["CheckoutTestSupport", "VaultServer", "CheckoutVault", "CheckoutCore", "VaultServerPostgres", "CLibPQ", "CheckoutLocking",
                                                           "Spawning", "Loopback", "CheckoutCrypto", "TLSTestSupport", "HTTPTransport",
                                                           "CheckoutCoreTesting"],
                    path: "Tests/VaultServerTests", swiftSettings: swift6),
        .testTarget(name: "ReliabilityTests",
                    dependencies: ["CheckoutTestSupport", "CheckoutCore", "CheckoutKit", "CheckoutTheme", "CardPaymentMethod", "SQLiteKit", "CheckoutVault",
                                   "CheckoutVaultTesting", "VaultServer", "CheckoutLocking", "Spawning", "Loopback",
                                   "CheckoutCrypto", "HTTPTransport", "TLSTestSupport", "CheckoutOrchestration", "CheckoutCoreTesting"],
                    path: "Tests/ReliabilityTests", swiftSettings: swift6),
        // Orchestration: the router, ledger, breaker and CLI scenarios in-process; the SIGKILL child.
        .testTarget(name: "CheckoutOrchestrationTests",
                    dependencies: ["CheckoutTestSupport", "CheckoutOrchestration", "CheckoutOrchestrationPostgres", "CheckoutCore",
                                   "CheckoutLocking", "SQLiteKit", "Spawning", "CLibPQ", "VaultServerPostgres", "VaultServer",
                                   "CheckoutKit", "CardPaymentMethod", "CheckoutCoreTesting", "CheckoutVault"],
                    path: "Tests/CheckoutOrchestrationTests", swiftSettings: swift6),
        .executableTarget(name: "orchestration-crash-child", dependencies: ["CheckoutOrchestration", "CheckoutCore"],
                          path: "Sources/orchestration-crash-child", swiftSettings: swift6),
        .testTarget(name: "CheckoutKitTests", dependencies: ["CheckoutKit", "Spawning"],
                    path: "Tests/CheckoutKitTests", swiftSettings: swift6),
        .testTarget(name: "VaultServerPostgresTests",
                    dependencies: ["CheckoutTestSupport", "VaultServerPostgres", "VaultServer", "CheckoutVault", "CheckoutCore", "CheckoutLocking", "Spawning",
                                   "CheckoutCrypto"],
                    path: "Tests/VaultServerPostgresTests", swiftSettings: swift6),
        .testTarget(name: "CheckoutDemoTests", dependencies: ["CheckoutTestSupport", "CheckoutDemo", "CheckoutKit", "VaultServer", "CheckoutLocking"],
                    path: "Tests/CheckoutDemoTests", swiftSettings: swift6),
        .testTarget(name: "SpawningTests", dependencies: ["Spawning", "CheckoutLocking"],
                    path: "Tests/SpawningTests", swiftSettings: swift6),
        .testTarget(name: "CheckoutScaffoldTests", dependencies: ["CheckoutScaffold", "CheckoutLocking", "Spawning"],
                    path: "Tests/CheckoutScaffoldTests", swiftSettings: swift6),
        .testTarget(name: "CheckoutCoreTests", dependencies: ["CheckoutTestSupport", "CheckoutCore", "CheckoutCoreTesting", "CheckoutLocking"],
                    path: "Tests/CheckoutCoreTests", swiftSettings: swift6),
        .testTarget(name: "CheckoutJSONTests", dependencies: ["CheckoutJSON", "CheckoutTestSupport"],
                    path: "Tests/CheckoutJSONTests", swiftSettings: swift6),
        .testTarget(name: "CheckoutThemeTests", dependencies: ["CheckoutTheme", "CheckoutCore", "CheckoutLocking"],
                    path: "Tests/CheckoutThemeTests", swiftSettings: swift6),
        .testTarget(name: "SQLiteKitTests", dependencies: ["CheckoutTestSupport", "SQLiteKit", "CSQLite", "CheckoutLocking"],
                    path: "Tests/SQLiteKitTests", swiftSettings: swift6),
        .testTarget(name: "CheckoutVaultTests", dependencies: ["CheckoutTestSupport", "CheckoutVault", "SQLiteKit", "CheckoutCore", "CheckoutJSON"],
                    path: "Tests/CheckoutVaultTests", swiftSettings: swift6),
        // CheckoutVault as a host sees it: this target must never depend on (or import) SQLiteKit.
        .testTarget(name: "CheckoutVaultAPITests", dependencies: ["CheckoutVault", "CheckoutCore"],
                    path: "Tests/CheckoutVaultAPITests", swiftSettings: swift6),
        .testTarget(name: "CheckoutCryptoTests", dependencies: ["CheckoutCrypto"],
                    path: "Tests/CheckoutCryptoTests", swiftSettings: swift6),
        .testTarget(name: "CardPaymentMethodTests", dependencies: ["CheckoutTestSupport", "CardPaymentMethod", "CheckoutCore", "CheckoutCoreTesting", "CheckoutLocking"],
                    path: "Tests/CardPaymentMethodTests", swiftSettings: swift6),
    ]
)
