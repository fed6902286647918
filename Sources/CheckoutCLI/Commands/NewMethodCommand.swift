import CheckoutScaffold
import Foundation

/// `checkout new-method NAME --type TYPE`: scaffolds a payment-method module.
enum NewMethodCommand: DeclaredCommand {
    static let spec = CommandSpec(
        name: "new-method",
        summary: "Scaffold a new payment-method module under Plugins/",
        usage: "USAGE: checkout new-method NAME --type TYPE [--package-path DIR] [--json]",
        about: """
            Creates Plugins/<NAME>PaymentMethod/ (a handler implementing PaymentMethodHandler and a flow
            stubbed to fail with "not implemented"), Tests/<NAME>PaymentMethodTests/, and the Package.swift
            entries, so `swift build` passes straight away. Then fill in the flow and register the handler
            (see the guide "Adding a payment method").
            """,
        arguments: [OptionSpec(name: "NAME", value: nil, help: ["UpperCamelCase module name, e.g. GiftCard"])],
        options: [
            OptionSpec.valued("--type", "TYPE", help: "the payment-method type on the wire, e.g. GIFT_CARD (required)").isRequired(),
            .valued("--package-path", "DIR", help: "the package root (default: the current directory)"),
            .flag("--json", help: "print the created files as a JSON array"),
        ],
        column: 22)

    static func run(_ arguments: inout ParsedCommandLine, output: Output) async throws -> Int32 {
        let json = arguments.flag("--json")
        let type = try arguments.required("--type")
        let root = arguments.value("--package-path") ?? FileManager.default.currentDirectoryPath
        guard let name = arguments.positional() else { throw UsageError(message: "missing NAME (e.g. GiftCard)") }
        try arguments.finish()
        let scaffolder = MethodScaffolder(packageRoot: URL(fileURLWithPath: root))
        let written: [String]
        do {
            written = try scaffolder.scaffold(.init(name: name, type: type))
        } catch let failure as MethodScaffolder.Failure {
            switch failure {
            case .invalidName, .invalidType: throw UsageError(message: failure.description)
            default: throw CommandFailure(message: failure.description)
            }
        }
        if json {
            try output.json(written)
        } else {
            output.line("created \(name)PaymentMethod:")
            for path in written { output.line("  \(path)") }
            output.line("next: implement \(name)PaymentFlow.submit(), then register \(name)PaymentHandler() in your registry")
        }
        return 0
    }
}
