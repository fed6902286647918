/// Reads `stream` to its end, raced against a deadline: every element it yields until it
/// finishes, or nil when it has not finished within `timeout`.
///
/// A test that checks a stream *finishes* must not read it with a plain `for await`: if the rule
/// breaks, that loop never ends and the run hangs instead of failing. Here the read and a sleep run
/// side by side; whichever ends first wins and the other is cancelled (cancelling the reader ends
/// its `for await`), so a stream that never finishes costs `timeout`, not the suite's time limit.
/// Use `TestWait.finished` for a stream that should already have finished when the read starts.
///
///     let all = try #require(await readToEnd(session.outcomes(), within: TestWait.finished),
///                            "the stream did not finish after the success")
public func readToEnd<Element: Sendable>(_ stream: AsyncStream<Element>,
                                         within timeout: Duration = TestWait.timeout) async -> [Element]? {
    await raced(within: timeout) {
        var all: [Element] = []
        for await element in stream { all.append(element) }
        return Task.isCancelled ? nil : all
    }
}

/// The first element of `stream` that `matches` accepts, raced against a deadline as `readToEnd`
/// is: nil when the stream ended first or nothing matched within `timeout`. A wait on a published
/// value without polling, e.g. a detached refresh replacing a selection's methods.
///
///     #expect(await firstElement(of: selection.states()) { $0.paymentMethods.count == 1 } != nil)
public func firstElement<Element: Sendable>(of stream: AsyncStream<Element>, within timeout: Duration = TestWait.timeout,
                                            where matches: @escaping @Sendable (Element) -> Bool) async -> Element? {
    await raced(within: timeout) {
        for await element in stream where matches(element) { return element }
        return nil
    }
}

/// Every element of `stream` up to and including the first that `last` accepts, raced against a
/// deadline as `readToEnd` is: nil when the stream ended first or nothing matched within
/// `timeout`. For a sequence of published states that ends in a known one.
///
///     #expect(await elements(of: flow.flowStates(), until: { $0 == .failed(error) }) == [.idle, .failed(error)])
public func elements<Element: Sendable>(of stream: AsyncStream<Element>, within timeout: Duration = TestWait.timeout,
                                        until last: @escaping @Sendable (Element) -> Bool) async -> [Element]? {
    await raced(within: timeout) {
        var all: [Element] = []
        for await element in stream {
            all.append(element)
            if last(element) { return all }
        }
        return nil
    }
}

/// `read`'s answer, or nil when `timeout` passes first: the read and a sleep run side by side,
/// and whichever ends first cancels the other (cancelling a reader ends its `for await`).
private func raced<Value: Sendable>(within timeout: Duration, _ read: @escaping @Sendable () async -> Value?) async -> Value? {
    await withTaskGroup(of: Value?.self) { group in
        group.addTask { await read() }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
