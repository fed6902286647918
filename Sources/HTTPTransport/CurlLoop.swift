import CCurl
import CheckoutLocking
import Foundation

/// libcurl's multi interface driven on a thread of its own: every transfer of one
/// `HTTPTransport` runs here, so no Swift task ever blocks on the network.
///
/// Tasks hand transfers (and cancellations) over through a locked inbox and wake the thread
/// with `curl_multi_wakeup`; the thread adds them to the multi handle, runs libcurl, and resumes
/// each transfer's continuation once, when libcurl reports it done. The multi handle keeps the
/// kept-alive connections (bounded per host) and the share handle keeps DNS answers and TLS
/// sessions between transfers. Finished easy handles are reset and reused.
final class CurlLoop: Sendable {
    private struct Inbox {
        var submitted: [CurlTransfer] = []
        var cancelled: [UInt64] = []
        var stopping = false
    }

    /// Counters the loop thread updates as transfers finish.
    struct Counters: Sendable, Equatable {
        var requests = 0
        var connectionsOpened = 0
        var reusedConnections = 0
        var tlsHandshakes = 0
    }

    private let inbox = Locked(Inbox())
    let counters = Locked(Counters())
    // The multi handle is created here and then used only by the loop thread, except for
    // `curl_multi_wakeup`, which libcurl documents as callable from any thread. It is freed in
    // `deinit`, which runs only once the thread (which retains the loop) has ended and no caller
    // is inside `submit`, `cancel` or `shutdown`: a wakeup never reaches a freed handle.
    private nonisolated(unsafe) let multi: UnsafeMutableRawPointer

    init(maxConnections: Int) {
        _ = ccurl_global_init()
        multi = curl_multi_init()
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maxConnections)
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, maxConnections)
        // The thread keeps the loop alive until `shutdown()` ends it.
        let thread = Thread { [self] in run(maxIdleHandles: maxConnections) }
        thread.name = "HTTPTransport"
        thread.start()
    }

    /// Hands `transfer` to the loop; `continuation` is resumed once with its outcome. A task
    /// already cancelled is answered at once (checked under the inbox lock, which `cancel` takes
    /// too, so a cancellation is never missed).
    func submit(_ transfer: CurlTransfer, _ continuation: CurlTransfer.Completion) {
        transfer.continuation = continuation
        let accepted = inbox.withLock { inbox -> Bool in
            if Task.isCancelled || inbox.stopping { return false }
            inbox.submitted.append(transfer)
            return true
        }
        if accepted {
            curl_multi_wakeup(multi)
        } else {
            transfer.continuation = nil
            continuation.resume(returning: .failure(HTTPTransportError(.cancelled, "the request was cancelled")))
        }
    }

    /// Asks the loop to end transfer `id` with `cancelled` (nothing happens when it is done).
    func cancel(_ id: UInt64) {
        inbox.withLock { $0.cancelled.append(id) }
        curl_multi_wakeup(multi)
    }

    deinit {
        curl_multi_cleanup(multi)
        curl_global_cleanup()
    }

    /// Ends the thread once the transfers in flight are cancelled; the easy handles are freed
    /// there, the multi handle when the loop goes away.
    func shutdown() {
        inbox.withLock { $0.stopping = true }
        curl_multi_wakeup(multi)
    }

    private func run(maxIdleHandles: Int) {
        let share = curl_share_init()!
        _ = ccurl_share_setopt_lock_data(share, CURL_LOCK_DATA_DNS)
        _ = ccurl_share_setopt_lock_data(share, CURL_LOCK_DATA_SSL_SESSION)
        var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
        var idleHandles: [UnsafeMutableRawPointer] = []

        func finish(_ handle: UnsafeMutableRawPointer, _ result: Result<HTTPResponse, HTTPTransportError>) {
            guard let transfer = active.removeValue(forKey: handle) else { return }
            curl_multi_remove_handle(multi, handle)
            if idleHandles.count < maxIdleHandles {
                curl_easy_reset(handle)
                idleHandles.append(handle)
            } else {
                curl_easy_cleanup(handle)
            }
            let continuation = transfer.continuation
            transfer.continuation = nil
            continuation?.resume(returning: result)
        }

        while true {
            let (submitted, cancelled, stopping) = inbox.withLock { inbox in
                defer { inbox.submitted.removeAll(); inbox.cancelled.removeAll() }
                return (inbox.submitted, inbox.cancelled, inbox.stopping)
            }
            for transfer in submitted {
                let handle = idleHandles.popLast() ?? curl_easy_init()!
                active[handle] = transfer
                if !transfer.configure(handle, share: share) {
                    finish(handle, .failure(HTTPTransportError(.invalidConfiguration, "libcurl refused an option of the request")))
                } else if curl_multi_add_handle(multi, handle) != CURLM_OK {
                    finish(handle, .failure(HTTPTransportError(.invalidRequest, "libcurl could not start the request")))
                }
            }
            for id in cancelled {
                if let handle = active.first(where: { $0.value.id == id })?.key {
                    finish(handle, .failure(HTTPTransportError(.cancelled, "the request was cancelled")))
                }
            }
            if stopping {
                for handle in Array(active.keys) {
                    finish(handle, .failure(HTTPTransportError(.cancelled, "the transport was shut down")))
                }
                break
            }

            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard ccurl_message_is_done(message) != 0, let handle = ccurl_message_handle(message),
                      let transfer = active[handle] else { continue }
                let code = ccurl_message_result(message)
                let result = transfer.result(code, handle: handle)
                var connects = 0
                _ = ccurl_easy_getinfo_long(handle, CURLINFO_NUM_CONNECTS, &connects)
                var handshake: curl_off_t = 0
                _ = ccurl_easy_getinfo_off(handle, CURLINFO_APPCONNECT_TIME_T, &handshake)
                counters.withLock { counters in
                    counters.requests += 1
                    counters.connectionsOpened += connects
                    if connects == 0, case .success = result { counters.reusedConnections += 1 }
                    if handshake > 0 { counters.tlsHandshakes += 1 }
                }
                finish(handle, result)
            }
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }

        for handle in idleHandles { curl_easy_cleanup(handle) }
        curl_share_cleanup(share)
    }
}
