import CheckoutLocking
import CheckoutScaffold
import Foundation
import Spawning
import Testing

@Suite struct MethodScaffolderTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let names: [(String, Bool)] = [
        ("GiftCard", true), ("Pix2", true), ("giftCard", false), ("Gift-Card", false), ("", false),
        ("Gift Card", false), ("Ünicode", false), (String(repeating: "A", count: 65), false),
    ]

    @Test(arguments: names)
    func validatesNames(name: String, valid: Bool) throws {
        let root = try temporaryPackage(withManifest: Self.minimalManifest)
        defer { try? FileManager.default.removeItem(at: root) }
        let scaffolder = MethodScaffolder(packageRoot: root)
        if valid {
            #expect(throws: Never.self) { try scaffolder.scaffold(.init(name: name, type: "GIFT_CARD")) }
        } else {
            #expect(throws: MethodScaffolder.Failure.invalidName(name)) {
                try scaffolder.scaffold(.init(name: name, type: "GIFT_CARD"))
            }
            #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("Plugins").path))
        }
    }

    static let types: [(String, Bool)] = [("GIFT_CARD", true), ("PIX", true), ("gift_card", false), ("GIFT-CARD", false), ("", false)]

    @Test(arguments: types)
    func validatesTypes(type: String, valid: Bool) throws {
        let root = try temporaryPackage(withManifest: Self.minimalManifest)
        defer { try? FileManager.default.removeItem(at: root) }
        let result = Result { try MethodScaffolder(packageRoot: root).scaffold(.init(name: "GiftCard", type: type)) }
        if valid {
            #expect(throws: Never.self) { try result.get() }
        } else {
            #expect(throws: MethodScaffolder.Failure.invalidType(type)) { try result.get() }
        }
    }

    @Test func refusesToOverwriteAndNeedsTheMarkers() throws {
        let root = try temporaryPackage(withManifest: Self.minimalManifest)
        defer { try? FileManager.default.removeItem(at: root) }
        let scaffolder = MethodScaffolder(packageRoot: root)
        let written = try scaffolder.scaffold(.init(name: "GiftCard", type: "GIFT_CARD"))
        #expect(written == [
            "Plugins/GiftCardPaymentMethod/GiftCardPaymentHandler.swift",
            "Plugins/GiftCardPaymentMethod/GiftCardPaymentFlow.swift",
            "Tests/GiftCardPaymentMethodTests/GiftCardPaymentHandlerTests.swift",
            "Package.swift",
        ])
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#".target(name: "GiftCardPaymentMethod", dependencies: ["CheckoutCore"],"#))
        #expect(manifest.contains(#".testTarget(name: "GiftCardPaymentMethodTests""#))
        #expect(throws: MethodScaffolder.Failure.self) { try scaffolder.scaffold(.init(name: "GiftCard", type: "GIFT_CARD")) }

        let bare = try temporaryPackage(withManifest: "// no markers\n")
        defer { try? FileManager.default.removeItem(at: bare) }
        #expect(throws: MethodScaffolder.Failure.manifestMarkerMissing(MethodScaffolder.targetsMarker)) {
            try MethodScaffolder(packageRoot: bare).scaffold(.init(name: "GiftCard", type: "GIFT_CARD"))
        }
    }

    /// Copies this package (sources and manifest, no build products) to a temporary directory,
    /// scaffolds a method there and builds the new module and its tests with the real toolchain.
    @Test func scaffoldedModuleBuildsInACopyOfThePackage() async throws {
        let fileManager = FileManager.default
        let copy = fileManager.temporaryDirectory.appendingPathComponent("checkoutkit-scaffold-\(UUID().uuidString)")
        try fileManager.createDirectory(at: copy, withIntermediateDirectories: true)
        defer { try? fileManager.removeItem(at: copy) }
        for item in ["Package.swift", "Sources", "Plugins", "Tests", "Config"] {
            try fileManager.copyItem(at: Self.packageRoot.appendingPathComponent(item), to: copy.appendingPathComponent(item))
        }
        try MethodScaffolder(packageRoot: copy).scaffold(.init(name: "GiftCard", type: "GIFT_CARD"))
        let result = try await run(["swift", "build", "--target", "GiftCardPaymentMethodTests"], in: copy)
        #expect(result.status == 0, "swift build failed:\n\(result.output.suffix(4000))")
        #expect(!result.output.contains("warning:"), "the scaffold must build without warnings:\n\(result.output.suffix(4000))")
    }

    // MARK: Helpers

    static let minimalManifest = """
    // swift-tools-version:6.0
    import PackageDescription
    let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]
    let package = Package(name: "X", targets: [
        // new-method: targets
        // new-method: tests
    ])

    """

    func temporaryPackage(withManifest manifest: String) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("scaffold-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try manifest.write(to: root.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        return root
    }

    /// Runs a command to its end. The blocking read happens on a thread of its own: a minute-long
    /// build must not hold one of Swift concurrency's few threads while other suites run.
    func run(_ arguments: [String], in directory: URL) async throws -> (status: Int32, output: String) {
        let process = try ChildProcess(executable: "/usr/bin/env", arguments: arguments, workingDirectory: directory.path,
                                       standardOutput: .pipe, standardError: .standardOutput)
        let reader = try #require(process.standardOutput)
        let data = await onOwnThread { reader.readDataToEndOfFile() }
        return (await process.waitForExit().status, String(decoding: data, as: UTF8.self))
    }
}
