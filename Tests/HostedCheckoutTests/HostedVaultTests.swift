@testable import CheckoutHosted
import CheckoutKit
import CheckoutTestSupport
import Foundation
import MicroHTTPServer
import Testing
import VaultServer

/// Saved cards through the real vault server (on loopback): "save this card" vaults after the payment, a returning
/// customer's checkout lists the card with its CVV recapture, delete asks first; and no byte of any store holds the
/// card number.
@Suite struct HostedVaultTests {
    /// The vault token of the saved method whose row is named `name` ("Visa ending in 4242, ..."), from its select button.
    static func selectable(_ html: String, named name: String) -> String? {
        for part in html.components(separatedBy: "value=\"select:").dropFirst() {
            let tag = part.prefix { $0 != ">" }
            if tag.contains("aria-label=\"\(name)") { return String(part.prefix { $0 != "\"" }) }
        }
        return nil
    }

    @Test func aSavedCardComesBackToTheCustomerAndNoStoreHoldsItsNumber() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hosted-vault-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = [HostedCheckoutTests.key: "merchant_a"]
        let serverPath = directory.appendingPathComponent("server.sqlite").path
        let vaultServer = VaultServer(configuration: VaultServerConfiguration(listen: .init(host: "127.0.0.1", port: 0), apiKeys: keys),
                                      storage: try SQLiteVaultServerStorage(path: serverPath))
        let port = try vaultServer.start()
        defer { vaultServer.stop() }
        let localPath = directory.appendingPathComponent("hosted-vault.sqlite").path
        let vault = HostedVault(remote: try #require(URL(string: "http://127.0.0.1:\(port)")),
                                store: try await VaultStore.open(path: localPath), apiKeys: keys)
        let server = try await HostedCheckoutServer(configuration: HostedCheckoutConfiguration(apiKeys: keys),
                                                    defaults: try CheckoutDefaults.embedded(), vault: vault)
        let harness = HostedCheckoutTests.Harness(server: server)

        // First visit: no saved card, so the method list; the card form offers "save this card".
        let first = try await harness.open()
        var browser = HostedCheckoutTests.Browser()
        #expect(HostedCheckoutTests.text(await browser.get(harness, first)).contains(#"data-screen="payment-methods""#))
        #expect(HostedCheckoutTests.text(await browser.get(harness, first + "/card")).contains(#"name="save""#))
        let paid = await browser.post(harness, first + "/card", HostedCheckoutTests.card("4242 4242 4242 4242") + [("save", "1")])
        #expect(HostedCheckoutTests.header(paid, "Location")?.hasPrefix("https://shop.example/thanks") == true)

        // A second card saved by the same customer; the next checkout lists both and selecting one moves its code field.
        let another = try await harness.open()
        var secondBrowser = HostedCheckoutTests.Browser()
        _ = await secondBrowser.get(harness, another + "/card")
        _ = await secondBrowser.post(harness, another + "/card", HostedCheckoutTests.card("3782 822463 10005").map {
            $0.0 == "cvv" ? ("cvv", "1234") : $0 } + [("save", "1")])
        let listing = try await harness.open()
        var chooser = HostedCheckoutTests.Browser()
        let both = HostedCheckoutTests.text(await chooser.get(harness, listing))
        #expect(both.contains("Visa ending in 4242") && both.contains("American Express ending in 0005"))
        let amex = try #require(Self.selectable(both, named: "American Express"))
        let selected = await chooser.post(harness, listing + "/saved", [("action", "select:" + amex)])
        let moved = HostedCheckoutTests.text(await chooser.get(harness, try #require(HostedCheckoutTests.header(selected, "Location"))))
        #expect(moved.contains("name=\"saved\" value=\"\(amex)\"") && moved.contains("CID"))

        // The returning customer: the saved card, its CVV asked again; paying with it.
        let second = try await harness.open()
        var again = HostedCheckoutTests.Browser()
        let saved = HostedCheckoutTests.text(await again.get(harness, second))
        #expect(saved.contains(#"data-screen="vaulted""#) && saved.contains("Visa ending in 4242"))
        #expect(saved.contains(#"autocomplete="cc-csc""#))
        let token = try #require(Self.selectable(saved, named: "Visa"))
        // A code that is not the card's (letters, the wrong length) is refused with its notice and charges nothing.
        for bad in ["12a", "12", "١٢٣"] {
            let refused = await again.post(harness, second + "/saved", [("saved", token), ("cvv", bad), ("action", "pay")])
            #expect(HostedCheckoutTests.header(refused, "Location") == second + "/saved")
            #expect(HostedCheckoutTests.text(await again.get(harness, second + "/saved")).contains("security code"))
        }
        let paidAgain = await again.post(harness, second + "/saved", [("saved", token), ("cvv", "123"), ("action", "pay")])
        #expect(HostedCheckoutTests.header(paidAgain, "Location")?.hasPrefix("https://shop.example/thanks") == true)

        // Delete asks first, then the card is gone for the next checkout.
        let third = try await harness.open()
        var deleting = HostedCheckoutTests.Browser()
        _ = await deleting.get(harness, third)
        let asked = await deleting.post(harness, third + "/saved", [("action", "delete:" + token)])
        let confirmation = HostedCheckoutTests.header(asked, "Location") ?? ""
        #expect(confirmation.hasPrefix(third + "/delete?m="))
        #expect(HostedCheckoutTests.text(await deleting.get(harness, confirmation)).contains(#"data-screen="vaulted-delete""#))
        _ = await deleting.post(harness, third + "/delete", [("saved", token), ("action", "delete-confirm")])
        let fourth = try await harness.open()
        var last = HostedCheckoutTests.Browser()
        let remaining = HostedCheckoutTests.text(await last.get(harness, fourth))
        #expect(!remaining.contains("Visa ending in 4242") && remaining.contains("American Express ending in 0005"))

        // Every byte of both stores (with their journals) is free of the number, in every spelling the scanner knows.
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).map { directory.appendingPathComponent($0) }
        let (hits, scanned) = PaymentDataByteScanner.scan(files: files, for: ["4242424242424242", "378282246310005"])
        #expect(hits.isEmpty, "\(hits)")
        #expect(scanned > 0)
    }
}
