extension CorePaymentFlow {
    /// Polls the pending payment's status by the steps' `polling` until it settles or the
    /// schedule's timeout passes (then the attempt fails with `.timeout`). Concurrent calls share
    /// one polling loop; `cancel()` stops it. A cancelled caller gets the current state at once,
    /// and the loop goes on for the others. A status read that fails with `.networkError` is
    /// tried again at the next interval; any other failure fails the attempt.
    /// - Returns: the state reached; the current state at once when nothing is pending or the
    ///   steps do not poll.
    @discardableResult
    public func pollForCompletion() async -> PaymentFlowState {
        guard let polling = steps.polling else { return flowState }
        let task: Task<PaymentFlowState, Never>? = machine.withCurrent { current in
            guard let pending = current.pending else { return nil }
            if let existing = current.extra.polling { return existing }
            let attempt = current.attempt
            let task = Task { await self.poll(polling, attempt: attempt, paymentId: pending.paymentId) }
            current.extra.polling = task
            return task
        }
        guard let task else { return flowState }
        return await awaitShared(task) { [self] in flowState }
    }

    private func poll(_ polling: PaymentPolling, attempt: Machine.Attempt, paymentId: String) async -> PaymentFlowState {
        let schedule: any PaymentPollingSchedule
        switch polling.schedule {
        case .success(let value):
            schedule = value
        case .failure(let error):
            return await settleByPolling(attempt: attempt, failure: error)
        }
        let watch = Stopwatch(polling.clock)
        var interval = schedule.initialInterval
        while true {
            guard stillPolling(attempt) else { return clearPolling(attempt: attempt) }
            do {
                let response = try await processor.paymentStatus(paymentId: paymentId)
                if response.status != .pending { return await settleByPolling(attempt: attempt, failure: nil) }
            } catch let error as CheckoutError where error.code == .networkError {
                // Transient: try again at the next interval.
            } catch {
                return await settleByPolling(attempt: attempt, failure: CheckoutError(
                    .paymentFailed, "the payment status could not be read", underlying: error))
            }
            let remaining = schedule.timeout - watch.elapsed
            guard remaining > .zero else {
                return await settleByPolling(attempt: attempt, failure: CheckoutError(
                    .timeout, "the payment was not completed within \(Self.seconds(schedule.timeout)) seconds"))
            }
            do {
                try await polling.clock.sleep(for: min(interval, remaining))
            } catch {
                return clearPolling(attempt: attempt)
            }
            interval = schedule.interval(after: interval)
        }
    }

    /// Claims the pending payment for the poller and finishes it: through the pipeline's status
    /// check when the processor no longer reports it pending, else with `failure`.
    private func settleByPolling(attempt: Machine.Attempt, failure: CheckoutError?) async -> PaymentFlowState {
        let pending = machine.withCurrent { current in
            current.attempt == attempt ? current.claimPending(.poll) : nil
        }
        guard let pending else { return clearPolling(attempt: attempt) }
        let step: PaymentPipeline.Step
        if let failure {
            step = pipeline.fail(failure)
        } else {
            do {
                guard let settled = try await pipeline.pollStatus(paymentId: pending.paymentId, token: pending.token) else {
                    machine.releaseClaim(.poll, attempt: attempt)
                    return clearPolling(attempt: attempt)
                }
                step = settled
            } catch {
                step = pipeline.fail(CheckoutError(.paymentFailed, "the payment status could not be read", underlying: error))
            }
        }
        let reached = machine.apply(step, attempt: attempt, token: pending.token)
        _ = clearPolling(attempt: attempt)
        return reached
    }

    /// Whether the loop of `attempt` should check again: its payment is still pending and unclaimed.
    private func stillPolling(_ attempt: Machine.Attempt) -> Bool {
        machine.withCurrent { current in
            guard current.attempt == attempt, let pending = current.pending, pending.claim == nil else { return false }
            return true
        }
    }

    /// Forgets the polling loop of `attempt` (it is ending) and returns the current state.
    private func clearPolling(attempt: Machine.Attempt) -> PaymentFlowState {
        machine.withCurrent { current in
            if current.attempt == attempt { current.extra.polling = nil }
            return current.state
        }
    }

    /// `300`, or `0.5`: a duration in seconds as a message says it.
    private static func seconds(_ duration: Duration) -> String {
        let seconds = duration.inSeconds
        return seconds.rounded() == seconds ? String(Int(seconds)) : String(seconds)
    }
}
