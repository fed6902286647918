/// One request served without a socket: what `VaultServer.respond(to:)` answers.
public struct VaultServerAnswer: Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// The header fields the server sets (`Content-Type`, `Retry-After`, `Allow`, ...).
    public var headers: [VaultServerHeader]
    /// The whole body (a change-feed page is encoded in full).
    public var body: [UInt8]
}

/// One header field of a request or answer served in process.
public struct VaultServerHeader: Sendable, Equatable {
    /// The field name as written.
    public var name: String
    /// The field value.
    public var value: String

    /// Creates a field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A request as a connection would deliver it, for `VaultServer.respond(to:)`.
public struct VaultServerRequest: Sendable, Equatable {
    /// The method (`GET`, `POST`, ...).
    public var method: String
    /// The raw request target as on the request line, query included (`/v1/customers/c1/changes?limit=50`).
    public var target: String
    /// The header fields (`Authorization` among them).
    public var headers: [VaultServerHeader]
    /// The body; empty for none.
    public var body: [UInt8]
    /// The client's address, as the rate limits and the failed-authentication budget see it.
    public var clientAddress: String

    /// Creates a request.
    public init(method: String, target: String, headers: [VaultServerHeader] = [], body: [UInt8] = [],
                clientAddress: String = "127.0.0.1") {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.clientAddress = clientAddress
    }
}

extension VaultServer {
    /// Serves one request in process, without a socket or libmicrohttpd, through the same steps a
    /// connection's request takes: the drain check, the head's framing and body limit, admission
    /// (route, credential, rate limits) from the head alone, then the handler with the body.
    ///
    /// For deterministic simulation (`vault-sim` drives devices against the real service and
    /// storage this way) and for in-process tests: no thread, timer or socket is involved, so the
    /// answer depends only on the request, the storage and the server's wall clock. The server
    /// need not be started. Framing is taken from the body (`Content-Length` is its size), and
    /// the request deadline does not apply.
    public func respond(to request: VaultServerRequest) -> VaultServerAnswer {
        guard gate.admit() else { return Self.answer(VaultRequestHandler.errorResponse(.draining)) }
        defer { gate.finish() }
        let head = RequestHead(requestLineBytes: request.method.utf8.count + request.target.utf8.count + 11,
                               headBytes: request.headers.reduce(request.method.utf8.count + request.target.utf8.count + 13) {
                                   $0 + $1.name.utf8.count + $1.value.utf8.count + 4
                               },
                               contentLengths: request.body.isEmpty ? [] : [String(request.body.count)],
                               transferEncodings: [], fieldNames: request.headers.map(\.name))
        if case .failure(let error) = head.framing(maxBodyBytes: configuration.limits.maxBodyBytes) {
            return Self.answer(VaultRequestHandler.errorResponse(error))
        }
        let authorization = request.headers.first { $0.name.lowercased() == "authorization" }?.value
        let admission: VaultRequestHandler.Admission
        switch handler.admit(method: request.method, target: request.target, authorization: authorization,
                             address: request.clientAddress) {
        case .failure(let error): return Self.answer(VaultRequestHandler.errorResponse(error))
        case .success(let admitted): admission = admitted
        }
        if !request.body.isEmpty, !admission.route.takesBody {
            return Self.answer(VaultRequestHandler.errorResponse(.bodyNotAllowed))
        }
        let tooLarge = request.body.count > configuration.limits.maxBodyBytes
        return Self.answer(handler.handle(VaultHTTPRequest(admission: admission,
                                                           body: tooLarge ? [] : request.body, bodyTooLarge: tooLarge)))
    }

    private static func answer(_ response: VaultHTTPResponse) -> VaultServerAnswer {
        let body: [UInt8]
        switch response.body {
        case .bytes(let bytes):
            body = bytes
        case .feed(let encoder):
            var bytes = [UInt8](repeating: 0, count: encoder.byteCount)
            let written = bytes.withUnsafeMutableBytes { FeedStream(encoder).read(into: $0) }
            bytes.removeLast(bytes.count - max(0, min(written, bytes.count)))
            body = bytes
        }
        var headers = response.headers.map { VaultServerHeader(name: $0.0, value: $0.1) }
        if !headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            headers.append(VaultServerHeader(name: "Content-Type", value: "application/json"))
        }
        return VaultServerAnswer(status: response.status, headers: headers, body: body)
    }
}
