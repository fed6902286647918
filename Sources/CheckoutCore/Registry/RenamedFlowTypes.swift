// The flow types' former names, kept so code written against them still compiles (with a warning
// that names the new one).

/// Former name of `PaymentFlowRules`.
@available(*, deprecated, renamed: "PaymentFlowRules")
public typealias PaymentFlowStateMachine = PaymentFlowRules

/// Former name of `PaymentFlowStateKeeper`.
@available(*, deprecated, renamed: "PaymentFlowStateKeeper")
public typealias PaymentFlowMachine<Extra: Sendable> = PaymentFlowStateKeeper<Extra>

/// Former name of `CorePaymentFlow`.
@available(*, deprecated, renamed: "CorePaymentFlow")
public typealias PaymentStepFlow<Steps: PaymentSteps> = CorePaymentFlow<Steps>
