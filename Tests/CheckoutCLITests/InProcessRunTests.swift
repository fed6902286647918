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

    @Test(arguments: [
        (["vault", "list", "--merchant", "m", "--customer", "c", "--number", "4242424242424242"],
         "error: --number, --expiry, --cvv, --name and --default belong to vault add, not vault list\n", "vault"),
        (["vault", "delete", "--merchant", "m", "--customer", "c", "--id", "vt_1", "--default"],
         "error: --number, --expiry, --cvv, --name and --default belong to vault add, not vault delete\n", "vault"),
        (["vault", "add", "--merchant", "m", "--customer", "c", "--number", "4242424242424242", "--expiry", "12/30", "--id", "x"],
         "error: vault add does not take --id\n", "vault"),
        (["vault", "list", "--merchant", "m", "--customer", "c", "--id", "x"], "error: vault list does not take --id\n", "vault"),
        (["vault", "key", "revoke", "--remote", "https://127.0.0.1:1", "--api-key", "k", "--id", "x", "--ttl", "5"],
         "error: --ttl applies only to create\n", "vault"),
        (["vault", "key", "revoke", "--remote", "https://127.0.0.1:1", "--api-key", "k", "--id", "x", "--read-only"],
         "error: --customer and --read-only belong to create\n", "vault"),
        (["vault", "key", "create", "--remote", "https://127.0.0.1:1", "--api-key", "k", "--customer", "c", "--id", "x"],
         "error: --id belongs to revoke\n", "vault"),
        (["ledger", "list", "--ledger", "/nonexistent/ledger.sqlite", "--routing", "routing.json"],
         "error: --routing is only for ledger reconcile\n", "ledger"),
    ])
    func anOptionOfAnotherSubcommandIsRefusedFromItsDeclaration(_ words: [String], _ message: String, _ command: String) async {
        let result = await runCheckout(words)
        #expect(result.status == 2, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr == message + "Run `checkout \(command) --help` for usage.\n", "\(result)")
        #expect(!result.stderr.contains("4242"), "\(result)")
    }
}
