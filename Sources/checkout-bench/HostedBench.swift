import CheckoutHosted
import CheckoutKit
import CheckoutPreview
import Foundation
import MicroHTTPServer

/// The hosted checkout's server time per page and memory per open checkout, through its request handler (no
/// sockets: what the server spends, not the loopback's).
///
/// - Render: `GET /c/<id>` (the method list) and `GET /c/<id>/card` (the card form) with the browser's cookie:
///   locale choice, the CSRF token's HMAC, the layout of the light and the dark copy, painting, headers. The
///   p99 of single requests is judged (< 1 ms); the baseline, paired and alternated, is the preview renderer's
///   static page of the same screen (one copy, no form).
/// - Memory: heap growth over N checkouts created through `POST /v1/checkouts` and each opened once by a shopper
///   (`GET /c/<id>`), per checkout (< 64 KB).
enum HostedBench {
    static let key = "ck_bench_hosted_0123456789abcdef"

    static func run(_ options: BenchOptions) async throws -> [Figure] {
        let defaults = try options.defaults()
        let server = try await HostedCheckoutServer(
            configuration: HostedCheckoutConfiguration(apiKeys: [key: "merchant_bench"], maxOpenCheckouts: 1_000_000,
                                                       requestsPerSecondPerAddress: 1e9, attemptsPerMinutePerCheckout: 1e9),
            defaults: defaults)
        var figures: [Figure] = []
        let path = try await create(server)
        let opened = await server.handle(ServedRequest(method: "GET", path: path, peerAddress: "127.0.0.1"))
        guard opened.status == 200, let cookie = opened.headers.first(where: { $0.name == "Set-Cookie" })?.value else {
            throw BenchFailure("hosted: the checkout page answered \(opened.status) without a cookie")
        }
        let headers = [(name: "Cookie", value: String(cookie.prefix { $0 != ";" })), (name: "Accept-Language", value: "en")]
        let strings = defaults.strings.strings(for: LocaleTag("en") ?? CheckoutLocale.choose(token: nil, configuration: nil))
        let fields = try defaults.cardFormFields()
        let preview = PreviewRenderer(theme: try defaults.themes.theme(.light), mode: .light, strings: strings,
                                      sample: PreviewSample(currency: try Currency(code: "EUR")), cardFields: fields.card,
                                      billingFields: fields.billing)
        let count = options.scale(2_000, quick: 200)
        for (name, page, screen) in [("methods", path, PreviewScreen.paymentMethods), ("card_form", path + "/card", .cardForm)] {
            let request = ServedRequest(method: "GET", path: page, headers: headers, peerAddress: "127.0.0.1")
            var samples: [Double] = []
            samples.reserveCapacity(count)
            var bytes = 0
            let paired = try await Measure.paired(options.repeats, {
                try await Measure.seconds {
                    for _ in 0..<count {
                        let start = DispatchTime.now().uptimeNanoseconds
                        let answer = await server.handle(request)
                        samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                        guard answer.status == 200 else { throw BenchFailure("hosted: \(page) answered \(answer.status)") }
                        bytes = answer.body.count
                    }
                } / Double(count)
            }, baseline: {
                Measure.seconds { for _ in 0..<count { _ = preview.render(screen) } } / Double(count)
            })
            let sorted = samples.sorted()
            let p99 = Measure.percentile(sorted, 0.99) * 1e3
            figures.append(Figure(
                name: "hosted.render_p99_\(name)", value: p99, unit: "ms", baseline: paired.baseline.median * 1e3,
                baselineName: "the preview's static page of the screen", ratio: paired.ratio, pairs: paired.pairs,
                target: "< 1 ms", targetMet: p99 < 1,
                note: "server time of GET \(name == "methods" ? "/c/ID" : "/c/ID/card") through the handler, \(sorted.count) requests; "
                    + "p50 \(Figure.format(Measure.percentile(sorted, 0.5) * 1e3)) ms; \(bytes / 1024) KB page (light and dark copies)"))
        }

        let checkouts = options.scale(20_000, quick: 2_000)
        Measure.trimHeap()
        let heapBefore = Measure.heapInUse, rssBefore = Measure.rssBytes
        for _ in 0..<checkouts {
            let page = try await create(server)
            let shown = await server.handle(ServedRequest(method: "GET", path: page, peerAddress: "127.0.0.1"))
            guard shown.status == 200 else { throw BenchFailure("hosted: a new checkout answered \(shown.status)") }
        }
        let perCheckout = Double(Measure.heapInUse - heapBefore) / Double(checkouts) / 1024
        guard server.heldCheckouts == checkouts + 1 else { throw BenchFailure("hosted: \(server.heldCheckouts) checkouts held") }
        figures.append(Figure(
            name: "hosted.idle_checkout_memory", value: perCheckout, unit: "KB/checkout", target: "< 64 KB", targetMet: perCheckout < 64,
            note: "heap growth over \(checkouts) checkouts created and opened once; RSS growth "
                + "\(Figure.format(Double(Measure.rssBytes - rssBefore) / Double(checkouts) / 1024)) KB/checkout"))
        withExtendedLifetime(server) {}
        return figures
    }

    private static func create(_ server: HostedCheckoutServer) async throws -> String {
        let body = #"{"amount": 4999, "currency": "EUR", "customer": "c_bench", "successUrl": "https://shop.example/ok", "#
            + #""cancelUrl": "https://shop.example/cart", "capture": true}"#
        let answer = await server.handle(ServedRequest(method: "POST", path: "/v1/checkouts",
                                                       headers: [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")],
                                                       body: Array(body.utf8), peerAddress: "127.0.0.1"))
        guard answer.status == 201, let url = (try? JSONReader.read(answer.body))?["url"]?.stringValue,
              let path = URL(string: url)?.path else {
            throw BenchFailure("hosted: creating a checkout answered \(answer.status)")
        }
        return path
    }
}
