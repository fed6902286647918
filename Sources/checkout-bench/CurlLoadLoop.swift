import CCurl
import Dispatch

/// The load generator's engine: one thread, one libcurl multi handle and one easy handle per
/// connection, in a closed loop. Each handle sends the same GET, and the moment its answer is
/// complete it is added again (libcurl reuses its kept-alive connection), until the deadline or
/// the request budget. Nothing crosses a thread per request: the loop costs libcurl's own work
/// and the sockets' system calls, so the figures it produces are the server's, not the client's.
///
/// Why not `HTTPTransport`: that is the package's client, made for many unrelated callers
/// (a Swift task per request, resumed from its libcurl thread, a handle reconfigured per request),
/// which costs two thread wake-ups per request. As a load generator on a two-core machine it took
/// more CPU than the server it measured (37 µs per request against a trivial libmicrohttpd
/// answer). This is the same libcurl, driven the way a load tool drives it.
enum CurlLoadLoop {
    /// Sends requests for `pathAndQuery` under `baseURL` over `connections` handles until
    /// `deadline` (uptime nanoseconds) or `maxRequests`; returns the tally. Blocks the caller.
    static func run(_ options: LoadGenerator.Options, deadline: UInt64) -> LoadGenerator.Tally {
        var tally = LoadGenerator.Tally()
        tally.latencies.reserveCapacity(1 << 20)
        _ = ccurl_global_init()
        guard let multi = curl_multi_init() else {
            tally.errors += 1
            tally.firstError = "curl_multi_init failed"
            return tally
        }
        defer { curl_multi_cleanup(multi) }
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, options.connections)
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, options.connections)

        var headers: UnsafeMutablePointer<curl_slist>?
        headers = curl_slist_append(headers, "Authorization: Bearer \(options.apiKey)")
        headers = curl_slist_append(headers, "Accept: application/json")
        defer { curl_slist_free_all(headers) }
        let url = options.baseURL.absoluteString + options.pathAndQuery

        var handles: [UnsafeMutableRawPointer] = []
        defer { for handle in handles { curl_easy_cleanup(handle) } }
        for _ in 0..<options.connections {
            guard let handle = curl_easy_init() else { break }
            handles.append(handle)
            var ok = ccurl_easy_setopt_string(handle, CURLOPT_URL, url) == CURLE_OK
            ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1) == CURLE_OK
            ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_HTTPGET, 1) == CURLE_OK
            ok = ok && ccurl_easy_setopt_string(handle, CURLOPT_PROXY, "") == CURLE_OK   // loopback only
            ok = ok && ccurl_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, 10_000) == CURLE_OK
            ok = ok && ccurl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headers) == CURLE_OK
            ok = ok && ccurl_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, discardBody) == CURLE_OK
            if let caBundle = options.caBundle {
                ok = ok && ccurl_easy_setopt_string(handle, CURLOPT_CAINFO, caBundle) == CURLE_OK
                ok = ok && ccurl_easy_setopt_pointer(handle, CURLOPT_CAPATH, nil) == CURLE_OK
            }
            guard ok else {
                tally.errors += 1
                tally.firstError = "libcurl refused an option"
                return tally
            }
        }

        var sentAt = [UInt64](repeating: 0, count: handles.count)
        var budget = options.maxRequests
        var inFlight = 0
        func start(_ index: Int) {
            guard budget > 0, DispatchTime.now().uptimeNanoseconds < deadline else { return }
            budget -= 1
            sentAt[index] = DispatchTime.now().uptimeNanoseconds
            if curl_multi_add_handle(multi, handles[index]) == CURLM_OK {
                inFlight += 1
            } else {
                tally.errors += 1
                if tally.firstError == nil { tally.firstError = "curl_multi_add_handle failed" }
            }
        }
        for index in handles.indices { start(index) }
        while inFlight > 0 {
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard ccurl_message_is_done(message) != 0, let handle = ccurl_message_handle(message),
                      let index = handles.firstIndex(of: handle) else { continue }
                let finished = DispatchTime.now().uptimeNanoseconds
                let code = ccurl_message_result(message)
                curl_multi_remove_handle(multi, handle)
                inFlight -= 1
                tally.requests += 1
                tally.latencies.append(UInt32(min((finished - sentAt[index]) / 1000, UInt64(UInt32.max))))
                if code != CURLE_OK {
                    tally.errors += 1
                    if tally.firstError == nil { tally.firstError = String(cString: curl_easy_strerror(code)) }
                } else {
                    var status = 0
                    _ = ccurl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
                    if status != 200 {
                        tally.errors += 1
                        tally.statusErrors[status, default: 0] += 1
                    }
                }
                start(index)
            }
            if inFlight > 0 { curl_multi_poll(multi, nil, 0, 100, nil) }
        }
        return tally
    }
}

/// CURLOPT_WRITEFUNCTION: takes the body and drops it (libcurl still checks its length).
private let discardBody: ccurl_data_callback = { _, size, count, _ in size * count }
