/// A path of the vault API and the methods it answers.
///
/// Matching looks at the path's shape only, segment by segment as they arrived (a decoded `/`
/// never splits a segment: `RequestTarget` refuses it); ids are checked later, after authentication, so an
/// unknown path is 404 and a known one with the wrong method is 405 with the path's own `Allow`.
enum VaultRoute: Sendable, Equatable {
    /// `/health`
    case health
    /// `/v1/customers/{customer}/instruments`
    case instruments(customer: String)
    /// `/v1/customers/{customer}/instruments/{id}`
    case instrument(customer: String, id: String)
    /// `/v1/customers/{customer}/changes`
    case changes(customer: String)
    /// `/v1/customers/{customer}/ops`
    case ops(customer: String)
    /// `/v1/customers/{customer}/ephemeral-keys`
    case mintKey(customer: String)
    /// `/v1/ephemeral-keys/{id}`
    case revokeKey(id: String)
    /// `/v1/whoami`: the merchant (and customer) behind the caller's credential.
    case whoami

    /// The route of a path's decoded segments (`RequestTarget.segments(of:)`), or nil: 404.
    init?(segments: [String]) {
        switch segments.count {
        case 1 where segments[0] == "health":
            self = .health
        case 2 where segments[0] == "v1" && segments[1] == "whoami":
            self = .whoami
        case 3 where segments[0] == "v1" && segments[1] == "ephemeral-keys":
            self = .revokeKey(id: segments[2])
        case 4 where segments[0] == "v1" && segments[1] == "customers":
            switch segments[3] {
            case "instruments": self = .instruments(customer: segments[2])
            case "changes": self = .changes(customer: segments[2])
            case "ops": self = .ops(customer: segments[2])
            case "ephemeral-keys": self = .mintKey(customer: segments[2])
            default: return nil
            }
        case 5 where segments[0] == "v1" && segments[1] == "customers" && segments[3] == "instruments":
            self = .instrument(customer: segments[2], id: segments[4])
        default:
            return nil
        }
    }

    /// The methods the path answers, as `Allow` lists them.
    var methods: [String] {
        switch self {
        case .health: ["GET", "HEAD"]
        case .instruments, .changes, .whoami: ["GET"]
        case .instrument, .revokeKey: ["DELETE"]
        case .ops, .mintKey: ["POST"]
        }
    }

    /// A stable name of the route for log lines (which never hold the path itself).
    var name: String {
        switch self {
        case .health: "health"
        case .instruments: "instruments"
        case .instrument: "instrument"
        case .changes: "changes"
        case .ops: "ops"
        case .mintKey: "mint-key"
        case .revokeKey: "revoke-key"
        case .whoami: "whoami"
        }
    }

    /// The customer in the path, if any.
    var customer: String? {
        switch self {
        case .instruments(let customer), .instrument(let customer, _), .changes(let customer), .ops(let customer),
             .mintKey(let customer):
            customer
        case .health, .revokeKey, .whoami:
            nil
        }
    }

    /// True for the routes that manage keys: only a merchant API key may call them.
    var managesKeys: Bool {
        switch self {
        case .mintKey, .revokeKey: true
        default: false
        }
    }

    /// True for the routes that read a request body (the POSTs); any other refuses one from the
    /// head (413 `body-not-allowed`) without reading it.
    var takesBody: Bool {
        switch self {
        case .ops, .mintKey: true
        default: false
        }
    }

    /// True for the routes that change the vault (refused to a read-only key).
    var writes: Bool {
        switch self {
        case .instrument, .ops: true
        default: false
        }
    }
}
