import CheckoutJSON
import CheckoutKit
import Foundation
import VaultServer

extension VaultServerHarness {
    /// Writes `total` instruments spread round-robin over customers "c_0" ... "c_<customers - 1>"
    /// (instrument `i` of customer `c` as `VaultBench.method(i, customer: c)`) straight into the
    /// server's storage in one transaction, stored as `seedDirectly` stores them: setup for the
    /// scaling section's large feeds, not a measured figure.
    func seedDirectly(customers: Int, total: Int) throws {
        let keys = (0..<customers).map { CustomerKey(merchant: Self.merchant, customer: "c_\($0)") }
        try storage.transaction { transaction in
            for index in 0..<total {
                let customer = index % customers
                let method = VaultBench.method(index / customers, customer: customer)
                let json = try JSONWriter.encodeString(method)
                try transaction.put(keys[customer], InstrumentRecord(id: method.id, version: 1,
                                                                     sequence: try transaction.nextSequence(),
                                                                     deleted: false, isDefault: false, methodJSON: json,
                                                                     deletedAt: nil))
            }
        }
    }
}
