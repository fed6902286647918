import CLibPQ
import Foundation

/// One libpq connection with its cache of prepared statements.
///
/// Opened by following the libpq docs: `PQconnectdbParams`, check `PQstatus`, and `PQfinish` the
/// handle even when the connection failed. `@unchecked Sendable` because a connection moves
/// between threads but is never used by two at once: the pool hands it to exactly one borrower
/// between `acquire` and `release`, and keeps it under its mutex otherwise (libpq allows a
/// connection to be used from any thread as long as calls do not overlap).
public final class PostgresConnection: @unchecked Sendable {
    private let handle: OpaquePointer
    private var prepared: Set<String> = []
    /// Statements whose results nobody reads, waiting to go out with the next statement that
    /// needs an answer (see `executeLater`).
    private var deferred: [Deferred] = []
    /// Set when the pipeline protocol got out of step: the connection must not be reused.
    private var broken = false
    /// True after `finishWithoutWaiting`: a pipeline's results are still to be read (and the
    /// connection is still in pipeline mode) before anything else is sent.
    private var unreadResults = false

    private enum Deferred {
        case simple(String)
        case prepared(PostgresStatement, [String?])

        var label: String {
            switch self {
            case .simple(let sql): return sql
            case .prepared(let statement, _): return statement.name
            }
        }
    }

    /// Connects to `url` (a `postgres://` URL or a libpq connection string). The URL is never
    /// put in an error: it may carry a password. `applicationName` is what the server shows in
    /// `pg_stat_activity` unless the URL names one.
    public init(url: String, applicationName: String = "checkoutkit") throws(PostgresError) {
        // Keywords before `dbname` are defaults the URL may override; those after it win.
        // Both arrays end with NULL, as PQconnectdbParams requires.
        let keywords: [String?] = ["application_name", "dbname", "client_encoding", nil]
        let values: [String?] = [applicationName, url, "UTF8", nil]
        let connection = Self.withCStrings(keywords) { keywordPointers in
            Self.withCStrings(values) { valuePointers in PQconnectdbParams(keywordPointers, valuePointers, 1) }
        }
        guard let connection else {
            throw PostgresError(.connectionFailed, message: "libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.text(PQerrorMessage(connection)) ?? "unknown error"
            PQfinish(connection)
            throw PostgresError(.connectionFailed, message: message)
        }
        clibpq_silence_notices(connection)
        handle = connection
    }

    deinit { PQfinish(handle) }

    /// True when the connection is up and outside any transaction: the only state in which the
    /// pool may hand it to the next borrower.
    public var isReusable: Bool {
        guard !broken, deferred.isEmpty, PQstatus(handle) == CONNECTION_OK else { return false }
        return unreadResults || PQtransactionStatus(handle) == PQTRANS_IDLE
    }

    /// Runs parameterless SQL (transaction control, migrations) through the simple-query protocol
    /// (or, after `executeLater`, in one pipeline with the deferred statements).
    @discardableResult
    public func execute(_ sql: String) throws(PostgresError) -> PostgresResult {
        try readUnreadResults()
        if !deferred.isEmpty { return try pipeline(then: .simple(sql)) }
        return try check(PQexec(handle, sql), what: sql)
    }

    /// Executes `statement` with text parameters (nil is SQL NULL), preparing it on first use.
    @discardableResult
    public func execute(_ statement: PostgresStatement, _ parameters: [String?]) throws(PostgresError) -> PostgresResult {
        try readUnreadResults()
        try prepare(statement, parameters)
        if !deferred.isEmpty { return try pipeline(then: .prepared(statement, parameters)) }
        let result = Self.withCStrings(parameters) { pointers in
            PQexecPrepared(handle, statement.name, Int32(parameters.count), pointers, nil, nil, 0)
        }
        return try check(result, what: statement.name)
    }

    /// Queues parameterless SQL whose result nobody reads (e.g. `BEGIN`); see the other overload.
    public func executeLater(_ sql: String) {
        deferred.append(.simple(sql))
    }

    /// Queues a statement whose result nobody reads (a lock, a write). It goes out with the next
    /// `execute`, in one libpq pipeline and one round trip, and runs on the server in order before
    /// it; its failure is thrown by that `execute` (inside a transaction, the transaction then
    /// fails as a whole, so no caller acts on a write that did not happen).
    public func executeLater(_ statement: PostgresStatement, _ parameters: [String?]) throws(PostgresError) {
        try readUnreadResults()
        try prepare(statement, parameters)
        deferred.append(.prepared(statement, parameters))
    }

    /// Sends the queued statements and `sql` without waiting for their results, which the next
    /// use of the connection reads (and ignores) first. For the `COMMIT` of a read-only
    /// transaction: the server ends the snapshot as soon as it gets the command, and nothing the
    /// caller already read depends on the answer, so the caller saves a round trip.
    public func finishWithoutWaiting(_ sql: String) throws(PostgresError) {
        try readUnreadResults()
        let items = deferred + [.simple(sql)]
        deferred.removeAll()
        guard PQenterPipelineMode(handle) == 1 else { try lost("cannot enter pipeline mode") }
        for item in items { try send(item) }
        guard PQpipelineSync(handle) == 1 else { try lost("cannot send the pipeline") }
        unreadResults = true
    }

    /// Reads and drops the results left by `finishWithoutWaiting`, then leaves pipeline mode.
    private func readUnreadResults() throws(PostgresError) {
        guard unreadResults else { return }
        unreadResults = false
        while true {
            guard let raw = PQgetResult(handle) else {
                // The NULL that ends one statement's results: the next one follows.
                if PQstatus(handle) != CONNECTION_OK { try lost("the connection closed") }
                continue
            }
            let status = PQresultStatus(raw)
            PQclear(raw)
            if status == PGRES_PIPELINE_SYNC { break }
            if status == PGRES_FATAL_ERROR, PQstatus(handle) != CONNECTION_OK { try lost("the connection closed") }
        }
        guard PQexitPipelineMode(handle) == 1 else { try lost("the pipeline did not end cleanly") }
    }

    /// Drops the queued statements unsent (before a `ROLLBACK`).
    public func discardDeferred() {
        deferred.removeAll()
    }

    /// Prepares `statement` on first use and refuses parameters libpq would truncate.
    private func prepare(_ statement: PostgresStatement, _ parameters: [String?]) throws(PostgresError) {
        for parameter in parameters where parameter?.utf8.contains(0) == true {
            throw PostgresError(.invalidParameter, message: "a parameter of \(statement.name) contains a NUL character")
        }
        guard !prepared.contains(statement.name) else { return }
        // Preparing needs a round trip of its own: flush what is queued first, in order.
        if !deferred.isEmpty { _ = try pipeline(then: nil) }
        let result = PQprepare(handle, statement.name, statement.sql, Int32(parameters.count), nil)
        _ = try check(result, what: statement.name)
        prepared.insert(statement.name)
    }

    /// Sends the deferred statements and `last` in one pipeline, reads every result, and returns
    /// `last`'s (or the last deferred one's). Throws the first failure; statements after a failure
    /// are skipped by the server (`PGRES_PIPELINE_ABORTED`).
    private func pipeline(then last: Deferred?) throws(PostgresError) -> PostgresResult {
        let items = deferred + (last.map { [$0] } ?? [])
        deferred.removeAll()
        guard PQenterPipelineMode(handle) == 1 else { try lost("cannot enter pipeline mode") }
        for item in items { try send(item) }
        guard PQpipelineSync(handle) == 1 else { try lost("cannot send the pipeline") }
        var firstError: PostgresError?
        var lastResult: PostgresResult?
        for item in items {
            // Each statement yields its result, then NULL.
            guard let raw = PQgetResult(handle) else { try lost("missing result of \(Self.label(item.label))") }
            while let extra = PQgetResult(handle) { PQclear(extra) }
            if PQresultStatus(raw) == PGRES_PIPELINE_ABORTED {
                PQclear(raw)
                continue
            }
            do {
                lastResult = try check(raw, what: item.label)
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        guard let sync = PQgetResult(handle) else { try lost("missing pipeline sync") }
        let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        PQclear(sync)
        guard synced, PQexitPipelineMode(handle) == 1 else { try lost("the pipeline did not end cleanly") }
        if let firstError { throw firstError }
        guard let lastResult else { try lost("no result") }
        return lastResult
    }

    /// Sends one statement of a pipeline.
    private func send(_ item: Deferred) throws(PostgresError) {
        let sent: Int32
        switch item {
        case .simple(let sql):
            sent = PQsendQueryParams(handle, sql, 0, nil, nil, nil, nil, 0)
        case .prepared(let statement, let parameters):
            sent = Self.withCStrings(parameters) { pointers in
                PQsendQueryPrepared(handle, statement.name, Int32(parameters.count), pointers, nil, nil, 0)
            }
        }
        guard sent == 1 else { try lost("cannot send \(Self.label(item.label))") }
    }

    /// Marks the connection unusable and throws `connectionLost`.
    private func lost(_ what: String) throws(PostgresError) -> Never {
        broken = true
        throw PostgresError(.connectionLost, message: Self.text(PQerrorMessage(handle)) ?? what)
    }

    /// Wraps a result, turning an error status (or a missing result) into `PostgresError`.
    private func check(_ result: OpaquePointer?, what: String) throws(PostgresError) -> PostgresResult {
        guard let result else {
            throw PostgresError(.connectionLost, message: Self.text(PQerrorMessage(handle)) ?? "no result for \(Self.label(what))")
        }
        let wrapped = PostgresResult(result)
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return wrapped
        default:
            let sqlState = Self.text(clibpq_sqlstate(result))
            let message = Self.text(clibpq_primary_message(result)) ?? Self.text(PQerrorMessage(handle)) ?? "unknown error"
            if PQstatus(handle) != CONNECTION_OK {
                throw PostgresError(.connectionLost, sqlState: sqlState, message: message)
            }
            throw PostgresError(.statementFailed, sqlState: sqlState, message: "\(message) [\(Self.label(what))]")
        }
    }

    /// A short label of the statement for error messages: a prepared statement's name, or the
    /// first words of constant SQL (never values: they are always bound parameters).
    private static func label(_ what: String) -> String {
        String(what.split(whereSeparator: \.isWhitespace).prefix(4).joined(separator: " ").prefix(60))
    }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        let text = String(cString: pointer).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// Calls `body` with a C array of NUL-terminated copies of `strings` (nil stays a NULL pointer).
    private static func withCStrings<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        // One contiguous buffer holds every string; offsets point into it.
        var storage: [CChar] = []
        var offsets: [Int?] = []
        offsets.reserveCapacity(strings.count)
        for string in strings {
            guard let string else { offsets.append(nil); continue }
            offsets.append(storage.count)
            storage.append(contentsOf: string.utf8.map { CChar(bitPattern: $0) })
            storage.append(0)
        }
        return storage.withUnsafeBufferPointer { buffer in
            let pointers: [UnsafePointer<CChar>?] = offsets.map { offset -> UnsafePointer<CChar>? in
                guard let offset, let base = buffer.baseAddress else { return nil }
                return base + offset
            }
            // An empty list passes NULL, which libpq accepts when the count is zero.
            return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
        }
    }
}
