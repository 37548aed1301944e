import ArgumentParser
import Foundation
import Lupine

/// Runs one request for an HTTP verb command: builds it from the items, sends it through an
/// ``HTTPSessionManager``, prints what `--print` selects, and maps failures to exit codes.
struct HTTPExchange {
    let method: HTTPMethod
    let options: RequestOptions

    func run() async throws {
        let (request, manager, stored) = try self.prepare()
        defer { stored.save() }
        let output = ExchangeOutput(options: self.options, terminal: StandardOutput.isTerminal)
        // A terminal gets the body formatted; a pipe or file gets each chunk as it came.
        let printer = output.showsBody && output.terminal ? BodyPrinter() : nil
        output.showRequests(of: manager)
        output.showRedirects(of: manager)
        let spinner = ActivitySpinner.attach(to: manager, for: request)
        let exchange = Task {
            let head = try await ActivitySpinner.running(spinner) {
                try await manager.stream(
                    request,
                    receiveHead: { head in
                        try output.show(head)
                        printer?.begin(head)
                    },
                    receiveChunk: { chunk in
                        if let printer {
                            try printer.print(chunk)
                        } else if output.showsBody {
                            try StandardOutput.write(chunk)
                        }
                    }
                ).head
            }
            try printer?.finish()
            return head
        }
        // Ctrl-C or SIGTERM cancels the exchange (and a background revalidation) rather than
        // ending the process in its middle, so a body being stored in the cache is removed, not
        // left behind in the user's folder.
        let watch = TerminationSignal.watch { _ in
            exchange.cancel()
            manager.invalidateSession(cancelingTasks: true)
        }
        defer { watch.stop() }
        let result = await exchange.result
        // A request that could not be written (`--print H`) stopped the exchange: that is the failure.
        if let unwritten = output.requestWriteFailure {
            throw Self.fail(unwritten.description, code: 1)
        }
        let head: ResponseHead?
        do {
            head = try result.get()
        } catch {
            throw Self.failure(error, stoppedBy: watch.receivedSignal)
        }
        await Self.finishRevalidation(of: manager, within: self.options.timeout ?? Self.revalidationWait)
        if self.options.checkStatus, let head, (300..<600).contains(head.statusCode) {
            let line = "lupine: warning: HTTP \(head.statusCode) \(head.status.reasonPhrase)"
            throw Self.fail(line, code: Int32(head.statusCode / 100))
        }
    }

    /// How long a background revalidation may keep the process once the response is out, when
    /// `--timeout` does not say.
    static let revalidationWait: Double = 30

    /// Lets the background revalidation of a response served stale (`stale-while-revalidate`)
    /// finish, so the next run finds the entry refreshed, for at most `seconds`: then, as on
    /// Ctrl-C, it is abandoned, the stale entry stays and nothing half-written is left.
    private static func finishRevalidation(of manager: HTTPSessionManager, within seconds: Double) async {
        guard let cache = manager.urlCache as? HTTPCache else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await cache.backgroundRevalidationsFinished() }
            group.addTask {
                // Beyond ~290 years is no limit, as for a request's timeout (and must not overflow).
                guard seconds < 9e9 else { return await cache.backgroundRevalidationsFinished() }
                try? await Task.sleep(for: .nanoseconds(Int64(seconds * 1_000_000_000)))
            }
            await group.next()
            manager.invalidateSession(cancelingTasks: true)
            group.cancelAll()
        }
    }

    /// How a failed exchange exits: stopped by `signal`, or as ``failure(_:)`` says.
    private static func failure(_ error: any Error, stoppedBy signal: Int32?) -> ExitCode {
        if let signal {
            return Self.fail("stopped by \(TerminationSignal.name(of: signal))", code: TerminationSignal.exitStatus(for: signal))
        }
        return Self.failure(error)
    }

    /// How a transfer that failed exits: an output that could not be written, or the request's
    /// own error.
    static func failure(_ error: any Error) -> ExitCode {
        switch error {
        case LupineError.responseSerializationFailed(.handlerFailed(let output as OutputError)): return Self.fail(output.description, code: 1)
        case let error as LupineError: return Self.fail(error.description, code: Self.exitCode(for: error))
        default: return Self.fail("\(error)", code: 1)
        }
    }

    /// The request the URL and items describe, and a manager set up for it by the options; a
    /// request that cannot be built exits with a one-line reason.
    func prepare() throws -> (Request, HTTPSessionManager, StoredState) {
        SecretArguments.hide()
        do {
            var request = try self.makeRequest()
            // Without Accept-Encoding, the transport asks for no encoding and inflates none.
            let configuration = TransportConfiguration(
                decompressesResponses: !self.options.removesAcceptEncoding,
                httpVersion: self.options.httpVersion,
                proxy: try self.options.proxySettings(for: request.url),
                proxyTrustEvaluator: try self.options.proxyTrustEvaluator(),
                clientIdentity: try self.options.clientIdentity(),
                unixSocketPath: self.options.unixSocket
            )
            let manager = HTTPSessionManager(baseURL: request.url, configuration: configuration)
            try manager.setSecurityPolicy(self.options.securityPolicy())
            manager.maximumRedirects = self.options.maxRedirects
            if let policy = self.options.retryPolicy {
                let retry = CommandLineRetry(policy: policy)
                manager.interceptor = retry
                manager.eventMonitors.append(RetryNotice(retry: retry, showsHeads: self.options.verbose))
            }
            if self.options.verbose {
                manager.eventMonitors.append(CacheNotice())
                manager.eventMonitors.append(RouteNotice(proxies: configuration.proxy, unixSocket: configuration.unixSocketPath))
            }
            let stored = try StoredState(options: self.options, manager: manager, request: &request)
            return (request, manager, stored)
        } catch let error as LupineError {
            throw Self.fail(error.description, code: 1)
        } catch let error as ClientIdentityError {
            throw Self.fail(error.description, code: 1)
        } catch let error as ProxyError {
            throw Self.fail("the proxy setting cannot be used: \(error.reason)", code: 1)
        }
    }

    /// The request the URL and items describe.
    func makeRequest() throws -> Request {
        var query: [String: any Sendable] = [:]
        var fields: [String: Any] = [:]
        var formFields: [String: any Sendable] = [:]
        var files: [(name: String, path: String)] = []
        var headerItems: [(name: String, value: String?)] = []
        for item in self.options.requestItems {
            switch item {
            case .query(let name, let value):
                query[name] = value
            case .field(let name, let value):
                fields[name] = value
                formFields[name] = value
            case .jsonField(let name, let json):
                guard let value = try? JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed) else {
                    throw LupineError.parameterEncodingFailed(.jsonEncodingFailed(parameters: "\(name):=\(json)", reason: "not valid JSON"))
                }
                fields[name] = value
                formFields[name] = json
            case .header(let name, let value):
                headerItems.append((name, value.isEmpty ? nil : value))
            case .emptyHeader(let name):
                headerItems.append((name, ""))
            case .file(let name, let path):
                files.append((name, path))
            }
        }
        var urlString = self.options.absoluteURLString
        if !query.isEmpty {
            urlString += (urlString.contains("?") ? "&" : "?") + (try queryString(from: query))
        }
        guard let url = URL(string: urlString), url.host != nil else {
            throw LupineError.invalidURL(self.options.url)
        }
        // Accept-Language and User-Agent as the library sends them; items may override.
        let method = self.options.method.map { HTTPMethod(rawValue: $0) } ?? self.method
        var request = Request(url: url, method: method, headers: HTTPRequestSerializer().httpRequestHeaders, timeoutInterval: self.options.timeout)
        request.applyHeaderItems(headerItems)
        // Two would leave the transport to send the URL's instead, unasked.
        guard request.headers["Host"].count <= 1 else {
            throw LupineError.invalidHeader(name: "Host", reason: "given more than once; give one Host item (or Host: to send the URL's)")
        }
        try request.validateHeaders()
        // The body's Content-Type and Accept come only where no item names them: `Content-Type:`
        // removes the header, as httpie's `Header:` does.
        let named = Set(headerItems.map { $0.name.lowercased() })
        if let auth = self.options.auth, let colon = auth.firstIndex(of: ":") {
            let credential = Credential(user: String(auth[..<colon]), password: String(auth[auth.index(after: colon)...]))
            request.setValue(credential.basicAuthorizationHeader, forHTTPHeaderField: "Authorization")
        }
        if !files.isEmpty {
            request.body = .multipart(try Self.multipart(fields: formFields, files: files))
            if case .multipart(let form) = request.body, !named.contains("content-type") {
                request.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
            }
            return request
        }
        guard !fields.isEmpty else { return request }
        if self.options.form {
            request.body = .bytes(Array(try queryString(from: formFields).utf8))
            if !named.contains("content-type") {
                request.setValue("application/x-www-form-urlencoded; charset=utf-8", forHTTPHeaderField: "Content-Type")
            }
        } else {
            let body = try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
            request.body = .bytes(Array(body))
            if !named.contains("content-type") {
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            if !named.contains("accept") {
                request.setValue("application/json, */*;q=0.5", forHTTPHeaderField: "Accept")
            }
        }
        return request
    }

    /// A multipart form: the data fields (in name order), then the files; a missing file is an
    /// error here, before anything is sent.
    private static func multipart(fields: [String: any Sendable], files: [(name: String, path: String)]) throws -> MultipartFormData {
        var form = MultipartFormData()
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            form.appendPart(formData: "\(value)", name: name)
        }
        for file in files {
            try form.appendPart(fileURL: LocalPath.url(file.path), name: file.name)
        }
        return form
    }

    /// httpie's exit codes: 2 for a timeout, 6 for too many redirects, 3, 4 or 5 for an
    /// unacceptable status, 1 otherwise.
    static func exitCode(for error: LupineError) -> Int32 {
        switch error {
        case .transport(.requestTimeout), .transport(.readTimeout), .transport(.connectTimeout), .transport(.uploadStalledAfterAnswer): return 2
        case .redirectFailed(.tooManyRedirects), .redirectFailed(.loop): return 6
        case .responseValidationFailed(.unacceptableStatusCode(let code, _, _, _)) where (300..<600).contains(code): return Int32(code / 100)
        default: return 1
        }
    }

    /// Writes `message` as one line on stderr and returns the exit code to throw.
    static func fail(_ message: String, code: Int32) -> ExitCode {
        let oneLine = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        let line = oneLine.hasPrefix("lupine:") ? oneLine : "lupine: " + oneLine
        StandardError.write(line + "\n")
        return ExitCode(code)
    }
}
