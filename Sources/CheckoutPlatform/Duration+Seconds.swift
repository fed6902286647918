extension Duration {
    /// The duration in (fractional) seconds: for a figure printed or a `TimeInterval` handed on.
    public var inSeconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
