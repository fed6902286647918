/// The size limits of a saved instrument, shared by the vault server (which refuses an op over
/// them) and the client's vault store (which refuses to queue such an op, since the server would
/// always refuse it).
///
/// Why limits: without them one customer could store instruments so large that a page of their
/// change feed outgrows every client's response limit, and their sync stops for good. With them a
/// stored method's JSON is at most `maxMethodJSONBytes`, so every page of the change feed is far
/// below a client's response limit and a customer at the instrument cap is about five pages of
/// the feed (a page holds at most 1 MiB). Lengths count Unicode scalars (what a JSON string holds), not bytes:
///
/// | field | limit |
/// |---|---|
/// | `id` (the vault token) | 128 |
/// | `paymentMethodType`, `paymentInstrumentType` | 64 each |
/// | `analyticsId` | 128 |
/// | `network`, each of `binData.networks` | 32 |
/// | `first6Digits` / `last4Digits` | 6 / 4 |
/// | `cardholderName` | 60 (names on cards run to 26) |
/// | `binData.networks` | 8 entries |
/// | `binData.issuerCountry` | 3 |
/// | `binData.accountFundingType` | 16 |
/// | `externalPayerInfo.externalPayerId` / `.email` | 64 / 128 |
/// | `externalPayerInfo.firstName`, `.lastName` | 60 each |
///
/// No text field may hold a run of more than `maxDigitRun` digits (runs joined as
/// `CardNumberDetector` joins them): nothing legitimate does, a card number has at most 19, and
/// the server refuses such a field before its card-number scan.
public enum InstrumentLimits {
    /// The longest vault token.
    public static let maxIdLength = 128
    /// The longest `paymentMethodType` and `paymentInstrumentType`.
    public static let maxTypeLength = 64
    /// The longest `analyticsId`.
    public static let maxAnalyticsIdLength = 128
    /// The longest network id (`network` and each entry of `binData.networks`).
    public static let maxNetworkLength = 32
    /// The longest `first6Digits`.
    public static let maxFirstDigitsLength = 6
    /// The longest `last4Digits`.
    public static let maxLastDigitsLength = 4
    /// The longest `cardholderName`.
    public static let maxCardholderNameLength = 60
    /// The most entries of `binData.networks`.
    public static let maxBinNetworks = 8
    /// The longest `binData.issuerCountry`.
    public static let maxIssuerCountryLength = 3
    /// The longest `binData.accountFundingType`.
    public static let maxAccountFundingTypeLength = 16
    /// The longest `externalPayerInfo.externalPayerId`.
    public static let maxExternalPayerIdLength = 64
    /// The longest `externalPayerInfo.email`.
    public static let maxPayerEmailLength = 128
    /// The longest `externalPayerInfo.firstName` and `.lastName`.
    public static let maxPayerNameLength = 60
    /// The longest run of digits any text field may hold (a card number has at most 19).
    public static let maxDigitRun = 19
    /// The most live instruments one customer may hold; an upsert creating one more is refused.
    public static let maxInstrumentsPerCustomer = 1000
    /// An upper bound of a method's JSON (as `JSONWriter.encode` writes it) when every field is within
    /// the limits, with room to spare: every scalar escaped to six bytes is under 5 KiB.
    public static let maxMethodJSONBytes = 8192

    /// Why a method is over the limits: a stable reason code, the field, and a message.
    public struct Violation: Error, Sendable, Equatable, CustomStringConvertible {
        /// `field-too-long` or `digit-run-too-long` (the op reason the server answers).
        public let reason: String
        /// The field's JSON path, e.g. `paymentInstrumentData.cardholderName`.
        public let field: String
        /// A sentence naming the field and its limit; never the value.
        public let message: String

        /// A one-line explanation, safe to log.
        public var description: String { "\(reason): \(message)" }
    }

    /// The first limit `method` exceeds, or nil when it is within every limit. Linear in the
    /// method's size: lengths are checked before digit runs, and a scan stops at its limit.
    public static func violation(of method: VaultedPaymentMethod) -> Violation? {
        let data = method.paymentInstrumentData
        var fields: [(String, String?, Int)] = [
            ("id", method.id, maxIdLength),
            ("paymentMethodType", method.paymentMethodType.rawValue, maxTypeLength),
            ("paymentInstrumentType", method.paymentInstrumentType.rawValue, maxTypeLength),
            ("analyticsId", method.analyticsId, maxAnalyticsIdLength),
            ("paymentInstrumentData.network", data.network?.rawValue, maxNetworkLength),
            ("paymentInstrumentData.first6Digits", data.first6Digits, maxFirstDigitsLength),
            ("paymentInstrumentData.last4Digits", data.last4Digits, maxLastDigitsLength),
            ("paymentInstrumentData.cardholderName", data.cardholderName, maxCardholderNameLength),
            ("paymentInstrumentData.binData.issuerCountry", data.binData?.issuerCountry, maxIssuerCountryLength),
            ("paymentInstrumentData.binData.accountFundingType", data.binData?.accountFundingType,
             maxAccountFundingTypeLength),
            ("paymentInstrumentData.externalPayerInfo.externalPayerId", data.externalPayerInfo?.externalPayerId,
             maxExternalPayerIdLength),
            ("paymentInstrumentData.externalPayerInfo.email", data.externalPayerInfo?.email, maxPayerEmailLength),
            ("paymentInstrumentData.externalPayerInfo.firstName", data.externalPayerInfo?.firstName, maxPayerNameLength),
            ("paymentInstrumentData.externalPayerInfo.lastName", data.externalPayerInfo?.lastName, maxPayerNameLength),
        ]
        if let networks = data.binData?.networks {
            guard networks.count <= maxBinNetworks else {
                return Violation(reason: "field-too-long", field: "paymentInstrumentData.binData.networks",
                                 message: "paymentInstrumentData.binData.networks holds at most \(maxBinNetworks) entries")
            }
            fields += networks.map { ("paymentInstrumentData.binData.networks", $0.rawValue, maxNetworkLength) }
        }
        for (field, value, limit) in fields {
            guard let value else { continue }
            if exceedsLength(value, limit) {
                return Violation(reason: "field-too-long", field: field,
                                 message: "\(field) is longer than \(limit) characters")
            }
            if longestDigitRun(value) > maxDigitRun {
                return Violation(reason: "digit-run-too-long", field: field,
                                 message: "\(field) holds a run of more than \(maxDigitRun) digits")
            }
        }
        return nil
    }

    /// True when `text` has more than `limit` Unicode scalars; stops counting past the limit.
    static func exceedsLength(_ text: String, _ limit: Int) -> Bool {
        var count = 0
        for _ in text.unicodeScalars {
            count += 1
            if count > limit { return true }
        }
        return false
    }

    /// The most digits in one run of `text`, read by the card-number detector's rule (digits of
    /// any script, up to 3 separators of any kind between two of them). One pass; stops as soon
    /// as the run is longer than `maxDigitRun`.
    public static func longestDigitRun(_ text: String) -> Int {
        CardNumberDetector.longestDigitRun(text, limit: maxDigitRun)
    }
}
