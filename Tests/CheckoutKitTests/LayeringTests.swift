import Foundation
import Spawning
import Testing

/// The module graph as the architecture draws it: every product target sits in a layer and
/// depends only on targets of lower layers (never sideways: the vault, the orchestration, the
/// vault server and the plugins never depend on one another), and every `import` in a target's
/// sources names a dependency the target declares (no reaching past the graph through a module
/// that happens to be built). The graph is read from `swift package dump-package`, the imports
/// from the sources.
@Suite struct LayeringTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Lowest first. A target may depend on targets of earlier layers only.
    static let layers: [(name: String, targets: Set<String>)] = [
        ("C libraries", ["CSQLite", "CLibUUID", "COpenSSL", "CCurl", "CMicroHTTPD", "CLibPQ", "CLibPNG", "CSpawn", "CBenchBaselines"]),
        ("platform", ["CheckoutLocking", "CheckoutPlatform", "CheckoutJSON", "Loopback", "CheckoutScaffold"]),
        ("kits", ["CheckoutCrypto", "SQLiteKit", "HTTPTransport", "PostgresKit", "MicroHTTPServer", "Spawning"]),
        ("core", ["CheckoutCore"]),
        ("domain", ["CheckoutTheme", "CheckoutVault", "CheckoutOrchestration", "VaultServer", "CardPaymentMethod",
                    "RedirectPaymentMethod", "WalletPaymentMethods", "VaultedPaymentMethod", "CheckoutCoreTesting"]),
        ("adapters", ["VaultServerPostgres", "CheckoutOrchestrationPostgres", "CheckoutPreview", "CheckoutVaultTesting"]),
        ("assembly", ["CheckoutKit", "VaultSimulation"]),
        ("services", ["CheckoutHosted"]),
        ("applications", ["CheckoutDemo"]),
        ("command line", ["CheckoutCLI"]),
        ("executables", ["checkout", "vault-server", "vault-sim", "sandbox-psp", "checkout-bench", "vault-crash-child",
                         "orchestration-crash-child"]),
    ]

    /// Modules every target may import: the toolchain's.
    static let toolchain: Set<String> = ["Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML", "Dispatch",
                                         "Glibc", "Darwin", "Synchronization", "Testing", "XCTest", "_Concurrency"]

    struct Target {
        let name: String
        let path: String
        let isTest: Bool
        let dependencies: [String]
    }

    /// The package's targets, read once for both checks.
    static let targets = Task { try await dumpPackage() }

    static func dumpPackage() async throws -> [Target] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("layering-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let output = scratch.appendingPathComponent("package.json")
        // A scratch path of its own: the running `swift test` holds the lock of `.build`.
        let child = try ChildProcess(executable: "/usr/bin/env",
                                     arguments: ["swift", "package", "--package-path", packageRoot.path, "--scratch-path",
                                                 scratch.appendingPathComponent("build").path, "dump-package"],
                                     standardOutput: .file(output.path), standardError: .discard)
        let status = await child.waitForExit().status
        try #require(status == 0, "swift package dump-package failed (\(status))")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: output)) as? [String: Any])
        let targets = try #require(json["targets"] as? [[String: Any]])
        return try targets.map { target in
            let name = try #require(target["name"] as? String)
            let type = try #require(target["type"] as? String)
            let path = (target["path"] as? String) ?? "Sources/\(name)"
            let dependencies = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { dependency -> String? in
                (dependency.values.first as? [Any])?.first as? String
            }
            return Target(name: name, path: path, isTest: type == "test" || path.hasPrefix("Tests/"), dependencies: dependencies)
        }
    }

    /// The modules `text` imports (`import X`, `@testable import X`, `internal import X`, `@_exported import X`).
    /// Lines inside multi-line string literals (generated code, scripts) are not imports.
    static func imports(in text: String) -> Set<String> {
        var found: Set<String> = []
        var inLiteral = false
        for line in text.split(separator: "\n") {
            if line.components(separatedBy: "\"\"\"").count % 2 == 0 {
                inLiteral.toggle()
                continue
            }
            if inLiteral { continue }
            let words = line.split(separator: " ").map(String.init)
            guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
                  words[..<index].allSatisfy({ $0.hasPrefix("@") || ["internal", "public", "package", "private", "fileprivate"].contains($0) })
            else { continue }
            let kinds: Set<String> = ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"]
            let name = kinds.contains(words[index + 1]) && index + 2 < words.count ? words[index + 2] : words[index + 1]
            found.insert(String(name.split(separator: ".").first ?? ""))
        }
        return found
    }

    @Test func theImportReaderSeesEveryForm() {
        let text = "import A\n@testable import B\ninternal import C\n@_exported import D\nimport struct E.Thing\n// import F\n"
            + "let x = \"\"\"\nimport G\n\"\"\"\nlet y = 1"
        #expect(Self.imports(in: text) == ["A", "B", "C", "D", "E"])
    }

    @Test func productTargetsDependOnlyDownward() async throws {
        let targets = try await Self.targets.value.filter { !$0.isTest }
        var layerOf: [String: Int] = [:]
        for (index, layer) in Self.layers.enumerated() { for name in layer.targets { layerOf[name] = index } }
        #expect(targets.count > 40, "read \(targets.count) targets")
        for target in targets {
            guard let own = layerOf[target.name] else {
                Issue.record("\(target.name) is in no layer: place it in LayeringTests.layers")
                continue
            }
            for dependency in target.dependencies {
                guard let theirs = layerOf[dependency] else { continue }  // reported as its own target
                #expect(theirs < own, "\(target.name) (\(Self.layers[own].name)) depends on \(dependency) (\(Self.layers[theirs].name))")
            }
        }
    }

    @Test func everyImportIsADeclaredDependency() async throws {
        let targets = try await Self.targets.value
        let names = Set(targets.map(\.name))
        var files = 0
        for target in targets {
            let directory = Self.packageRoot.appendingPathComponent(target.path)
            let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
            while let url = walker?.nextObject() as? URL {
                guard url.pathExtension == "swift" else { continue }
                files += 1
                let text = try String(contentsOf: url, encoding: .utf8)
                for module in Self.imports(in: text) where !Self.toolchain.contains(module) && module != target.name {
                    #expect(target.dependencies.contains(module) || !names.contains(module),
                            "\(url.path.dropFirst(Self.packageRoot.path.count + 1)) imports \(module), which \(target.name) does not declare")
                    #expect(names.contains(module), "\(url.lastPathComponent) imports \(module), which is no target of the package")
                }
            }
        }
        #expect(files > 500, "read \(files) files")
    }
}
