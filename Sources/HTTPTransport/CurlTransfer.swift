import CCurl

/// One request on its way through the loop: what to send, what came back so far, and the
/// continuation of the task waiting for it.
///
/// Created by the sending task, then handed to the loop thread, which alone touches it until it
/// resumes the continuation (exactly once). That hand-off is what makes `@unchecked Sendable`
/// honest: the fields are never accessed by two threads.
final class CurlTransfer: @unchecked Sendable {
    typealias Completion = CheckedContinuation<Result<HTTPResponse, HTTPTransportError>, Never>

    let id: UInt64
    private let url: String
    private let method: String
    private let headerLines: [String]
    private let body: [UInt8]?
    private let configuration: HTTPTransportConfiguration
    private let verifyPeer: Bool
    private let pins: String?
    private let isLoopback: Bool
    var continuation: Completion?

    private var status = 0
    private var headers: [HTTPHeaderField] = []
    private var headerBytes = 0
    private var received: [UInt8] = []
    private var overflow: HTTPTransportError?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    /// Checks the request (a header that could break out of its line is refused here, before
    /// anything is sent) and prepares it for `endpoint`.
    init(id: UInt64, request: HTTPRequest, endpoint: TransportEndpoint,
         configuration: HTTPTransportConfiguration) throws(HTTPTransportError) {
        guard !request.method.isEmpty, request.method.utf8.allSatisfy(Self.isTokenByte) else {
            throw HTTPTransportError(.invalidRequest, "the method is not a token")
        }
        var lines: [String] = []
        for field in request.headers {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(Self.isTokenByte) else {
                throw HTTPTransportError(.invalidRequest, "a header name is not a token")
            }
            guard field.value.utf8.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
                throw HTTPTransportError(.invalidRequest, "the value of \(field.name) holds a control character")
            }
            guard !["host", "content-length", "transfer-encoding"].contains(field.name) else {
                throw HTTPTransportError(.invalidRequest, "\(field.name) is written by the transport")
            }
            lines.append(field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)")
        }
        // A large body waits for the server's go-ahead: a server that refuses the request on its
        // head (a wrong key, a rate limit) answers before any of it is sent, instead of closing
        // a connection the body is still streaming into (which the client sees as a reset, the
        // answer lost). Small bodies go at once: one round trip saved, and they fit the socket
        // buffers, so the answer to them is never lost.
        lines.append((request.body?.count ?? 0) >= Self.expectContinueBodyBytes ? "Expect: 100-continue" : "Expect:")
        self.id = id
        self.url = try endpoint.url(for: request.path)
        self.method = request.method
        self.headerLines = lines
        self.body = request.body
        self.configuration = configuration
        self.verifyPeer = !configuration.tls.unverifiedHosts.contains(endpoint.host)
        self.isLoopback = TransportEndpoint.isLoopback(endpoint.host)
        self.pins = try configuration.tls.curlPinList()
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// From this body size on, a request asks `Expect: 100-continue`.
    static let expectContinueBodyBytes = 64 * 1024

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    /// Sets every option of this transfer on `handle` (fresh or reset). False when libcurl refuses
    /// an option; the transfer then fails with `invalid-configuration`.
    func configure(_ handle: UnsafeMutableRawPointer, share: UnsafeMutableRawPointer) -> Bool {
        var ok = true
        func set(_ option: CURLoption, _ value: Int) { ok = ok && ccurl_easy_setopt_long(handle, option, value) == CURLE_OK }
        func set(_ option: CURLoption, _ value: String) { ok = ok && ccurl_easy_setopt_string(handle, option, value) == CURLE_OK }

        set(CURLOPT_URL, url)
        set(CURLOPT_PROTOCOLS_STR, "http,https")
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_TCP_KEEPALIVE, 1)
        set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        set(CURLOPT_FOLLOWLOCATION, 0)
        // A proxy from the environment (`http_proxy`, ...) never carries a loopback request: plain
        // HTTP is allowed to loopback only because it stays on this machine.
        if isLoopback { set(CURLOPT_PROXY, "") }
        ok = ok && ccurl_easy_setopt_share(handle, share) == CURLE_OK
        set(CURLOPT_CONNECTTIMEOUT_MS, Int(configuration.timeout * 1000))
        set(CURLOPT_TIMEOUT_MS, Int(configuration.exchangeTimeout * 1000))
        // An idle gap: less than one byte a second for `timeout` seconds ends the transfer.
        set(CURLOPT_LOW_SPEED_LIMIT, 1)
        set(CURLOPT_LOW_SPEED_TIME, max(1, Int(configuration.timeout.rounded(.up))))
        set(CURLOPT_MAXAGE_CONN, Int(configuration.idleTimeout))
        ok = ok && ccurl_easy_setopt_off(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(configuration.maxBodyBytes)) == CURLE_OK

        set(CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2))
        set(CURLOPT_SSL_VERIFYPEER, verifyPeer ? 1 : 0)
        set(CURLOPT_SSL_VERIFYHOST, verifyPeer ? 2 : 0)
        if let caBundle = configuration.tls.caBundle {
            // Instead of the system store, not beside it: libcurl also loads its build-time CA
            // directory (/etc/ssl/certs on Debian) unless told not to.
            set(CURLOPT_CAINFO, caBundle)
            ok = ok && ccurl_easy_setopt_pointer(handle, CURLOPT_CAPATH, nil) == CURLE_OK
        }
        if let pins { set(CURLOPT_PINNEDPUBLICKEY, pins) }

        switch method {
        case "GET": set(CURLOPT_HTTPGET, 1)
        case "HEAD": set(CURLOPT_NOBODY, 1)
        case "POST": set(CURLOPT_POST, 1)
        default: set(CURLOPT_CUSTOMREQUEST, method)
        }
        if let body, !body.isEmpty {
            if method != "POST" { set(CURLOPT_POST, 1); set(CURLOPT_CUSTOMREQUEST, method) }
            ok = ok && ccurl_easy_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)) == CURLE_OK
            ok = ok && body.withUnsafeBytes { buffer in
                // COPYPOSTFIELDS copies the bytes, so the array may go away before the transfer ends.
                ccurl_easy_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: buffer.baseAddress!)) == CURLE_OK
            }
        } else if method == "POST" || body != nil {
            if method != "POST" { set(CURLOPT_POST, 1); set(CURLOPT_CUSTOMREQUEST, method) }
            ok = ok && ccurl_easy_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, 0) == CURLE_OK
            set(CURLOPT_COPYPOSTFIELDS, "")
        }

        curl_slist_free_all(headerList)
        headerList = nil
        for line in headerLines { headerList = curl_slist_append(headerList, line) }
        ok = ok && ccurl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList) == CURLE_OK

        let context = Unmanaged.passUnretained(self).toOpaque()
        ok = ok && ccurl_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, curlWrite) == CURLE_OK
        ok = ok && ccurl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, context) == CURLE_OK
        ok = ok && ccurl_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, curlHeader) == CURLE_OK
        ok = ok && ccurl_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, context) == CURLE_OK
        ok = ok && ccurl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer)) == CURLE_OK
        return ok
    }

    /// Takes one header line (status lines included); false stops the transfer.
    fileprivate func takeHeader(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        headerBytes += line.count
        guard headerBytes <= configuration.maxHeaderBytes else {
            overflow = HTTPTransportError(.headersTooLarge, "the response header block exceeds \(configuration.maxHeaderBytes) bytes")
            return false
        }
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
        let text = line[0..<end]
        if text.starts(with: "HTTP/".utf8) {
            // A new response (an interim 1xx, then the final one): only the last one's fields count.
            headers.removeAll(keepingCapacity: true)
            headerBytes = line.count
            return true
        }
        guard !text.isEmpty, let colon = text.firstIndex(of: UInt8(ascii: ":")) else { return true }
        guard headers.count < configuration.maxHeaderCount else {
            overflow = HTTPTransportError(.headersTooLarge, "the response has more than \(configuration.maxHeaderCount) header fields")
            return false
        }
        let field = HTTPHeaderField(name: String(decoding: text[..<colon], as: UTF8.self),
                                    value: String(decoding: text[(colon + 1)...], as: UTF8.self).trimmingSpaces())
        // libcurl takes the last of several Content-Length fields; two that disagree mean the
        // body's end is ambiguous, and the connection with it (RFC 9112 section 6.3).
        if field.name == "content-length", let earlier = headers.first(where: { $0.name == "content-length" }),
           earlier.value != field.value {
            overflow = HTTPTransportError(.malformedResponse, "the response has conflicting Content-Length values")
            return false
        }
        headers.append(field)
        return true
    }

    /// Takes body bytes; false stops the transfer.
    fileprivate func takeBody(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard received.count + bytes.count <= configuration.maxBodyBytes else {
            overflow = HTTPTransportError(.bodyTooLarge, "the response body exceeds \(configuration.maxBodyBytes) bytes")
            return false
        }
        received.append(contentsOf: bytes)
        return true
    }

    /// The outcome once libcurl reports the transfer done with `code`.
    func result(_ code: CURLcode, handle: UnsafeMutableRawPointer) -> Result<HTTPResponse, HTTPTransportError> {
        if let overflow { return .failure(overflow) }
        guard code == CURLE_OK else { return .failure(CurlErrorMapping.error(code, handle: handle, detail: detail)) }
        var responseCode = 0
        _ = ccurl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &responseCode)
        var version = 0
        _ = ccurl_easy_getinfo_long(handle, CURLINFO_HTTP_VERSION, &version)
        let versionText: String
        switch version {
        case Int(CURL_HTTP_VERSION_2_0): versionText = "2"
        case Int(CURL_HTTP_VERSION_3): versionText = "3"
        case Int(CURL_HTTP_VERSION_1_0): versionText = "1.0"
        default: versionText = "1.1"
        }
        return .success(HTTPResponse(status: responseCode, headers: headers, body: received, httpVersion: versionText))
    }

    /// What libcurl wrote in the error buffer, if anything.
    private var detail: String {
        String(cString: errorBuffer)
    }
}

private extension String {
    func trimmingSpaces() -> String {
        var view = Substring(self)
        while let first = view.first, first == " " || first == "\t" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" { view = view.dropLast() }
        return String(view)
    }
}

private func curlWrite(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    deliver(data, size * count, context) { $0.takeBody($1) }
}

private func curlHeader(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    deliver(data, size * count, context) { $0.takeHeader($1) }
}

/// Hands libcurl's bytes to the transfer behind `context`; the byte count taken, or 0 to stop.
private func deliver(_ data: UnsafeMutablePointer<CChar>?, _ length: Int, _ context: UnsafeMutableRawPointer?,
                     _ take: (CurlTransfer, UnsafeBufferPointer<UInt8>) -> Bool) -> Int {
    guard let data, let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: length)
    return take(transfer, bytes) ? length : 0
}
