import CMicroHTTPD

/// Queues a `ServedResponse` on a libmicrohttpd connection.
enum MicroResponseWriter {
    static func queue(_ response: ServedResponse, on connection: OpaquePointer) -> MHD_Result {
        let created = response.body.withUnsafeBytes { bytes in cmhd_response_copy(bytes.count, bytes.baseAddress) }
        guard let created else { return cmhd_no() }
        for (name, value) in response.headers { _ = MHD_add_response_header(created, name, value) }
        if response.close { _ = MHD_add_response_header(created, "Connection", "close") }
        let result = MHD_queue_response(connection, UInt32(response.status), created)
        MHD_destroy_response(created)
        return result
    }
}
