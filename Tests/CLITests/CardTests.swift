import Foundation
import Spawning
import Testing

/// `checkout card validate`.
@Suite struct CardTests {
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let words: [String]
        let status: Int32
        let json: String
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "valid Visa", words: ["--number", "4242424242424242", "--expiry", "12/39", "--cvv", "123", "--name", "Jo Doe"],
             status: 0,
             json: #"{"errors":[],"formatted":"4242 42•• •••• 4242","masked":"424242••••••4242","network":"VISA","valid":true}"#),
        Case(name: "valid Visa with spaces", words: ["--number", "4242 4242 4242 4242"], status: 0,
             json: #"{"errors":[],"formatted":"4242 42•• •••• 4242","masked":"424242••••••4242","network":"VISA","valid":true}"#),
        Case(name: "Luhn failure", words: ["--number", "4242424242424241"], status: 1,
             json: #"{"errors":[{"code":"invalid-card-number","field":"cardNumber"}],"formatted":"4242 42•• •••• 4241","masked":"424242••••••4241","network":"VISA","valid":false}"#),
        Case(name: "AMEX not allowed", words: ["--number", "378282246310005", "--allowed", "VISA,MASTERCARD"], status: 1,
             json: #"{"errors":[{"code":"unsupported-card-type","field":"cardNumber"}],"formatted":"3782 82•••• •0005","masked":"378282•••••0005","network":"AMEX","valid":false}"#),
        Case(name: "AMEX valid", words: ["--number", "378282246310005", "--cvv", "1234"], status: 0,
             json: #"{"errors":[],"formatted":"3782 82•••• •0005","masked":"378282•••••0005","network":"AMEX","valid":true}"#),
        Case(name: "AMEX expired, short CVV", words: ["--number", "378282246310005", "--cvv", "123", "--expiry", "01/20"],
             status: 1,
             json: #"{"errors":[{"code":"card-expired","field":"expiryDate"},{"code":"invalid-cvv","field":"cvv"}],"formatted":"3782 82•••• •0005","masked":"378282•••••0005","network":"AMEX","valid":false}"#),
        Case(name: "no network, Luhn failure", words: ["--number", "9999999999999999"], status: 1,
             json: #"{"errors":[{"code":"invalid-card-number","field":"cardNumber"}],"formatted":"9999 99•• •••• 9999","masked":"999999••••••9999","network":null,"valid":false}"#),
    ]

    @Test(arguments: cases) func validateJSON(_ testCase: Case) async throws {
        let result = try await CLI.run(["card", "validate"] + testCase.words + ["--json"])
        #expect(result.status == testCase.status, "\(testCase): \(result)")
        #expect(result.stdout == testCase.json + "\n", "\(testCase): \(result)")
        #expect(result.stderr.isEmpty, "\(testCase): \(result)")
    }

    @Test(arguments: ["4222222222222", "378282246310005", "4242424242424242", "6759649826438453", "6759649826438453000",
                      "4242-4242-4242-4242"])
    func maskedShowsAtMostFirstSixAndLastFour(_ number: String) async throws {
        let result = try await CLI.run(["card", "validate", "--number", number, "--json"])
        #expect(result.status == 0 || result.status == 1, "\(result)")
        let masked = try #require(try result.object()["masked"] as? String)
        let digits = number.filter(\.isNumber)
        let visible = masked.filter(\.isNumber)
        #expect(visible.count <= 10, "\(masked)")
        #expect(masked.count == digits.count, "one mask character per hidden digit: \(masked)")
        #expect(masked.hasPrefix(String(digits.prefix(6))), "\(masked)")
        #expect(!masked.contains(digits), "\(masked)")
        #expect(!result.stderr.contains(digits), "\(result)")
    }

    @Test("the number and CVV can come from standard input, and no full number is ever printed")
    func fromStandardInput() async throws {
        let result = try await CLI.run(["card", "validate", "--number", "-", "--cvv", "-", "--expiry", "12/39", "--json"],
                                       standardInput: "4242 4242 4242 4242\n123\n")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == #"{"errors":[],"formatted":"4242 42•• •••• 4242","masked":"424242••••••4242","network":"VISA","valid":true}"# + "\n")
        #expect(!result.stdout.contains("4242 4242 4242 4242") && !result.stderr.contains("4242 4242"))
        let amex = try await CLI.run(["card", "validate", "--number", "-", "--cvv", "-", "--json"], standardInput: "378282246310005\n12\n")
        #expect(try amex.object()["errors"] as? [[String: String]] == [["code": "invalid-cvv", "field": "cvv"]], "\(amex)")
        let ended = try await CLI.run(["card", "validate", "--number", "-", "--cvv", "-"], standardInput: "4242424242424242\n")
        #expect(ended.status == 2, "\(ended)")
        #expect(ended.stderr.contains("--cvv -: standard input ended"), "\(ended)")
    }

    @Test("on a terminal the number is asked for with a prompt and not echoed")
    func promptWithoutEcho() async throws {
        // `script` (util-linux, essential in Debian) gives the CLI a pseudo-terminal; the number
        // is typed only once the prompt is there, as a person would.
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let binary = try CLI.binary().path
        let shell = """
            cd '\(directory.path)' && mkfifo in && \
            { NO_COLOR=1 script -qfec '\(binary) card validate --number - --json' /dev/null < in > out 2>&1 & } && \
            exec 3> in && for i in $(seq 1 600); do grep -q 'Card number:' out && break; sleep 0.1; done && \
            echo 4242424242424242 >&3 && exec 3>&- && wait
            """
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", shell], standardOutput: .discard,
                                     standardError: .discard)
        DispatchQueue.global().asyncAfter(deadline: .now() + 120) { child.kill() }
        _ = await child.waitForExit()
        let output = String(decoding: try Data(contentsOf: directory.appendingPathComponent("out")), as: UTF8.self)
        #expect(output.contains("Card number:"), "\(output)")
        #expect(output.contains(#""masked":"424242••••••4242""#), "\(output)")
        #expect(!output.contains("4242424242424242"), "the number was echoed")
    }

    @Test func textOutput() async throws {
        let result = try await CLI.run(["card", "validate", "--number", "4242424242424241"])
        #expect(result.status == 1, "\(result)")
        #expect(result.lines == ["network:  VISA", "valid:    no", "masked:   424242••••••4241",
                                 "error:    cardNumber: invalid-card-number"], "\(result)")
    }

    static let usageCases: [UsageCase] = [
        UsageCase(words: ["card"], message: "error: missing subcommand"),
        UsageCase(words: ["card", "check", "--number", "4242424242424242"], message: "error: unknown subcommand 'check'"),
        UsageCase(words: ["card", "validate"], message: "error: missing required option --number"),
        UsageCase(words: ["card", "validate", "--number"], message: "error: --number needs a value"),
        UsageCase(words: ["card", "validate", "--number", "4242424242424242", "--number", "4242424242424242"],
                  message: "error: --number may be given only once"),
        UsageCase(words: ["card", "validate", "--number", "4242424242424242", "--allowed", "VISA,FOO"],
                  message: "error: --allowed: unknown network 'FOO'"),
        UsageCase(words: ["card", "validate", "--number", "4242424242424242", "--allowed", "VISA,"],
                  message: "error: --allowed has an empty network name"),
        UsageCase(words: ["card", "validate", "--number", "4242424242424242", "--frobnicate"],
                  message: "error: unexpected argument '--frobnicate'"),
    ]

    @Test(arguments: usageCases) func usageErrorsExit2(_ testCase: UsageCase) async throws {
        let result = try await CLI.run(testCase.words)
        #expect(result.status == 2, "\(testCase): \(result)")
        #expect(result.stdout.isEmpty, "\(testCase): \(result)")
        #expect(result.stderr.hasPrefix(testCase.message), "\(testCase): \(result)")
        #expect(!result.stderr.contains("4242424242424242"), "\(result)")
    }

    /// Card numbers (Luhn-valid or not, with or without separators) typed where they do not belong.
    static let strays: [[String]] = [
        ["card", "validate", "--number", "5555555555554444", "4000056655665556"],
        ["card", "validate", "--number", "5555555555554444", "4000000000000003"],
        ["card", "4000056655665556", "validate", "--number", "5555555555554444"],
        ["card", "validate", "--number", "5555555555554444", "4000 0566 5566 5556"],
        ["card", "validate", "--number", "5555555555554444", "--card=4000056655665556"],
        ["card", "validate", "4000056655665556"],
    ]

    @Test(arguments: strays) func aStrayCardNumberIsNeverEchoed(_ words: [String]) async throws {
        let result = try await CLI.run(words)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.hasPrefix("error: "), "\(result)")
        for stray in ["4000056655665556", "4000000000000003", "4000 0566 5566 5556", "5555555555554444"] {
            #expect(!result.stderr.contains(stray), "\(result)")
            #expect(!result.stdout.contains(stray), "\(result)")
        }
        #expect(!result.stderr.contains("55665556"), "no long run of the number either\n\(result)")
    }
}
