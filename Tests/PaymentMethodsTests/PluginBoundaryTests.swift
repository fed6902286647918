import CheckoutTestSupport
import Foundation
import Spawning
import Testing

/// A plugin cannot create, resume or fail a payment around the core's rules: code that tries does not
/// compile. Each case is type-checked against the built CheckoutCore module with `swiftc -typecheck`,
/// as a plugin package would be; the control case (the same plugin without the forbidden line) must
/// compile, so a broken harness cannot pass for a refusal.
@Suite(.enabled(if: RequiredDependency.executables.runs(BuiltModules.directory != nil),
                "the built modules are not next to the test bundle: the plugin boundary is not type-checked"))
struct PluginBoundaryTests {
    static var modules: URL? { BuiltModules.directory }

    static let packageRoot = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A plugin's steps whose `tokenize` runs `line` after tokenizing through its services.
    static func plugin(_ line: String) -> String {
        """
        import CheckoutCore

        struct SneakySteps: PaymentSteps {
            let context: PaymentFlowContext
            func tokenize(_ attempt: PaymentStepAttempt) async throws -> PaymentTokenization {
                let token = try await context.services.tokenize(.redirect(context.method.type))
                \(line)
                return .token(token, surcharge: 0)
            }
        }
        """
    }

    /// Type-checks `source` as a plugin would be compiled; returns the exit status and the diagnostics.
    static func typecheck(_ source: String) async throws -> (status: Int32, diagnostics: String) {
        let modules = try #require(modules)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("plugin-boundary-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("Plugin.swift")
        try Data(source.utf8).write(to: file)
        let maps = try FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent("Sources").path)
            .filter { $0.hasPrefix("C") }
            .map { packageRoot.appendingPathComponent("Sources/\($0)/module.modulemap").path }
            .filter { FileManager.default.fileExists(atPath: $0) }
            .flatMap { ["-Xcc", "-fmodule-map-file=\($0)"] }
        let output = directory.appendingPathComponent("diagnostics.txt")
        let child = try ChildProcess(executable: "/usr/bin/env",
                                     arguments: ["swiftc", "-typecheck", "-swift-version", "6", "-I", modules.path] + maps + [file.path],
                                     standardOutput: .file(output.path), standardError: .standardOutput)
        let status = await child.waitForExit().status
        return (status, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }

    @Test("a plugin that only uses its services compiles (the control case)")
    func servicesCompile() async throws {
        let result = try await Self.typecheck(Self.plugin("_ = try await context.services.lookup(bin: \"42424242\")"))
        #expect(result.status == 0, "\(result.diagnostics)")
    }

    /// Code written against the flow types' former names still compiles, warned towards the new names.
    @Test("the flow types' former names still compile, with a warning naming the new ones")
    func formerNamesCompile() async throws {
        let source = """
            import CheckoutCore
            func pending(_ action: PaymentFlowStateMachine.PendingAction) -> String { action.paymentId }
            func flow<S: PaymentSteps>(_ flow: PaymentStepFlow<S>) -> PaymentFlowState { flow.flowState }
            let keeper: PaymentFlowMachine<Void>? = nil
            """
        let result = try await Self.typecheck(source)
        #expect(result.status == 0, "\(result.diagnostics)")
        for renamed in ["PaymentFlowRules", "CorePaymentFlow", "PaymentFlowStateKeeper"] {
            #expect(result.diagnostics.contains("renamed to '\(renamed)'"), "\(result.diagnostics.prefix(600))")
        }
    }

    static let forbidden: [(line: String, inaccessible: String)] = [
        ("_ = await context.pipeline.createPayment(token: token)", "'pipeline' is inaccessible"),
        ("_ = try await context.processor.paymentStatus(paymentId: token.token)", "'processor' is inaccessible"),
        ("let other = PaymentFlowContext(session: context.session, method: context.method, advertised: context.advertised, configuration: nil, processor: SandboxProcessor(), pipeline: context.pipeline, input: .none)",
         "inaccessible"),
    ]

    @Test("reaching for payment creation does not compile", arguments: 0..<forbidden.count)
    func creationIsOutOfReach(_ index: Int) async throws {
        let (line, inaccessible) = Self.forbidden[index]
        let result = try await Self.typecheck(Self.plugin(line))
        #expect(result.status != 0, "compiled: \(line)")
        #expect(result.diagnostics.contains(inaccessible), "\(line): \(result.diagnostics.prefix(600))")
    }
}

/// Where the build put the `.swiftmodule`s this test bundle was linked against.
enum BuiltModules {
    /// The `Modules` directory next to the test bundle (or a few levels up), nil when there is none.
    static let directory: URL? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("Modules")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("CheckoutCore.swiftmodule").path) {
                return candidate
            }
            directory.deleteLastPathComponent()
        }
        return nil
    }()
}
