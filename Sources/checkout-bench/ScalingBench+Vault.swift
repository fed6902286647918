import CBenchBaselines
import CheckoutKit
import Foundation

extension ScalingBench {
    /// The local vault at three sizes (customers x 20 rows, filled in one bulk transaction by the
    /// vault section's C fill): list the 20 methods of a random customer, and save one new method
    /// for a random customer (a transaction each, with its outbox row). Lists read the first half
    /// of the customers and saves write to the second half, so every list returns exactly 20 rows.
    static func scaleVault(_ options: BenchOptions) async throws -> [Figure] {
        let sizes = options.quick ? [1_000, 5_000, 20_000] : [10_000, 100_000, 1_000_000]
        let perCustomer = 20
        let lists = options.scale(4_000, quick: 300), saves = options.scale(2_000, quick: 200)
        let scratch = try ScratchDirectory("scaling-vault")
        defer { scratch.remove() }
        var stores: [Int: VaultStore] = [:]
        var fillSeconds: [Int: Double] = [:]
        for size in sizes {
            let path = scratch.url.appendingPathComponent("vault-\(size).sqlite").path
            stores[size] = try VaultStore(path: path)
            fillSeconds[size] = try Measure.seconds {
                try VaultBench.check(cbench_vault_fill(path, VaultBench.merchant, size / perCustomer, perCustomer,
                                                       VaultBench.now()), "fill")
            }
        }
        var random = RetryPolicy.Generator(seed: 42)
        var saved = 0
        var listSamples: [Int: [Double]] = [:]
        let saveSamples = try await rounds(options.quick ? 2 : 5, sizes: sizes, warmUp: sizes) { size in
            guard let store = stores[size] else { throw BenchFailure("scaling: no store of \(size) rows") }
            let customers = size / perCustomer, half = customers / 2
            let listScopes = (0..<lists).map { _ in
                VaultScope(merchantId: VaultBench.merchant, customerId: "c_\(Int(random.next() % UInt64(half)))")
            }
            var listed = 0
            let listTime = try Measure.seconds {
                for scope in listScopes { listed += try store.blocking.instruments(scope: scope).count }
            }
            guard listed == lists * perCustomer else { throw BenchFailure("scaling: listed \(listed) rows") }
            listSamples[size, default: []].append(listTime / Double(lists) * 1e6)

            let newMethods = (0..<saves).map { _ -> (VaultScope, VaultedPaymentMethod) in
                let customer = half + Int(random.next() % UInt64(customers - half))
                saved += 1
                return (VaultScope(merchantId: VaultBench.merchant, customerId: "c_\(customer)"),
                        VaultBench.method(1_000 + saved, customer: customer))
            }
            var ids = 0
            let saveTime = try Measure.seconds {
                for (scope, method) in newMethods { ids += try store.blocking.upsert([method], scope: scope).count }
            }
            guard ids == saves else { throw BenchFailure("scaling: \(ids) of \(saves) saves returned an op id") }
            return saveTime / Double(saves) * 1e6
        }
        // The warm-up round is in the list samples too: drop each size's first.
        listSamples = listSamples.mapValues { Array($0.dropFirst()) }
        let fill = { (size: Int) in "C fill \(Figure.format(fillSeconds[size] ?? .nan)) s" }
        withExtendedLifetime(stores) {}
        return figures("vault_list", unit: "µs/list", sizes: sizes, samples: listSamples, growth: .flat(limit: 1.5),
                       noun: "rows", quick: options.quick,
                       what: "instruments(scope:) of a random customer (20 rows), \(lists) per round",
                       detail: fill)
            + figures("vault_save", unit: "µs/save", sizes: sizes, samples: saveSamples, growth: .flat(limit: 1.5),
                      noun: "rows", quick: options.quick,
                      what: "upsert([one new method]) for a random customer, its own transaction with the outbox row, "
                          + "\(saves) per round", detail: fill)
    }
}
