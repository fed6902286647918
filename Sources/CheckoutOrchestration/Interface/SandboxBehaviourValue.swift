/// One scripted answer of a sandbox processor operation (a `behaviour` value in the routing file).
///
/// | value | `createPayment` / `resumePayment` | `attemptStatus` |
/// |---|---|---|
/// | `succeed` | charges and succeeds | answers from the sandbox's records (the default) |
/// | a `DeclineCategory` code, e.g. `processor-error` | declines/fails with that category's sandbox raw code, charging nothing; `network-error` throws "not sent"; `authentication-required` asks for a 3-D Secure challenge | `network-error` (or any category): the status call itself fails |
/// | `timeout-after-charge` | charges, then throws "outcome unknown" (a timeout after sending) | (as `network-error`) |
/// | `late-failure` | (as `succeed`) | (as `succeed`) |
///
/// For `capture`, `void` and `refund`: `succeed` applies the operation, a category fails it with
/// that category's raw code (`network-error`: not sent), `timeout-after-charge` applies it and then
/// throws "outcome unknown", and `late-failure` accepts a refund as pending that its later status
/// says failed (nothing given back).
public enum SandboxBehaviourValue: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    /// The normal path.
    case succeed
    /// Answer with this category.
    case category(DeclineCategory)
    /// Charge, then time out.
    case timeoutAfterCharge
    /// Accept a refund as pending, then fail it.
    case lateFailure

    /// The spelling of `timeoutAfterCharge`.
    public static let timeoutAfterChargeCode = "timeout-after-charge"
    /// The spelling of `lateFailure`.
    public static let lateFailureCode = "late-failure"
    /// The spelling of `succeed`.
    public static let succeedCode = "succeed"

    /// Every accepted spelling, for error messages and docs.
    public static var allCodes: [String] {
        [succeedCode] + DeclineCategory.allCases.map(\.rawValue) + [timeoutAfterChargeCode, lateFailureCode]
    }

    /// Parses a spelling; nil when unknown.
    public init?(code: String) {
        switch code {
        case Self.succeedCode: self = .succeed
        case Self.timeoutAfterChargeCode: self = .timeoutAfterCharge
        case Self.lateFailureCode: self = .lateFailure
        default:
            guard let category = DeclineCategory(rawValue: code) else { return nil }
            self = .category(category)
        }
    }

    /// The spelling.
    public var code: String {
        switch self {
        case .succeed: Self.succeedCode
        case .category(let category): category.rawValue
        case .timeoutAfterCharge: Self.timeoutAfterChargeCode
        case .lateFailure: Self.lateFailureCode
        }
    }

    public var description: String { code }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = Self(code: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "unknown behaviour value; expected one of \(Self.allCodes.joined(separator: ", "))"))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(code)
    }
}
