import CheckoutCore
import Foundation

/// Reads and validates a routing file (`Config/routing.json`), reporting EVERY error with its JSON path.
///
/// ```json
/// { "processors": [ { "name": "psp-a", "kind": "sandbox", "behaviour": { "createPayment": "processor-error" } },
///                   { "name": "psp-c", "kind": "http", "baseURL": "https://127.0.0.1:8443" } ],
///   "routes": [ { "name": "eur-cards",
///                 "when": { "methodType": ["PAYMENT_CARD"], "currency": ["EUR"], "amount": { "min": 0, "max": 100000 } },
///                 "processors": ["psp-a", "psp-c"], "weights": { "psp-a": 80, "psp-c": 20 },
///                 "fallbackOn": ["processor-error", "network-error"] },
///               { "name": "default", "processors": ["psp-a"] } ],
///   "breaker": { "consecutiveFailures": 5, "failureRate": 0.5, "window": 20, "coolDownSeconds": 30 } }
/// ```
/// Rules beyond the shape: processor and route names are unique; a route names only declared
/// processors, each once; weights name only the route's processors and are not all zero; a route
/// without conditions must be the last (otherwise the routes after it could never be used);
/// `fallbackOn` cannot list a category of `DeclineCategory.neverFallBack` (`suspected-fraud`, `lost-or-stolen`,
/// `hard-decline`, `insufficient-funds`, `authentication-failed`); an `http` processor needs an
/// `https` base URL (plain `http` only to a loopback host); `behaviour` is for `sandbox` only.
public enum RoutingFileLoader {
    /// Member names of each object, for unknown-member errors.
    static let topMembers = ["processors", "routes", "breaker"]
    static let processorMembers = ["name", "kind", "behaviour", "baseURL", "declineTable", "caBundle", "timeoutSeconds", "journal",
                                   "currencies"]
    static let routeMembers = ["name", "when", "processors", "weights", "fallbackOn", "capture", "strategy"]
    static let conditionMembers = ["methodType", "cardNetwork", "bin", "issuerCountry", "currency", "amount", "merchant", "customer"]
    static let breakerMembers = ["consecutiveFailures", "failureRate", "window", "coolDownSeconds"]

    /// Reads a file.
    /// - Throws: `RoutingFileError` (also when the file cannot be read).
    public static func load(contentsOf url: URL) throws(RoutingFileError) -> RoutingFile {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw RoutingFileError(issues: [RoutingIssue(path: "$", message: "cannot read the file: \(error.localizedDescription)")])
        }
        var file = try load(Array(data))
        let directory = url.deletingLastPathComponent()
        for index in file.processors.indices {
            if let journal = file.processors[index].journal, !journal.hasPrefix("/") {
                file.processors[index].journal = directory.appendingPathComponent(journal).path
            }
        }
        return file
    }

    /// Parses and validates the bytes of a routing file.
    /// - Throws: `RoutingFileError` with every issue found.
    public static func load(_ bytes: [UInt8]) throws(RoutingFileError) -> RoutingFile {
        let root: JSONValue
        switch JSONDocument.parse(bytes) {
        case .success(let value): root = value
        case .failure(let error): throw error
        }
        var issues = IssueCollector()
        let file = validate(root, into: &issues)
        guard issues.issues.isEmpty, let file else { throw RoutingFileError(issues: issues.issues) }
        return file
    }

    static func validate(_ root: JSONValue, into issues: inout IssueCollector) -> RoutingFile? {
        guard let top = issues.object(root, "$") else { return nil }
        issues.rejectUnknown(top, "$", allowed: topMembers)
        var processors: [ProcessorDefinition] = []
        var names: Set<String> = []
        if let value = top["processors"] {
            if case .array(let entries) = value, !entries.isEmpty {
                for (index, entry) in entries.enumerated() {
                    let path = "$.processors[\(index)]"
                    guard let definition = processor(entry, path, into: &issues) else { continue }
                    if !names.insert(definition.name).inserted {
                        issues.add(path + ".name", "duplicate processor name \(JSONDocument.quoted(definition.name))")
                    }
                    processors.append(definition)
                }
            } else {
                issues.add("$.processors", "must be a non-empty array of processors")
            }
        } else {
            issues.add("$.processors", "is required")
        }
        // Names that failed validation still count as declared, so a route naming them gets no second error.
        let declared = declaredNames(top["processors"])
        var routes: [Route] = []
        if let value = top["routes"] {
            if case .array(let entries) = value, !entries.isEmpty {
                var routeNames: Set<String> = []
                for (index, entry) in entries.enumerated() {
                    let path = "$.routes[\(index)]"
                    guard let route = route(entry, path, declared: declared, into: &issues) else { continue }
                    if !routeNames.insert(route.name).inserted {
                        issues.add(path + ".name", "duplicate route name \(JSONDocument.quoted(route.name))")
                    }
                    if route.when == RouteConditions(), index < entries.count - 1 {
                        issues.add(path + ".when", "the route matches every payment, so the routes after it are never used; "
                                   + "move it last or give it conditions")
                    }
                    routes.append(route)
                }
            } else {
                issues.add("$.routes", "must be a non-empty array of routes")
            }
        } else {
            issues.add("$.routes", "is required")
        }
        var breaker = BreakerPolicy()
        if let value = top["breaker"] { breaker = breakerPolicy(value, "$.breaker", into: &issues) ?? breaker }
        return RoutingFile(processors: processors, routes: routes, breaker: breaker)
    }

    private static func declaredNames(_ value: JSONValue?) -> Set<String> {
        guard case .array(let entries)? = value else { return [] }
        return Set(entries.compactMap { $0["name"]?.stringValue })
    }

    // MARK: Processors

    static func processor(_ value: JSONValue, _ path: String, into issues: inout IssueCollector) -> ProcessorDefinition? {
        guard let members = issues.object(value, path) else { return nil }
        let before = issues.issues.count
        issues.rejectUnknown(members, path, allowed: processorMembers)
        let name = issues.string(members, "name", path, required: true)
        if let name, !isName(name) {
            issues.add(path + ".name", "must be 1 to 64 letters, digits, '.', '_' or '-'")
        }
        var kind: ProcessorDefinition.Kind?
        if let text = issues.string(members, "kind", path, required: true) {
            kind = ProcessorDefinition.Kind(rawValue: text)
            if kind == nil {
                issues.add(path + ".kind", "must be one of \(ProcessorDefinition.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }
        var behaviour = SandboxBehaviour()
        if let behaviourValue = members["behaviour"] {
            if kind == .http { issues.add(path + ".behaviour", "is only for kind \"sandbox\"") }
            behaviour = sandboxBehaviour(behaviourValue, path + ".behaviour", into: &issues) ?? behaviour
        }
        var baseURL: URL?
        let urlText = issues.string(members, "baseURL", path, required: kind == .http)
        if let urlText {
            if kind == .sandbox { issues.add(path + ".baseURL", "is only for kind \"http\"") }
            baseURL = processorURL(urlText, path + ".baseURL", into: &issues)
        }
        for key in ["caBundle", "timeoutSeconds"] where members[key] != nil && kind == .sandbox {
            issues.add(JSONDocument.member(path, key), "is only for kind \"http\"")
        }
        if let caBundle = members["caBundle"], caBundle.stringValue?.isEmpty ?? true {
            issues.add(path + ".caBundle", "must be a non-empty string (a PEM file path)")
        }
        if let timeout = members["timeoutSeconds"] { _ = issues.number(timeout, path + ".timeoutSeconds", range: 0.001...600) }
        let journal = issues.string(members, "journal", path, required: false)
        if journal != nil && kind == .http { issues.add(path + ".journal", "is only for kind \"sandbox\"") }
        var table: DeclineTable?
        if let tableValue = members["declineTable"] {
            table = DeclineTableLoader.validate(tableValue, path: path + ".declineTable", into: &issues)
        }
        var currencies: Set<String>?
        if let list = members["currencies"], let codes = issues.strings(list, path + ".currencies") {
            if codes.isEmpty { issues.add(path + ".currencies", "must list at least one currency") }
            for (index, code) in codes.enumerated() where (try? Currency(code: code)) == nil {
                issues.add("\(path).currencies[\(index)]", "\(code) is not an active ISO 4217 currency code")
            }
            currencies = Set(codes)
        }
        guard issues.issues.count == before, let name, let kind else { return nil }
        return ProcessorDefinition(name: name, kind: kind, behaviour: behaviour, baseURL: baseURL, declineTable: table, raw: value,
                                   journal: journal, currencies: currencies)
    }

    static func sandboxBehaviour(_ value: JSONValue, _ path: String, into issues: inout IssueCollector) -> SandboxBehaviour? {
        guard let members = issues.object(value, path) else { return nil }
        var script: [SandboxBehaviour.Operation: [SandboxBehaviourValue]] = [:]
        let expected = "one of \(SandboxBehaviourValue.allCodes.joined(separator: ", "))"
        var ok = true
        for (key, entry) in members.sorted(by: { $0.key < $1.key }) {
            let entryPath = JSONDocument.member(path, key)
            guard let operation = SandboxBehaviour.Operation(rawValue: key) else {
                issues.add(entryPath, "unknown operation; expected one of \(SandboxBehaviour.Operation.allCases.map(\.rawValue).joined(separator: ", "))")
                ok = false
                continue
            }
            switch entry {
            case .string(let code):
                if let parsed = SandboxBehaviourValue(code: code) { script[operation] = [parsed] } else {
                    issues.add(entryPath, "must be \(expected)")
                    ok = false
                }
            case .array(let elements) where !elements.isEmpty && elements.count <= 1000:
                var values: [SandboxBehaviourValue] = []
                for (index, element) in elements.enumerated() {
                    if let code = element.stringValue, let parsed = SandboxBehaviourValue(code: code) { values.append(parsed) } else {
                        issues.add("\(entryPath)[\(index)]", "must be \(expected)")
                        ok = false
                    }
                }
                script[operation] = values
            default:
                issues.add(entryPath, "must be a behaviour value or a non-empty array of at most 1000 of them (\(expected))")
                ok = false
            }
        }
        return ok ? SandboxBehaviour(script) : nil
    }

    static func processorURL(_ text: String, _ path: String, into issues: inout IssueCollector) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
              scheme == "https" || scheme == "http", url.user == nil, url.password == nil else {
            issues.add(path, "must be an https:// URL with a host and no user or password")
            return nil
        }
        if scheme == "http" && !["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased()) {
            issues.add(path, "plain http:// is only allowed to a loopback host (127.0.0.1, ::1, localhost); use https://")
            return nil
        }
        return url
    }

    static func isName(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy {
            ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 || $0 == 46 || $0 == 95
        }
    }

    // MARK: Routes

    static func route(_ value: JSONValue, _ path: String, declared: Set<String>, into issues: inout IssueCollector) -> Route? {
        guard let members = issues.object(value, path) else { return nil }
        let before = issues.issues.count
        issues.rejectUnknown(members, path, allowed: routeMembers)
        let name = issues.string(members, "name", path, required: true)
        if let name, !isName(name) { issues.add(path + ".name", "must be 1 to 64 letters, digits, '.', '_' or '-'") }
        var conditions = RouteConditions()
        if let when = members["when"] { conditions = self.conditions(when, path + ".when", into: &issues) ?? conditions }
        var processors: [String] = []
        if let list = members["processors"] {
            if case .array(let elements) = list, elements.isEmpty {
                issues.add(path + ".processors", "must name at least one processor")
            } else if let names = issues.strings(list, path + ".processors") {
                var seen: Set<String> = []
                for (index, name) in names.enumerated() {
                    if !declared.contains(name) {
                        issues.add("\(path).processors[\(index)]", "unknown processor \(JSONDocument.quoted(name)); "
                                   + "declared: \(declared.sorted().joined(separator: ", "))")
                    }
                    if !seen.insert(name).inserted {
                        issues.add("\(path).processors[\(index)]", "processor \(JSONDocument.quoted(name)) is listed twice")
                    }
                }
                processors = names
            }
        } else {
            issues.add(path + ".processors", "is required")
        }
        var weights: [String: Int]?
        if let weightsValue = members["weights"], let entries = issues.object(weightsValue, path + ".weights") {
            var parsed: [String: Int] = [:]
            for (key, weight) in entries.sorted(by: { $0.key < $1.key }) {
                let weightPath = JSONDocument.member(path + ".weights", key)
                if !processors.contains(key) {
                    issues.add(weightPath, "names a processor the route does not list")
                }
                if let number = issues.integer(weight, weightPath, range: 0...1_000_000) { parsed[key] = number }
            }
            if entries.isEmpty || (!parsed.isEmpty && parsed.values.reduce(0, +) == 0) {
                issues.add(path + ".weights", "must give at least one processor a weight above 0")
            }
            weights = parsed
        }
        var fallbackOn: Set<DeclineCategory> = []
        if let list = members["fallbackOn"] {
            if case .array(let elements) = list {
                for (index, element) in elements.enumerated() {
                    let elementPath = "\(path).fallbackOn[\(index)]"
                    guard let category = DeclineTableLoader.category(element, elementPath, into: &issues) else { continue }
                    if DeclineCategory.neverFallBack.contains(category) {
                        issues.add(elementPath, "\(category.rawValue) never falls back to another processor")
                    }
                    fallbackOn.insert(category)
                }
            } else {
                issues.add(path + ".fallbackOn", "must be an array of categories")
            }
        }
        var capture = CaptureMode.automatic
        if let text = issues.string(members, "capture", path, required: false) {
            if let mode = CaptureMode(rawValue: text) { capture = mode } else {
                issues.add(path + ".capture", "must be one of \(CaptureMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }
        var strategy = RouteStrategy.ordered
        if let text = issues.string(members, "strategy", path, required: false) {
            if let value = RouteStrategy(rawValue: text) { strategy = value } else {
                issues.add(path + ".strategy", "must be one of \(RouteStrategy.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if strategy == .authRate && members["weights"] != nil {
                issues.add(path + ".strategy", "auth-rate learns the split itself: a route with it takes no weights")
            }
        }
        guard issues.issues.count == before, let name else { return nil }
        return Route(name: name, when: conditions, processors: processors, weights: weights, fallbackOn: fallbackOn, capture: capture,
                     strategy: strategy)
    }

    static func conditions(_ value: JSONValue, _ path: String, into issues: inout IssueCollector) -> RouteConditions? {
        guard let members = issues.object(value, path) else { return nil }
        let before = issues.issues.count
        issues.rejectUnknown(members, path, allowed: conditionMembers)
        var result = RouteConditions()
        func codes(_ key: String, _ check: (String) -> Bool, _ what: String, issues: inout IssueCollector) -> Set<String>? {
            guard let list = members[key] else { return nil }
            let listPath = JSONDocument.member(path, key)
            if case .array(let elements) = list, elements.isEmpty {
                issues.add(listPath, "must not be empty (leave the condition out to match any value)")
                return nil
            }
            guard let values = issues.strings(list, listPath) else { return nil }
            for (index, text) in values.enumerated() where !check(text) {
                issues.add("\(listPath)[\(index)]", "must be \(what)")
            }
            return Set(values)
        }
        let upper: (UInt8) -> Bool = { $0 >= 65 && $0 <= 90 }
        result.methodType = codes("methodType", { $0.utf8.count <= 64 && $0.utf8.allSatisfy { upper($0) || ($0 >= 48 && $0 <= 57) || $0 == 95 } },
                                  "an upper-case payment-method type such as PAYMENT_CARD", issues: &issues)
        result.cardNetwork = codes("cardNetwork", { $0.utf8.count <= 64 && $0.utf8.allSatisfy { upper($0) || ($0 >= 48 && $0 <= 57) || $0 == 95 } },
                                   "an upper-case card network such as VISA", issues: &issues)
        result.issuerCountry = codes("issuerCountry", { $0.utf8.count == 2 && $0.utf8.allSatisfy(upper) },
                                     "an ISO 3166 alpha-2 code such as NL", issues: &issues)
        result.currency = codes("currency", { $0.utf8.count == 3 && $0.utf8.allSatisfy(upper) },
                                "an ISO 4217 code such as EUR", issues: &issues)
        if let binValue = members["bin"] {
            if case .array(let elements) = binValue, !elements.isEmpty {
                var ranges: [BinRange] = []
                for (index, element) in elements.enumerated() {
                    let rangePath = "\(path).bin[\(index)]"
                    guard let range = issues.object(element, rangePath) else { continue }
                    issues.rejectUnknown(range, rangePath, allowed: ["from", "to"])
                    let from = issues.string(range, "from", rangePath, required: true)
                    let to = issues.string(range, "to", rangePath, required: true)
                    if let from, let to {
                        if let parsed = BinRange(from: from, to: to) { ranges.append(parsed) } else {
                            issues.add(rangePath, "from and to must be digit strings of the same length (1 to 8) with from <= to")
                        }
                    }
                }
                result.bin = ranges
            } else {
                issues.add(path + ".bin", "must be a non-empty array of {\"from\", \"to\"} ranges")
            }
        }
        if let amountValue = members["amount"], let amount = issues.object(amountValue, path + ".amount") {
            issues.rejectUnknown(amount, path + ".amount", allowed: ["min", "max"])
            let limit = 100_000_000_000
            let min = amount["min"].flatMap { issues.integer($0, path + ".amount.min", range: 0...limit) }
            let max = amount["max"].flatMap { issues.integer($0, path + ".amount.max", range: 0...limit) }
            if amount["min"] == nil && amount["max"] == nil { issues.add(path + ".amount", "must give min, max or both") }
            if let min, let max, min > max { issues.add(path + ".amount", "min must not be above max") }
            result.amount = AmountRange(min: min, max: max)
        }
        result.merchant = metadata(members["merchant"], JSONDocument.member(path, "merchant"), into: &issues)
        result.customer = metadata(members["customer"], JSONDocument.member(path, "customer"), into: &issues)
        return issues.issues.count == before ? result : nil
    }

    static func metadata(_ value: JSONValue?, _ path: String, into issues: inout IssueCollector) -> [String: Set<String>]? {
        guard let value, let members = issues.object(value, path) else { return nil }
        if members.isEmpty { issues.add(path, "must name at least one metadata key") }
        var result: [String: Set<String>] = [:]
        for (key, entry) in members.sorted(by: { $0.key < $1.key }) {
            let entryPath = JSONDocument.member(path, key)
            if key.isEmpty || key.utf8.count > 64 { issues.add(entryPath, "a metadata key must be 1 to 64 characters") }
            switch entry {
            case .string(let text): result[key] = [text]
            case .array(let elements) where !elements.isEmpty:
                if let values = issues.strings(entry, entryPath) { result[key] = Set(values) }
            default:
                issues.add(entryPath, "must be a string or a non-empty array of strings")
            }
        }
        return result
    }


    // MARK: Breaker

    static func breakerPolicy(_ value: JSONValue, _ path: String, into issues: inout IssueCollector) -> BreakerPolicy? {
        guard let members = issues.object(value, path) else { return nil }
        let before = issues.issues.count
        issues.rejectUnknown(members, path, allowed: breakerMembers)
        var policy = BreakerPolicy()
        if let entry = members["consecutiveFailures"],
           let number = issues.integer(entry, path + ".consecutiveFailures", range: 0...1_000_000) { policy.consecutiveFailures = number }
        if let entry = members["failureRate"], let number = issues.number(entry, path + ".failureRate", range: 0...1) {
            policy.failureRate = number
        }
        if let entry = members["window"], let number = issues.integer(entry, path + ".window", range: 1...10_000) { policy.window = number }
        if let entry = members["coolDownSeconds"], let number = issues.number(entry, path + ".coolDownSeconds", range: 0...86_400) {
            policy.coolDownSeconds = number
        }
        return issues.issues.count == before ? policy : nil
    }
}
