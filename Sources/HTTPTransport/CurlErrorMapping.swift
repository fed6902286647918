import CCurl

/// libcurl's result codes as `HTTPTransportError`s, with the certificate failures told apart by
/// the X.509 verification result, so that a person is told what to fix.
enum CurlErrorMapping {
    // X509_V_ERR_* values (openssl/x509_vfy.h); the numbers are part of OpenSSL's ABI.
    private static let certificateNotYetValid = 9
    private static let certificateHasExpired = 10
    private static let hostnameMismatch = 62
    /// libcurl's initial value (`!X509_V_OK`), left when its host name check fails.
    private static let resultNotReached = 1

    // The URL was checked before the transfer: an unsupported protocol here is the server's
    // answer (no HTTP status line, read as HTTP/0.9, which is not allowed).
    static func error(_ code: CURLcode, handle: UnsafeMutableRawPointer, detail: String) -> HTTPTransportError {
        let reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        switch code {
        case CURLE_URL_MALFORMAT:
            return HTTPTransportError(.invalidURL, "invalid URL: \(reason)")
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return HTTPTransportError(.resolveFailed, "cannot resolve the host: \(reason)")
        case CURLE_COULDNT_CONNECT:
            return HTTPTransportError(.connectFailed, "cannot connect: \(reason)")
        case CURLE_OPERATION_TIMEDOUT:
            return HTTPTransportError(.timedOut, "the request timed out: \(reason)")
        case CURLE_PEER_FAILED_VERIFICATION:
            var verify = 0
            _ = ccurl_easy_getinfo_long(handle, CURLINFO_SSL_VERIFYRESULT, &verify)
            switch verify {
            case certificateHasExpired:
                return HTTPTransportError(.certificateExpired, "certificate expired: \(reason)")
            case certificateNotYetValid:
                return HTTPTransportError(.certificateExpired, "certificate not yet valid: \(reason)")
            case hostnameMismatch, resultNotReached:
                // The chain verified during the handshake and libcurl's own host name check,
                // which runs after it, refused the name (the result keeps libcurl's initial
                // "not reached" value).
                return HTTPTransportError(.certificateHostMismatch, "host name mismatch: \(reason)")
            default:
                return HTTPTransportError(.certificateUntrusted, "certificate not trusted: \(reason)")
            }
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return HTTPTransportError(.pinMismatch, "the server's public key does not match a pin: \(reason)")
        case CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_ENGINE_NOTFOUND:
            return HTTPTransportError(.invalidConfiguration, "the TLS settings cannot be used: \(reason)")
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_SHUTDOWN_FAILED:
            return HTTPTransportError(.tlsHandshakeFailed, "TLS handshake failed: \(reason)")
        case CURLE_GOT_NOTHING:
            return HTTPTransportError(.closedBeforeResponse, "the connection closed before the response: \(reason)")
        case CURLE_SEND_ERROR:
            return HTTPTransportError(.sendFailed, "sending the request failed: \(reason)")
        case CURLE_RECV_ERROR:
            return HTTPTransportError(.receiveFailed, "receiving the response failed: \(reason)")
        case CURLE_PARTIAL_FILE:
            return HTTPTransportError(.truncatedBody, "the connection closed inside the response body: \(reason)")
        case CURLE_FILESIZE_EXCEEDED:
            return HTTPTransportError(.bodyTooLarge, "the response body is larger than allowed: \(reason)")
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING, CURLE_HTTP2, CURLE_HTTP2_STREAM,
             CURLE_HTTP_RETURNED_ERROR, CURLE_RANGE_ERROR, CURLE_HTTP3:
            return HTTPTransportError(.malformedResponse, "the answer breaks HTTP: \(reason)")
        case CURLE_ABORTED_BY_CALLBACK:
            return HTTPTransportError(.cancelled, "the request was cancelled")
        default:
            return HTTPTransportError(.receiveFailed, "the exchange failed: \(reason)")
        }
    }
}
