import CheckoutCore
import CheckoutVault
import Foundation
import HTTPTransport
import Testing

/// No URL credential in any message (item 1), vault tokens masked where people read
/// (item 9). `--json` output keeps tokens whole: see MerchantBindingCLITests.
struct MessageRedactionTests {
    struct RedactionCase: Sendable, CustomTestStringConvertible {
        var text: String
        var expected: String
        var testDescription: String { text }
    }

    static let cases: [RedactionCase] = [
        .init(text: "http://user:secretpw@vault.example.com/x", expected: "http://•••@vault.example.com/x"),
        .init(text: "cannot reach https://u:p@h:8443 (refused)", expected: "cannot reach https://•••@h:8443 (refused)"),
        .init(text: "'ftp://user:secretpw@h'", expected: "'ftp://•••@h'"),
        .init(text: "http://user:secret/pw@127.0.0.1:1", expected: "http://•••@127.0.0.1:1"),
        .init(text: "postgres://app:p@ss@db/vault and http://a:b@c", expected: "postgres://•••@db/vault and http://•••@c"),
        .init(text: "http://user:secretpw@", expected: "http://•••@"),
        .init(text: "https://vault.example.com:8443/v1", expected: "https://vault.example.com:8443/v1"),
        .init(text: "no URL here, mail me@example.com", expected: "no URL here, mail me@example.com"),
    ]

    @Test("URLCredentialRedactor hides every URL's user and password, and nothing else", arguments: cases)
    func redactor(_ testCase: RedactionCase) {
        #expect(URLCredentialRedactor.redact(testCase.text) == testCase.expected)
    }

    @Test("a remote, a transport error and a sync error built from a URL with a password never show it")
    func noURLCredentialInMessages() async throws {
        let url = try #require(URL(string: "http://user:secretpw@127.0.0.1:1"))
        let remote = HTTPRemoteVault(baseURL: url, apiKey: "a-merchant-key-that-must-not-show")
        #expect(!"\(remote)".contains("secretpw"))
        #expect(!String(reflecting: remote).contains("secretpw"))
        let error = await #expect(throws: RemoteVaultError.self) {
            try await remote.instruments(scope: VaultScope(merchantId: "m", customerId: "c"))
        }
        #expect(!"\(String(describing: error))".contains("secretpw"))
        #expect(!HTTPTransportError(.invalidURL, "bad URL http://user:secretpw@h").message.contains("secretpw"))
        #expect(!SyncError(.unreachable, "cannot reach http://user:secretpw@h").description.contains("secretpw"))
        #expect(!SyncError(RemoteVaultError.unreachable(reason: "lost http://user:secretpw@h")).message.contains("secretpw"))
    }

    static let token = "vt_8c2f0d4e-5b7a-4e1c-9d3b-2a6f1e0c9b7a"

    @Test("vault tokens print masked in descriptions and rejection lines")
    func tokensMasked() {
        #expect(VaultTokenMask.mask(Self.token) == "•••9b7a")
        #expect(VaultTokenMask.mask("tok_1") == "•••", "a short token hides every character")
        let method = VaultedPaymentMethod(id: Self.token, paymentMethodType: .paymentCard, paymentInstrumentType: .paymentCard,
                                          paymentInstrumentData: PaymentInstrumentData(network: .visa, first6Digits: "424242",
                                                                                      last4Digits: "4242"),
                                          analyticsId: "an-1")
        let rejection = SyncRejection(opId: "op-1", scope: Fixture.scope(), kind: .upsert, token: Self.token,
                                      verdict: .rejected, reason: "sensitive-data-rejected", message: nil)
        for text in ["\(method)", "\(rejection)"] {
            #expect(!text.contains(Self.token), "\(text)")
            #expect(!text.contains("8c2f0d4e"), "\(text)")
        }
        #expect("\(method)".contains("•••9b7a"))
        #expect("\(rejection)" == "upsert of •••9b7a in merchant_a/cus_1: rejected (sensitive-data-rejected)")
    }
}
