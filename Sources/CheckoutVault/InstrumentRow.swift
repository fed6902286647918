import CheckoutCore
internal import SQLiteKit

/// Column list, bindings and decoding of `payment_instrument` rows (the fast path: no `Codable`,
/// and column names resolved once per query, not once per row).
enum InstrumentRow {
    /// The selected columns (`decode` finds them by name).
    static let columns = """
        token, payment_method_type, instrument_type, network, first6, last4, exp_month, exp_year, \
        cardholder_name, bin_networks, bin_country, bin_funding, analytics_id, is_default, version, deleted, \
        last_used, updated, payer_id, payer_email, payer_first_name, payer_last_name
        """

    /// The insert part shared by local and remote upserts; parameters ?1–?23 (see `bind`).
    static let insert = """
        INSERT INTO payment_instrument (merchant_id, customer_id, token, payment_method_type, instrument_type, \
        network, first6, last4, exp_month, exp_year, cardholder_name, bin_networks, bin_country, bin_funding, \
        analytics_id, is_default, version, last_used, updated, deleted, payer_id, payer_email, payer_first_name, \
        payer_last_name) \
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, 0, ?20, ?21, ?22, ?23) \
        ON CONFLICT (merchant_id, customer_id, token) DO UPDATE SET \
        payment_method_type = excluded.payment_method_type, instrument_type = excluded.instrument_type, \
        network = excluded.network, first6 = excluded.first6, last4 = excluded.last4, \
        exp_month = excluded.exp_month, exp_year = excluded.exp_year, cardholder_name = excluded.cardholder_name, \
        bin_networks = excluded.bin_networks, bin_country = excluded.bin_country, bin_funding = excluded.bin_funding, \
        analytics_id = excluded.analytics_id, is_default = excluded.is_default, deleted = 0, updated = excluded.updated, \
        payer_id = excluded.payer_id, payer_email = excluded.payer_email, payer_first_name = excluded.payer_first_name, \
        payer_last_name = excluded.payer_last_name
        """

    /// A local save: keeps the server version, moves the row up the list.
    static let localUpsert = insert + ", last_used = excluded.last_used"

    /// `localUpsert` returning the row's version, which it leaves as it was (0 for a new row):
    /// the save's base version without a query of its own.
    static let localUpsertReturningVersion = localUpsert + " RETURNING version"

    /// A remote change: takes the server version, keeps the local last-used time, never goes back in version.
    static let remoteUpsert = insert + ", version = excluded.version WHERE payment_instrument.version < excluded.version"

    /// The server's state of a row whose fields at its version are only the device's guess (a
    /// `setDefault` answer carries no fields): like `remoteUpsert`, and it also replaces a row at
    /// the same version.
    static let remoteReplace = insert + ", version = excluded.version WHERE payment_instrument.version <= excluded.version"

    /// The separator of `bin_networks` (network ids may not contain it).
    static let networkSeparator: Character = ","

    /// Throws when a network id cannot be stored in the separated `bin_networks` column, or when
    /// the row's text columns, read one after another as SQLite lays them out in the file, spell
    /// a card number: a record holds its values side by side with nothing between them (the two
    /// expiry integers are a byte or two), so a `network` ending in `424242` beside a first6 of
    /// `424242` and a last4 of `4242` is sixteen digits in the database file, though no field holds
    /// more than six.
    static func validate(_ method: VaultedPaymentMethod) throws {
        let data = method.paymentInstrumentData
        for network in data.binData?.networks ?? [] where network.rawValue.contains(networkSeparator) {
            throw CheckoutError(.invalidPaymentData, "a BIN network id must not contain '\(networkSeparator)'")
        }
        let adjacent = [data.network?.rawValue, data.first6Digits, data.last4Digits, data.cardholderName,
                        data.binData.map { $0.networks.map(\.rawValue).joined(separator: String(networkSeparator)) },
                        data.binData?.issuerCountry, data.binData?.accountFundingType, method.analyticsId]
            + (data.externalPayerInfo?.texts ?? [])
        if CardNumberDetector.containsCardNumber(concatenating: adjacent.compactMap { $0 }) {
            throw CheckoutError(.sensitiveDataRejected, "the saved method's fields, side by side, hold a full card number")
        }
    }

    /// Binds ?1–?23 of `insert`.
    static func bind(_ method: VaultedPaymentMethod, scope: VaultScope, version: Int64, lastUsed: Int64, updated: Int64,
                     to statement: Statement) throws {
        let data = method.paymentInstrumentData
        try statement.bind(scope.merchantId, at: 1)
        try statement.bind(scope.customerId, at: 2)
        try statement.bind(method.id, at: 3)
        try statement.bind(method.paymentMethodType.rawValue, at: 4)
        try statement.bind(method.paymentInstrumentType.rawValue, at: 5)
        try statement.bind(data.network?.rawValue, at: 6)
        try statement.bind(data.first6Digits, at: 7)
        try statement.bind(data.last4Digits, at: 8)
        try statement.bind(data.expirationMonth, at: 9)
        try statement.bind(data.expirationYear, at: 10)
        try statement.bind(data.cardholderName, at: 11)
        if let bin = data.binData {
            try statement.bind(bin.networks.map(\.rawValue).joined(separator: String(networkSeparator)), at: 12)
            try statement.bind(bin.issuerCountry, at: 13)
            try statement.bind(bin.accountFundingType, at: 14)
        } else {
            try statement.bindNull(at: 12)
            try statement.bindNull(at: 13)
            try statement.bindNull(at: 14)
        }
        try statement.bind(method.analyticsId, at: 15)
        try statement.bind(method.isDefault, at: 16)
        try statement.bind(version, at: 17)
        try statement.bind(lastUsed, at: 18)
        try statement.bind(updated, at: 19)
        let payer = data.externalPayerInfo
        try statement.bind(payer?.externalPayerId, at: 20)
        try statement.bind(payer?.email, at: 21)
        try statement.bind(payer?.firstName, at: 22)
        try statement.bind(payer?.lastName, at: 23)
    }

    /// The indexes of `columns` in one statement's result, resolved by name once per query: rows
    /// are then read without a name lookup each, and a query may put other columns around them.
    struct Columns {
        let token, paymentMethodType, instrumentType, network, first6, last4, expMonth, expYear: Int32
        let cardholderName, binNetworks, binCountry, binFunding, analyticsId, isDefault: Int32
        let version, deleted, lastUsed, updated, payerId, payerEmail, payerFirstName, payerLastName: Int32

        init(_ statement: Statement) throws {
            token = try statement.columnIndex("token")
            paymentMethodType = try statement.columnIndex("payment_method_type")
            instrumentType = try statement.columnIndex("instrument_type")
            network = try statement.columnIndex("network")
            first6 = try statement.columnIndex("first6")
            last4 = try statement.columnIndex("last4")
            expMonth = try statement.columnIndex("exp_month")
            expYear = try statement.columnIndex("exp_year")
            cardholderName = try statement.columnIndex("cardholder_name")
            binNetworks = try statement.columnIndex("bin_networks")
            binCountry = try statement.columnIndex("bin_country")
            binFunding = try statement.columnIndex("bin_funding")
            analyticsId = try statement.columnIndex("analytics_id")
            isDefault = try statement.columnIndex("is_default")
            version = try statement.columnIndex("version")
            deleted = try statement.columnIndex("deleted")
            lastUsed = try statement.columnIndex("last_used")
            updated = try statement.columnIndex("updated")
            payerId = try statement.columnIndex("payer_id")
            payerEmail = try statement.columnIndex("payer_email")
            payerFirstName = try statement.columnIndex("payer_first_name")
            payerLastName = try statement.columnIndex("payer_last_name")
        }
    }

    /// Decodes the core value from the current row.
    static func decodeMethod(_ row: Statement, _ columns: Columns) -> VaultedPaymentMethod {
        var binData: BinData?
        if !row.isNull(at: columns.binNetworks) {
            let joined = row.string(at: columns.binNetworks)
            let networks = joined.isEmpty ? [] : joined.split(separator: networkSeparator).map { CardNetwork(String($0)) }
            binData = BinData(networks: networks, issuerCountry: row.optionalString(at: columns.binCountry),
                              accountFundingType: row.optionalString(at: columns.binFunding))
        }
        let data = PaymentInstrumentData(
            network: row.optionalString(at: columns.network).map(CardNetwork.init(rawValue:)),
            first6Digits: row.optionalString(at: columns.first6),
            last4Digits: row.optionalString(at: columns.last4),
            expirationMonth: row.optionalInt(at: columns.expMonth),
            expirationYear: row.optionalInt(at: columns.expYear),
            cardholderName: row.optionalString(at: columns.cardholderName),
            binData: binData,
            externalPayerInfo: row.optionalString(at: columns.payerId).map { id in
                ExternalPayerInfo(externalPayerId: id, email: row.optionalString(at: columns.payerEmail),
                                  firstName: row.optionalString(at: columns.payerFirstName),
                                  lastName: row.optionalString(at: columns.payerLastName))
            })
        return VaultedPaymentMethod(
            id: row.string(at: columns.token),
            paymentMethodType: PaymentMethodType(rawValue: row.string(at: columns.paymentMethodType)),
            paymentInstrumentType: PaymentInstrumentType(rawValue: row.string(at: columns.instrumentType)),
            paymentInstrumentData: data,
            analyticsId: row.string(at: columns.analyticsId),
            isDefault: row.bool(at: columns.isDefault))
    }

    /// Decodes the stored row.
    static func decode(_ row: Statement, _ columns: Columns) -> StoredInstrument {
        StoredInstrument(method: decodeMethod(row, columns),
                         version: row.int64(at: columns.version),
                         isDeleted: row.bool(at: columns.deleted),
                         lastUsedAt: row.int64(at: columns.lastUsed),
                         updatedAt: row.int64(at: columns.updated))
    }
}
