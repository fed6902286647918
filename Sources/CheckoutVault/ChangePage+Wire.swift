extension ChangePage {
    /// Decodes a page of the change feed as the vault server sends it
    /// (`GET /v1/customers/{customer}/changes`): the strict hand-written reader first, and for
    /// input it does not take, the `Codable` bridge, which accepts the odd-but-valid or names what
    /// is wrong. `HTTPRemoteVault` decodes every page with it; a host that fetches pages its own
    /// way can too.
    ///
    /// - Throws: `RemoteVaultError.malformedResponse` when the bytes are not a change page.
    public init(wireBytes bytes: [UInt8]) throws {
        if let page = try? WireJSON.scan(bytes, WireJSON.changePage) {
            self = page
            return
        }
        self = try HTTPRemoteVault.decode(ChangePage.self, from: bytes)
    }
}
