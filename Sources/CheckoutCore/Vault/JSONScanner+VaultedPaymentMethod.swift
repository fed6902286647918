import CheckoutJSON

/// Readers for the core's saved-method types, shared by the sync client and the vault server.
extension JSONScanner {
    /// Reads a `VaultedPaymentMethod` exactly as its synthesized `Decodable` conformance does (the
    /// same strictness on both ends of the sync wire: the client's feed reader and the server's
    /// ops reader call this one function).
    public static func vaultedMethod(_ scanner: inout JSONScanner) throws(JSONScanner.Failure) -> VaultedPaymentMethod {
        var id: String?
        var methodType: String?
        var instrumentType: String?
        var data: PaymentInstrumentData?
        var analyticsId: String?
        var isDefault: Bool?
        try scanner.readMembers { (scanner: inout JSONScanner, key: JSONKey) throws(JSONScanner.Failure) in
            switch key {
            case "id":
                guard id == nil else { throw JSONScanner.Failure() }
                id = try scanner.readString()
            case "paymentMethodType":
                guard methodType == nil else { throw JSONScanner.Failure() }
                methodType = try scanner.readString()
            case "paymentInstrumentType":
                guard instrumentType == nil else { throw JSONScanner.Failure() }
                instrumentType = try scanner.readString()
            case "paymentInstrumentData":
                guard data == nil else { throw JSONScanner.Failure() }
                data = try instrumentData(&scanner)
            case "analyticsId":
                guard analyticsId == nil else { throw JSONScanner.Failure() }
                analyticsId = try scanner.readString()
            case "isDefault":
                guard isDefault == nil else { throw JSONScanner.Failure() }
                isDefault = try scanner.readBool()
            default:
                try scanner.skipUnknownValue()
            }
        }
        guard let id, let methodType, let instrumentType, let data, let analyticsId, let isDefault else {
            throw JSONScanner.Failure()
        }
        return VaultedPaymentMethod(id: id, paymentMethodType: PaymentMethodType(rawValue: methodType),
                                    paymentInstrumentType: PaymentInstrumentType(rawValue: instrumentType),
                                    paymentInstrumentData: data, analyticsId: analyticsId, isDefault: isDefault)
    }

    static func instrumentData(_ scanner: inout JSONScanner) throws(JSONScanner.Failure) -> PaymentInstrumentData {
        var data = PaymentInstrumentData()
        var seen = JSONMemberSet()
        try scanner.readMembers { (scanner: inout JSONScanner, key: JSONKey) throws(JSONScanner.Failure) in
            switch key {
            case "network":
                try seen.first(1)
                if try !scanner.readNullIfPresent() { data.network = CardNetwork(rawValue: try scanner.readString()) }
            case "first6Digits":
                try seen.first(2)
                if try !scanner.readNullIfPresent() { data.first6Digits = try scanner.readString() }
            case "last4Digits":
                try seen.first(4)
                if try !scanner.readNullIfPresent() { data.last4Digits = try scanner.readString() }
            case "expirationMonth":
                try seen.first(8)
                if try !scanner.readNullIfPresent() { data.expirationMonth = try scanner.readInt() }
            case "expirationYear":
                try seen.first(16)
                if try !scanner.readNullIfPresent() { data.expirationYear = try scanner.readInt() }
            case "cardholderName":
                try seen.first(32)
                if try !scanner.readNullIfPresent() { data.cardholderName = try scanner.readString() }
            case "binData":
                try seen.first(64)
                if try !scanner.readNullIfPresent() { data.binData = try binData(&scanner) }
            case "externalPayerInfo":
                try seen.first(128)
                if try !scanner.readNullIfPresent() { data.externalPayerInfo = try externalPayerInfo(&scanner) }
            default:
                try scanner.skipUnknownValue()
            }
        }
        return data
    }

    static func externalPayerInfo(_ scanner: inout JSONScanner) throws(JSONScanner.Failure) -> ExternalPayerInfo {
        var id: String?
        var email: String?
        var firstName: String?
        var lastName: String?
        var seen = JSONMemberSet()
        try scanner.readMembers { (scanner: inout JSONScanner, key: JSONKey) throws(JSONScanner.Failure) in
            switch key {
            case "externalPayerId":
                try seen.first(1)
                id = try scanner.readString()
            case "email":
                try seen.first(2)
                if try !scanner.readNullIfPresent() { email = try scanner.readString() }
            case "firstName":
                try seen.first(4)
                if try !scanner.readNullIfPresent() { firstName = try scanner.readString() }
            case "lastName":
                try seen.first(8)
                if try !scanner.readNullIfPresent() { lastName = try scanner.readString() }
            default:
                try scanner.skipUnknownValue()
            }
        }
        guard let id else { throw JSONScanner.Failure() }
        return ExternalPayerInfo(externalPayerId: id, email: email, firstName: firstName, lastName: lastName)
    }

    static func binData(_ scanner: inout JSONScanner) throws(JSONScanner.Failure) -> BinData {
        var networks: [CardNetwork]?
        var country: String?
        var funding: String?
        var seen = 0
        try scanner.readMembers { (scanner: inout JSONScanner, key: JSONKey) throws(JSONScanner.Failure) in
            switch key {
            case "networks":
                guard seen & 1 == 0 else { throw JSONScanner.Failure() }
                seen |= 1
                var list: [CardNetwork] = []
                try scanner.readArray { (scanner: inout JSONScanner) throws(JSONScanner.Failure) in
                    list.append(CardNetwork(rawValue: try scanner.readString()))
                }
                networks = list
            case "issuerCountry":
                guard seen & 2 == 0 else { throw JSONScanner.Failure() }
                seen |= 2
                if try !scanner.readNullIfPresent() { country = try scanner.readString() }
            case "accountFundingType":
                guard seen & 4 == 0 else { throw JSONScanner.Failure() }
                seen |= 4
                if try !scanner.readNullIfPresent() { funding = try scanner.readString() }
            default:
                try scanner.skipUnknownValue()
            }
        }
        guard let networks else { throw JSONScanner.Failure() }
        return BinData(networks: networks, issuerCountry: country, accountFundingType: funding)
    }

}
