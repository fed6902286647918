import CheckoutTestSupport
import CardPaymentMethod
import CheckoutCore
import CheckoutTheme
import Foundation
import Testing

extension Reliability {
    /// Seeded fuzzing of every parser that reads outside input: random bytes and structured
    /// mutations of valid inputs (bit flips, truncation, digits, card numbers, SQL metacharacters,
    /// invalid UTF-8, deep nesting, oversize). Each target: no crash, no hang, a typed error for
    /// bad input, and no card number in any printable form of any error.
    @Suite(.timeLimit(.minutes(60)))  // a hang guard that also fits the long variant's 100,000 cases
    struct HostileInput {
        static let cases = ReliabilityBudget.fuzzCases
        static let now = Date(timeIntervalSince1970: 1_800_000_000)

        static func validToken() -> ClientToken {
            ClientToken(merchantId: "m_1", customerId: "c_1", amount: 1999, currency: "EUR", country: "NL",
                        allowedCardNetworks: [.visa, .mastercard], expiresAt: Date(timeIntervalSince1970: 1_893_456_000),
                        paymentMethods: [
                            AdvertisedPaymentMethod(id: "pm_card", type: .paymentCard,
                                                    options: AdvertisedOptions(surcharge: 0, networkSurcharges: ["AMEX": 150],
                                                                               captureVaultedCardCvv: true)),
                            AdvertisedPaymentMethod(id: "pm_paypal", type: .payPal),
                        ])
        }

        @Test("ClientToken.decode: typed errors, no echo")
        func clientToken() throws {
            let seed = ReliabilityBudget.seed &+ 1
            var mutator = FuzzMutator(seed: seed)
            var failures = FuzzFailures(target: "ClientToken.decode", seed: seed)
            let token = Self.validToken()
            let encoded = token.encoded()
            let encoder = JSONEncoder()
            let payload = Array(try encoder.encode(token))
            #expect(try ClientToken.decode(encoded, now: Self.now) == token)
            for index in 0..<Self.cases {
                let text: String
                switch index % 4 {
                case 0: text = String(decoding: mutator.mutate(Array(encoded.utf8)), as: UTF8.self)
                case 1: text = ClientToken.prefix + Base64URL.encode(Data(mutator.mutate(payload)))
                case 2: text = ClientToken.prefix + Base64URL.encode(Data(mutator.mutateStructure(payload)))
                default: text = ClientToken.prefix + String(decoding: mutator.randomBytes(), as: UTF8.self)
                }
                let reached = IndependentParse.tokenPayloadIsJSONObject(text) ? ["payload is a JSON object"] : []
                do {
                    _ = try ClientToken.decode(text, now: Self.now)
                    failures.verdict("accepted", reached: reached)
                } catch let error as CheckoutError {
                    if error.code != .invalidClientToken && error.code != .clientTokenExpired {
                        failures.fail(index, "unexpected code \(error.code)")
                    }
                    failures.checkStrings(of: error, index)
                    failures.verdict("refused \(error.code.rawValue)", reached: reached)
                } catch {
                    failures.fail(index, "untyped error \(type(of: error))")
                    failures.verdict("untyped error", reached: reached)
                }
            }
            // Past the base64url and JSON steps: field checks and the expiry ran, and some tokens passed.
            failures.verify(counters: ["fuzz.clientToken"], planned: Self.cases,
                            atLeast: ["payload is a JSON object": 0.15, "accepted": 0.01, "refused invalid-client-token": 0.3])
        }

        @Test("CheckoutConfiguration.decode: typed errors, no echo")
        func configuration() throws {
            let seed = ReliabilityBudget.seed &+ 2
            var mutator = FuzzMutator(seed: seed)
            var failures = FuzzFailures(target: "CheckoutConfiguration.decode", seed: seed)
            let valid = Array(try Reliability.config("checkout.json"))
            _ = try CheckoutConfiguration.decode(Data(valid))
            for index in 0..<Self.cases {
                let input = index % 5 == 4 ? mutator.randomBytes() : index % 5 < 2 ? mutator.mutateStructure(valid) : mutator.mutate(valid)
                let reached = IndependentParse.isJSONObject(input) ? ["JSON object"] : []
                do {
                    _ = try CheckoutConfiguration.decode(Data(input))
                    failures.verdict("accepted", reached: reached)
                } catch let error as CheckoutError {
                    if error.code != .invalidConfiguration { failures.fail(index, "unexpected code \(error.code)") }
                    failures.checkStrings(of: error, index)
                    failures.verdict("refused \(error.code.rawValue)", reached: reached)
                } catch {
                    failures.fail(index, "untyped error \(type(of: error))")
                    failures.verdict("untyped error", reached: reached)
                }
            }
            failures.verify(counters: ["fuzz.checkoutConfiguration"], planned: Self.cases,
                            atLeast: ["JSON object": 0.15, "accepted": 0.01, "refused invalid-configuration": 0.3])
        }

        @Test("CardNetworkTable(data:): typed errors, no echo")
        func networkTable() throws {
            let seed = ReliabilityBudget.seed &+ 3
            var mutator = FuzzMutator(seed: seed)
            var failures = FuzzFailures(target: "CardNetworkTable(data:)", seed: seed)
            let valid = Array(try Reliability.config("card-networks.json"))
            _ = try CardNetworkTable(data: Data(valid))
            for index in 0..<Self.cases {
                let input = index % 5 == 4 ? mutator.randomBytes() : index % 5 < 2 ? mutator.mutateStructure(valid) : mutator.mutate(valid)
                let reached = IndependentParse.isJSONObject(input) ? ["JSON object"] : []
                do {
                    _ = try CardNetworkTable(data: Data(input))
                    failures.verdict("accepted", reached: reached)
                } catch {
                    // Typed throws: the error can only be CardNetworkTableError.
                    failures.checkStrings(of: error, index)
                    if error.message.isEmpty { failures.fail(index, "empty message for \(error.code)") }
                    failures.verdict("refused \(error.code)", reached: reached)
                }
            }
            failures.verify(counters: ["fuzz.cardNetworkTable"], planned: Self.cases,
                            atLeast: ["JSON object": 0.15, "accepted": 0.01])
        }

        @Test("ThemeResolver.resolve(layers:): typed errors, no echo")
        func themeResolver() throws {
            let seed = ReliabilityBudget.seed &+ 4
            var mutator = FuzzMutator(seed: seed)
            var failures = FuzzFailures(target: "ThemeResolver.resolve(layers:)", seed: seed)
            let base = Array(try Reliability.config("theme.tokens.json"))
            let dark = Array(try Reliability.config("theme.dark.tokens.json"))
            _ = try ThemeResolver.resolve(layers: [ThemeLayer.json(Data(base), name: "base"), .json(Data(dark), name: "dark")])
            for index in 0..<Self.cases {
                var layers = [ThemeLayer.json(Data(base), name: "base")]
                let mutated: [UInt8]
                switch index % 4 {
                case 0:
                    mutated = index % 8 == 0 ? mutator.mutateStructure(base) : mutator.mutate(base)
                    layers = [.json(Data(mutated), name: "base")]
                case 1:
                    mutated = mutator.mutateStructure(dark)
                    layers.append(.json(Data(mutated), name: "dark"))
                case 2:
                    mutated = mutator.mutate(dark)
                    layers.append(.json(Data(mutated), name: "dark"))
                default:
                    mutated = mutator.randomBytes()
                    layers.append(.json(Data(mutated), name: "merchant"))
                }
                let reached = IndependentParse.isJSONObject(mutated) ? ["JSON object"] : []
                do {
                    _ = try ThemeResolver.resolve(layers: layers)
                    failures.verdict("accepted", reached: reached)
                } catch {
                    failures.checkStrings(of: error, index)
                    if error.issues.isEmpty { failures.fail(index, "a ThemeError without issues") }
                    failures.verdict("refused", reached: reached)
                }
            }
            failures.verify(counters: ["fuzz.themeResolver"], planned: Self.cases,
                            atLeast: ["JSON object": 0.15, "accepted": 0.01, "refused": 0.3])
        }

        /// The reference expiry grammar: spaces ignored; `M/YY`, `MM/YY`, `M/YYYY`, `MM/YYYY`, `MMYY`, `MMYYYY`.
        static func referenceExpiry(_ text: String) -> (month: Int, year: Int)? {
            let bytes = text.utf8.filter { $0 != 32 }
            guard bytes.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == 47 }) else { return nil }
            let parts = bytes.split(separator: 47, omittingEmptySubsequences: false)
            func number(_ digits: ArraySlice<UInt8>) -> Int { digits.reduce(0) { $0 * 10 + Int($1 - 48) } }
            let month: Int
            var year: Int
            switch parts.count {
            case 1:
                let digits = parts[0]
                guard digits.count == 4 || digits.count == 6 else { return nil }
                month = number(digits.prefix(2))
                year = number(digits.dropFirst(2))
                if digits.count == 4 { year += 2000 }
            case 2:
                guard (1...2).contains(parts[0].count), parts[1].count == 2 || parts[1].count == 4 else { return nil }
                month = number(parts[0])
                year = number(parts[1]) + (parts[1].count == 2 ? 2000 : 0)
            default:
                return nil
            }
            guard (1...12).contains(month) else { return nil }
            return (month, year)
        }

        @Test("card validator and expiry parser agree with reference rules and never echo")
        func cardValidator() throws {
            let seed = ReliabilityBudget.seed &+ 5
            var mutator = FuzzMutator(seed: seed)
            var failures = FuzzFailures(target: "CardValidator / CardExpiry", seed: seed)
            let table = try CardNetworkTable(data: try Reliability.config("card-networks.json"))
            let reference = try ReferenceCardRules(tableJSON: try Reliability.config("card-networks.json"))
            let now = Self.now
            let open = CardValidator(table: table, clock: .fixed(now))
            let restricted = CardValidator(table: table, allowedNetworks: [.visa, .mastercard], clock: .fixed(now))
            let expiries = ["12/30", "1/31", "12/2030", "1230", "122030", " 12 / 30 ", "00/30", "13/30", "", "1/1/30"]
            for index in 0..<Self.cases {
                let baseNumber = TestCards.variant(mutator.random.pick(TestCards.numbers), &mutator.random)
                let number = index % 4 == 0 ? baseNumber : String(decoding: mutator.mutate(Array(baseNumber.utf8)), as: UTF8.self)
                let cvv = String(decoding: mutator.mutate(Array(mutator.random.pick(["123", "1234", "", "99"]).utf8)), as: UTF8.self)
                let expiry = mutator.random.pick(expiries)
                let expiryText = index % 2 == 0 ? expiry : String(decoding: mutator.mutate(Array(expiry.utf8)), as: UTF8.self)

                let check = open.check(number: number, cvv: cvv, expiry: expiryText)
                let verdict = reference.verdict(number)
                let expected: CardCheck.Issues = switch verdict {
                case .valid: []
                case .required: .numberRequired
                case .invalid: .numberInvalid
                }
                if check.issues.intersection(.number) != expected {
                    failures.fail(index, "number issues \(check.issues.intersection(.number).rawValue), reference \(verdict)")
                }
                if let parsed = CardExpiry(parsing: expiryText) {
                    if let reference = Self.referenceExpiry(expiryText) {
                        if reference.month != parsed.month || reference.year != parsed.year {
                            failures.fail(index, "expiry parsed as \(parsed), reference \(reference)")
                        }
                    } else {
                        failures.fail(index, "expiry parsed as \(parsed) but the reference refuses it")
                    }
                    if CardExpiry(parsing: parsed.description) != parsed { failures.fail(index, "expiry does not round-trip") }
                } else if !expiryText.utf8.allSatisfy({ $0 == 32 }), let reference = Self.referenceExpiry(expiryText), reference.year <= 9999 {
                    failures.fail(index, "expiry refused but the reference parses \(reference)")
                }
                let result = restricted.validate(number: number, cvv: cvv, expiry: expiryText,
                                                 cardholderName: mutator.hostileString())
                var printed = ""
                dump(check, to: &printed)
                dump(result, to: &printed)
                printed += result.errors.map(\.description).joined() + String(describing: result) + String(describing: check)
                if ReferenceCardNumberDetector.containsCardNumber(printed) { failures.fail(index, "a validation result echoes a card number") }
                let expiryReached = Self.referenceExpiry(expiryText) != nil ? ["expiry well-formed"] : []
                failures.verdict("number \(verdict)", reached: expiryReached)
            }
            // Both verdicts of the reference occurred often, and expiries got past the grammar.
            failures.verify(counters: ["fuzz.cardValidator", "fuzz.cardExpiry"], planned: Self.cases,
                            atLeast: ["number valid": 0.1, "number invalid": 0.3, "expiry well-formed": 0.2])
        }
    }
}
