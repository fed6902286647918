import Testing

/// Declared commands parsed and run in-process: output captured, exit codes as the binary's.
@Suite struct InProcessRunTests {
    @Test func cardValidateJSONIsThePinnedOutput() async throws {
        let valid = await runCheckout(["card", "validate", "--number", "4242424242424242", "--json"])
        #expect(valid.status == 0, "\(valid)")
        #expect(valid.stdout == (try pinned("card-valid-json.stdout")), "\(valid)")
        let invalid = await runCheckout(["card", "validate", "--number", "4000 0000 0000 0002", "--cvv", "12", "--name", "",
                                         "--json", "--locale", "de"])
        #expect(invalid.status == 1, "\(invalid)")
        #expect(invalid.stdout == (try pinned("card-invalid-json.stdout")), "\(invalid)")
        #expect(invalid.stderr.isEmpty, "\(invalid)")
    }

    @Test func methodsRunsInProcess() async throws {
        let result = await runCheckout(["methods", "--json"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == (try pinned("methods-json.stdout")), "\(result)")
        #expect(result.stderr == (try pinned("methods-json.stderr")), "\(result)")
    }

    @Test func anUnknownOptionSuggestsTheDeclaredOneAndExits2() async throws {
        let result = await runCheckout(["card", "validate", "--numbr", "4242424242424242"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr == "error: unexpected argument '--numbr'; did you mean '--number'?\nRun `checkout card --help` for usage.\n",
                "\(result)")
        #expect(!result.stderr.contains("4242"), "\(result)")
    }

    @Test func aMissingValueExits2() async {
        let result = await runCheckout(["card", "validate", "--number"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr == "error: --number needs a value\nRun `checkout card --help` for usage.\n", "\(result)")
    }

    @Test(arguments: [
        (["methods", "--bogus"], "error: unexpected argument '--bogus'\n"),
        (["demo", "--verbos"], "error: unexpected argument '--verbos'; did you mean '--verbose'?\n"),
        (["new-method", "GiftCard"], "error: missing required option --type\n"),
        (["new-method", "--type", "GIFT_CARD"], "error: missing NAME (e.g. GiftCard)\n"),
        (["card", "--number", "4242424242424242"], "error: missing subcommand: expected one of validate\n"),
        (["card", "check", "--number", "4242424242424242"], "error: unknown subcommand 'check': expected one of validate\n"),
    ])
    func usageErrorsExit2WithTheirMessage(_ words: [String], _ message: String) async {
        let result = await runCheckout(words)
        #expect(result.status == 2, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr == message + "Run `checkout \(words[0]) --help` for usage.\n", "\(result)")
    }
}
