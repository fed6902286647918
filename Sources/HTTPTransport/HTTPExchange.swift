/// Something that answers HTTP requests: `HTTPTransport` over the network (libcurl), or an
/// in-process stand-in such as a simulated network in front of a server in the same process.
///
/// Clients built on the transport (the vault's `HTTPRemoteVault`) take one of these, so the same
/// client code (paths, headers, bodies, decoding, error mapping) runs whether the bytes cross a
/// socket or not. A stand-in reports failures with the transport's own `HTTPTransportError`
/// codes, so the client maps them exactly as it maps libcurl's.
public protocol HTTPExchange: Sendable {
    /// Sends `request` (its `path` relative to the exchange's base URL) and returns the response.
    func send(_ request: HTTPRequest) async throws(HTTPTransportError) -> HTTPResponse
}

extension HTTPTransport: HTTPExchange {}
