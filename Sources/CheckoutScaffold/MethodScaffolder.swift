import Foundation

/// Creates a new payment-method module under `Plugins/`: a handler implementing
/// `PaymentMethodHandler`, a flow whose states are honestly stubbed as not implemented, a test
/// target, and the `Package.swift` entries, so `swift build` passes straight away.
///
/// The manifest is edited at two marker comments (`// new-method: targets` and
/// `// new-method: tests`); everything else in it is left untouched.
public struct MethodScaffolder: Sendable {
    /// What the scaffolder was asked to create.
    public struct Request: Sendable, Equatable {
        /// The module's base name in UpperCamelCase, e.g. `GiftCard` -> `GiftCardPaymentMethod`.
        public var name: String
        /// The payment-method type on the wire, e.g. `GIFT_CARD`.
        public var type: String

        public init(name: String, type: String) {
            self.name = name
            self.type = type
        }
    }

    /// Why scaffolding was refused. Nothing is written when any of these is thrown.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case invalidName(String)
        case invalidType(String)
        case alreadyExists(String)
        case manifestMarkerMissing(String)
        /// No `Package.swift` at the package root: not a Swift package (or not its root).
        case notAPackage(String)
        case io(String)

        public var description: String {
            switch self {
            case .invalidName(let name):
                "invalid name '\(name)': use UpperCamelCase letters and digits, starting with a letter (e.g. GiftCard)"
            case .invalidType(let type):
                "invalid type '\(type)': use upper-case letters, digits and underscores (e.g. GIFT_CARD)"
            case .alreadyExists(let path): "\(path) already exists; choose another name"
            case .manifestMarkerMissing(let marker): "Package.swift has no '\(marker)' marker line"
            case .notAPackage(let root):
                "\(root) has no Package.swift: run new-method in the root of the Swift package that holds your "
                    + "checkout (the folder with Package.swift and Plugins/), or name it with --package-path DIR"
            case .io(let message): message
            }
        }
    }

    /// The marker after which new library targets are inserted.
    public static let targetsMarker = "// new-method: targets"
    /// The marker after which new test targets are inserted.
    public static let testsMarker = "// new-method: tests"

    /// The package root (the directory holding `Package.swift`).
    public let packageRoot: URL

    public init(packageRoot: URL) { self.packageRoot = packageRoot }

    /// Validates the request, writes the module, its tests and the manifest entries.
    /// - Returns: the paths created or changed, relative to the package root.
    @discardableResult
    public func scaffold(_ request: Request) throws -> [String] {
        try Self.validate(request)
        let module = "\(request.name)PaymentMethod"
        let fileManager = FileManager.default
        let pluginDirectory = packageRoot.appendingPathComponent("Plugins/\(module)")
        let testDirectory = packageRoot.appendingPathComponent("Tests/\(module)Tests")
        for directory in [pluginDirectory, testDirectory] where fileManager.fileExists(atPath: directory.path) {
            throw Failure.alreadyExists(directory.path)
        }
        let manifestURL = packageRoot.appendingPathComponent("Package.swift")
        guard fileManager.fileExists(atPath: manifestURL.path) else { throw Failure.notAPackage(packageRoot.path) }
        let manifest: String
        do {
            manifest = try String(contentsOf: manifestURL, encoding: .utf8)
        } catch {
            throw Failure.io("cannot read \(manifestURL.path): \(error.localizedDescription)")
        }
        let updated = try Self.insertEntries(into: manifest, module: module)
        let files: [(URL, String)] = [
            (pluginDirectory.appendingPathComponent("\(request.name)PaymentHandler.swift"), handlerSource(request)),
            (pluginDirectory.appendingPathComponent("\(request.name)PaymentFlow.swift"), flowSource(request)),
            (testDirectory.appendingPathComponent("\(request.name)PaymentHandlerTests.swift"), testSource(request)),
        ]
        do {
            try fileManager.createDirectory(at: pluginDirectory, withIntermediateDirectories: true)
            try fileManager.createDirectory(at: testDirectory, withIntermediateDirectories: true)
            for (url, contents) in files { try contents.write(to: url, atomically: true, encoding: .utf8) }
            try updated.write(to: manifestURL, atomically: true, encoding: .utf8)
        } catch {
            try? fileManager.removeItem(at: pluginDirectory)
            try? fileManager.removeItem(at: testDirectory)
            throw Failure.io("cannot write the module: \(error.localizedDescription)")
        }
        return files.map { $0.0.path.replacingOccurrences(of: packageRoot.path + "/", with: "") } + ["Package.swift"]
    }

    static func validate(_ request: Request) throws {
        let name = request.name.unicodeScalars
        guard let first = name.first, ("A"..."Z").contains(first), name.count <= 64,
              name.allSatisfy({ ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) }) else {
            throw Failure.invalidName(request.name)
        }
        let type = request.type.unicodeScalars
        guard let firstType = type.first, ("A"..."Z").contains(firstType), type.count <= 64,
              type.allSatisfy({ ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }) else {
            throw Failure.invalidType(request.type)
        }
    }

    static func insertEntries(into manifest: String, module: String) throws -> String {
        var lines = manifest.components(separatedBy: "\n")
        guard let targetLine = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == targetsMarker }) else {
            throw Failure.manifestMarkerMissing(targetsMarker)
        }
        let indent = String(lines[targetLine].prefix { $0 == " " })
        lines.insert("""
        \(indent).target(name: "\(module)", dependencies: ["CheckoutCore"],
        \(indent)        path: "Plugins/\(module)", swiftSettings: swift6),
        """, at: targetLine + 1)
        guard let testLine = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == testsMarker }) else {
            throw Failure.manifestMarkerMissing(testsMarker)
        }
        let testIndent = String(lines[testLine].prefix { $0 == " " })
        lines.insert("""
        \(testIndent).testTarget(name: "\(module)Tests", dependencies: ["\(module)", "CheckoutCore"],
        \(testIndent)            path: "Tests/\(module)Tests", swiftSettings: swift6),
        """, at: testLine + 1)
        return lines.joined(separator: "\n")
    }

    func handlerSource(_ request: Request) -> String {
        """
        import CheckoutCore

        /// Pays with \(request.type). Generated by `checkout new-method`; fill in `\(request.name)PaymentSteps`.
        ///
        /// Register it with the registry your host uses:
        /// ```swift
        /// try registry.register(\(request.name)PaymentHandler())
        /// ```
        public struct \(request.name)PaymentHandler: PaymentMethodHandler {
            /// The wire type this handler serves.
            public let type: PaymentMethodType = "\(request.type)"

            /// Default display metadata; `Config/checkout.json` may override any field.
            public let display = PaymentMethodDisplay(name: "\(request.name)", buttonText: "Pay with \(request.name)")

            public init() {}

            /// Decide here whether the method can be offered (currency, country, configuration).
            public func availability(in context: PaymentMethodContext) -> PaymentMethodAvailability {
                .available
            }

            /// The steps of one payment; the core runs them in its flow (`\(request.name)PaymentFlow`).
            public func makeSteps(context: PaymentFlowContext) -> \(request.name)PaymentSteps {
                \(request.name)PaymentSteps(context: context)
            }
        }

        """
    }

    func flowSource(_ request: Request) -> String {
        """
        import CheckoutCore

        /// The payment flow of \(request.type): the core's `CorePaymentFlow` running
        /// `\(request.name)PaymentSteps`, so the state, attempt and outcome rules are the core's.
        public typealias \(request.name)PaymentFlow = CorePaymentFlow<\(request.name)PaymentSteps>

        /// What a \(request.type) payment does; the core's flow does the rest.
        ///
        /// Not implemented yet: `tokenize` fails with `invalidState` so that nobody mistakes the
        /// scaffold for a working method. Replace the failure with a tokenization, e.g.:
        /// ```swift
        /// .token(try await context.services.tokenize(/* your TokenizationRequest */),
        ///        surcharge: context.advertised.options.surcharge ?? 0)
        /// ```
        /// Every other step has a default (create through the pipeline; resume a challenge with its
        /// result; refuse a redirect; no polling, no input check; see `PaymentSteps`).
        public struct \(request.name)PaymentSteps: PaymentSteps {
            let context: PaymentFlowContext

            init(context: PaymentFlowContext) { self.context = context }

            public func tokenize(_ attempt: PaymentStepAttempt) async throws -> PaymentTokenization {
                throw CheckoutError(.invalidState, "\(request.type) payments are not implemented yet")
            }
        }

        """
    }

    func testSource(_ request: Request) -> String {
        """
        import CheckoutCore
        import Foundation
        import Testing
        import \(request.name)PaymentMethod

        @Suite struct \(request.name)PaymentHandlerTests {
            @Test func registersUnderItsType() throws {
                let registry = PaymentMethodRegistry()
                try registry.register(\(request.name)PaymentHandler())
                #expect(registry.handler(for: "\(request.type)")?.type == "\(request.type)")
            }

            @Test func submitReportsNotImplementedUntilFilledIn() async throws {
                let token = ClientToken(merchantId: "m", customerId: "c", amount: 100, currency: "EUR", country: "NL",
                                        allowedCardNetworks: [], expiresAt: WallClock.system.now.addingTimeInterval(600),
                                        paymentMethods: [AdvertisedPaymentMethod(id: "pm", type: "\(request.type)")])
                let registry = PaymentMethodRegistry()
                try registry.register(\(request.name)PaymentHandler())
                let session = CheckoutSession(clientToken: token.encoded(),
                                              configuration: CheckoutConfiguration(paymentMethods: []),
                                              registry: registry, processor: SandboxProcessor())
                await session.start()
                let state = try await session.flow(for: "\(request.type)").submit()
                guard case .failed(let error) = state else {
                    Issue.record("expected the stub to fail, got \\(state)")
                    return
                }
                #expect(error.code == .invalidState)
            }
        }

        """
    }
}
