import CheckoutKit
import CheckoutLocking
import Foundation

/// One open checkout: what the merchant asked for, and where the shopper is in paying.
///
/// Idle, a checkout is its request and a few words of state (no session, no form): the session and its card
/// form exist only while an attempt is under way (typed, submitted, waiting for 3-D Secure or a redirect),
/// and are dropped when it ends.
final class HostedCheckout: Sendable {
    /// How the checkout ended, if it has.
    enum Status: Sendable, Equatable {
        case open
        case paid(paymentId: String)
        case cancelled
    }

    /// A payment attempt under way: the session, its flow, and what it pays with.
    struct Attempt: Sendable {
        /// The card form, a saved method, or another method of the list (a redirect or a wallet).
        enum Kind: Sendable, Equatable {
            case card, saved, listed

            /// The checkout's page the shopper goes back to after a failure.
            var page: String {
                switch self {
                case .card: "card"
                case .saved: "saved"
                case .listed: "methods"
                }
            }
        }
        let kind: Kind
        let session: CheckoutSession
        let flow: any PaymentFlow
        /// The card form's "save this card" when the session was made (its client token carries it).
        let saveCard: Bool
        /// The sandbox provider's page for a redirect.
        var redirectURL: URL?
    }

    struct State: Sendable {
        var status: Status = .open
        var attempt: Attempt?
        /// One payment step at a time: a second submit while one runs is answered with the checkout's page.
        var busy = false
        /// What the last attempt's failure tells the shopper (a `hosted.failure.*` key).
        var failure: String?
    }

    let id: String
    let merchant: String
    let request: CheckoutRequest
    let expiresAt: Date
    let state = Locked(State())

    init(id: String, merchant: String, request: CheckoutRequest, expiresAt: Date) {
        self.id = id
        self.merchant = merchant
        self.request = request
        self.expiresAt = expiresAt
    }

    /// Takes the checkout for one payment step; false when another step holds it or the checkout is no longer open
    /// (paid or cancelled while this request was on its way: a second payment never starts).
    func begin() -> Bool {
        state.withLock { state in
            guard !state.busy, state.status == .open else { return false }
            state.busy = true
            return true
        }
    }

    /// Releases the checkout after a step.
    func end() { state.withLock { $0.busy = false } }
}

/// The open checkouts, by id. Expired ones are dropped as new ones are made: at most once a minute (and whenever the
/// table is full), so a checkout outlives its expiry by a minute at most while the server takes new ones, and the work
/// of dropping is spread over the creates.
final class HostedCheckouts: Sendable {
    private struct Table {
        var checkouts: [String: HostedCheckout] = [:]
        var purgedAt = Date.distantPast
    }

    private let table = Locked(Table())
    private let maximum: Int

    init(maximum: Int) { self.maximum = maximum }

    /// Adds a checkout; false when `maximum` are open even after dropping the expired ones.
    func add(_ checkout: HostedCheckout, now: Date) -> Bool {
        table.withLock { table in
            if table.checkouts.count >= maximum || now.timeIntervalSince(table.purgedAt) >= 60 {
                table.checkouts = table.checkouts.filter { $0.value.expiresAt > now }
                table.purgedAt = now
            }
            guard table.checkouts.count < maximum else { return false }
            table.checkouts[checkout.id] = checkout
            return true
        }
    }

    /// The checkout called `id`, expired or not (an expired one still answers "expired" until it is dropped).
    func find(_ id: String) -> HostedCheckout? { table.withLock { $0.checkouts[id] } }

    /// How many checkouts are held.
    var count: Int { table.withLock { $0.checkouts.count } }
}
