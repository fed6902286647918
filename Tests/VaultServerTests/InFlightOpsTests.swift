import Testing
@testable import VaultServer

struct InFlightOpsTests {
    @Test("a reserved op id blocks a second reservation until released")
    func reserve() {
        let registry = InFlightOps()
        let key = CustomerKey(merchant: "m", customer: "c")
        #expect(registry.reserve(key, ["a", "b"]))
        #expect(!registry.reserve(key, ["b", "c"]))
        #expect(registry.reserve(key, ["c"]))
        #expect(registry.reserve(CustomerKey(merchant: "other", customer: "c"), ["a"]))
        registry.release(key, ["a", "b"])
        #expect(registry.reserve(key, ["a", "b"]))
    }
}
