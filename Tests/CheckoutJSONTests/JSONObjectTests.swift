import CheckoutJSON
import Testing

@Suite struct JSONObjectTests {
    @Test func keepsDocumentOrderAndLooksUpByKey() throws {
        let keys = (0..<40).map { "k\(39 - $0)" }  // past the index threshold
        let text = "{" + keys.map { "\"\($0)\": \"v\($0)\"" }.joined(separator: ",") + "}"
        let object = try #require(try JSONReader.read(text).object)
        #expect(object.keys == keys)
        #expect(object["k7"] == .string("vk7"))
        #expect(object["missing"] == nil)
        #expect(object.count == 40)
    }

    @Test func equalityAndHashIgnoreOrder() throws {
        let a = try JSONReader.read(#"{"x": 1, "y": [true, {"z": null}]}"#)
        let b = try JSONReader.read(#"{"y": [true, {"z": null}], "x": 1}"#)
        let c = try JSONReader.read(#"{"y": [{"z": null}, true], "x": 1}"#)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != c)
        #expect(Set([a, b, c]).count == 2)
    }

    @Test func settingNilRemovesAMember() {
        var object: JSONObject = ["a": .number(1), "b": .number(2)]
        object["a"] = nil
        #expect(object.keys == ["b"])
        object["c"] = .null
        #expect(object.keys == ["b", "c"])
    }
}
