import CheckoutCore
import Testing

/// `send(_:revision:)`: an owner publishes after unlocking, and a late, older publication never
/// overwrites a newer one.
@Suite struct StateBroadcasterRevisionTests {
    @Test func anOlderRevisionArrivingLateIsDropped() async {
        let broadcaster = StateBroadcaster("initial")
        let stream = broadcaster.stream()
        broadcaster.send("second", revision: 2)
        broadcaster.send("first", revision: 1)
        broadcaster.send("second again", revision: 2)
        #expect(broadcaster.value == "second")
        broadcaster.send("third", revision: 3)
        broadcaster.finish()
        var seen: [String] = []
        for await value in stream { seen.append(value) }
        #expect(seen == ["initial", "second", "third"])
    }

    @Test func theFirstRevisionIsPublished() {
        let broadcaster = StateBroadcaster(0)
        broadcaster.send(7, revision: 1)
        #expect(broadcaster.value == 7)
    }
}
