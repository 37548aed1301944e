import ArgumentParser
import Foundation
import Lupine
import LupineTransport

/// The URL, request items and options every HTTP verb takes.
struct RequestOptions: ParsableArguments {
    @Argument(help: "The URL; `http://` is assumed when no scheme is given.")
    var url: String

    @Argument(
        help: ArgumentHelp(
            "Request items: key==value (query), key=value (data field), key:=json (raw JSON field), field@path (file), Header:value (repeatable; Header: removes it), Header; (sent empty).",
            valueName: "item"
        )
    )
    var items: [String] = []

    @Flag(help: "Send data fields as a JSON object (the default).")
    var json = false

    @Flag(help: "Send data fields as an application/x-www-form-urlencoded form.")
    var form = false

    @Option(help: ArgumentHelp("Basic authentication credentials.", valueName: "user:pass"))
    var auth: String?

    // Numbers are parsed unconditionally, so that `--retry -1` is refused for its value rather
    // than read as a missing value followed by an unknown option.
    @Option(parsing: .unconditional, help: ArgumentHelp("Give up after this many seconds.", valueName: "seconds"), transform: Self.seconds)
    var timeout: Double?

    @Option(name: .customLong("max-redirects"), parsing: .unconditional, help: "Follow at most this many redirects.")
    var maxRedirects = 10

    @Option(
        name: [.customShort("X"), .customLong("request")],
        help: ArgumentHelp("Send this method instead of the command's, as curl's -X (any token: M-SEARCH, PROPFIND, ...).", valueName: "method")
    )
    var method: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Send a GET, HEAD, PUT, DELETE, OPTIONS or TRACE again up to this many times after a refused, lost or timed-out connection or a 408, 429, 500, 502, 503 or 504, waiting as Retry-After says or backing off (0.5 s, 1 s, ...).",
            valueName: "count"
        ))
    var retry = 0

    @Option(
        name: .customLong("retry-max-time"),
        parsing: .unconditional,
        help: ArgumentHelp("Start no retry later than this many seconds after the first attempt (default 120).", valueName: "seconds"),
        transform: Self.seconds
    )
    var retryMaxTime: Double?

    /// A number of seconds written in decimal (`2`, `0.5`, `.25`): not an exponent, a hex float,
    /// `inf` or `nan`, which `Double` would also read.
    static func seconds(_ text: String) throws -> Double {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let isDigits = { (part: Substring) in part.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } }
        guard text.utf8.count <= 32, parts.allSatisfy(isDigits), parts.contains(where: { !$0.isEmpty }), let value = Double(text) else {
            throw ValidationError("it takes a number of seconds in decimal, such as 2 or 0.5")
        }
        return value
    }

    @Option(
        name: .customLong("cache"),
        help: ArgumentHelp("Keep responses in this directory and answer from it as HTTP caching (RFC 9111) allows.", valueName: "dir")
    )
    var cacheDirectory: String?

    @Flag(name: .customLong("no-cache"), help: "Do not answer from the cache: always send the request (with --cache the response is still kept).")
    var noCache = false

    @Option(
        name: [.customShort("b"), .customLong("cookie-jar"), .customLong("session")],
        help: ArgumentHelp("Send the cookies of this file (Netscape format, as curl's -b/-c) and write it back with the ones the responses set.", valueName: "file")
    )
    var cookieFile: String?

    @Flag(name: [.short, .long], help: "Print the request and response heads to stderr as well (stdout keeps the body alone).")
    var verbose = false

    @Flag(name: .customLong("check-status"), help: "Exit with 3, 4 or 5 for a 3xx, 4xx or 5xx response.")
    var checkStatus = false

    @Option(
        name: .customLong("print"),
        help: ArgumentHelp(
            "What to print: H request head, B request body, h response head, b response body.",
            valueName: "HBhb"
        )
    )
    var printSelection: String?

    @Option(
        name: .customLong("pin-cert"),
        help: ArgumentHelp(
            "Trust the server only through this certificate (DER or PEM): leaf, intermediate or root. Repeatable.",
            valueName: "file"
        )
    )
    var pinnedCertificateFiles: [String] = []

    @Option(
        name: .customLong("pin-key"),
        help: ArgumentHelp(
            "Trust the server only if its chain has this public key (a certificate or a PEM public key). Repeatable.",
            valueName: "file"
        )
    )
    var pinnedKeyFiles: [String] = []

    @Option(
        name: .customLong("cacert"),
        help: ArgumentHelp("Trust this root certificate (DER or PEM) besides the system's. Repeatable.", valueName: "file")
    )
    var trustedRootFiles: [String] = []

    @Flag(help: "Accept invalid certificates; without a pin the name is not checked either.")
    var insecure = false

    @Flag(name: .customLong("no-domain-validation"), help: "Do not check that the certificate names the host.")
    var noDomainValidation = false

    @Flag(name: .customLong("http1.1"), help: "Speak HTTP/1.1 only: https offers only http/1.1 by ALPN.")
    var http11 = false

    @Flag(name: .customLong("http2"), help: "Offer HTTP/2 to https servers by ALPN, beside HTTP/1.1 (the default); http stays HTTP/1.1.")
    var http2 = false

    @Flag(
        name: .customLong("http2-prior-knowledge"),
        help: "Speak HTTP/2 only: to http servers without asking (h2c), to https servers offering only h2 by ALPN."
    )
    var http2PriorKnowledge = false

    @Option(
        name: .customLong("cert"),
        help: ArgumentHelp("Present this client certificate (PEM or DER; a PEM may hold the key too).", valueName: "file")
    )
    var clientCertificate: String?

    @Option(name: .customLong("key"), help: ArgumentHelp("The client certificate's private key (PEM or DER).", valueName: "file"))
    var clientKey: String?

    @Option(
        name: .customLong("cert-type"),
        help: ArgumentHelp("The --cert file's format: PEM, DER or P12 (PKCS#12; also recognised without this).", valueName: "type")
    )
    var certificateType: String?

    @Option(name: .customLong("pass"), help: ArgumentHelp("The passphrase of an encrypted private key or PKCS#12 bundle.", valueName: "phrase"))
    var keyPassphrase: String?

    /// The client identity `--cert`, `--key` and `--pass` name, if any.
    func clientIdentity() throws(ClientIdentityError) -> ClientIdentity? {
        guard let clientCertificate else { return nil }
        let file = URL(fileURLWithPath: clientCertificate)
        if certificateType?.uppercased() == "P12" {
            return try ClientIdentity(pkcs12File: file, passphrase: keyPassphrase)
        }
        // A bundle is also recognised by its bytes, with no --cert-type.
        return try ClientIdentity(certificateFile: file, privateKeyFile: clientKey.map { URL(fileURLWithPath: $0) }, passphrase: keyPassphrase)
    }

    @Option(
        name: [.customShort("x"), .customLong("proxy")],
        help: ArgumentHelp(
            "Go through this proxy (http://, https://, socks5://, socks5h://; host:port is an HTTP proxy), instead of the environment's.",
            valueName: "url"
        )
    )
    var proxy: String?

    @Option(name: .customLong("noproxy"), help: ArgumentHelp("Reach these hosts directly (as no_proxy: names, addresses, CIDR ranges, *).", valueName: "list"))
    var noProxy: String?

    @Option(name: .customLong("proxy-user"), help: ArgumentHelp("The proxy's user name and password.", valueName: "user:password"))
    var proxyUser: String?

    @Option(
        name: .customLong("proxy-cacert"),
        help: ArgumentHelp("Trust this root certificate (DER or PEM) for an HTTPS proxy, besides the system's. Repeatable.", valueName: "file")
    )
    var proxyTrustedRootFiles: [String] = []

    @Flag(name: .customLong("proxy-insecure"), help: "Do not verify an HTTPS proxy's own certificate (the server's still is).")
    var proxyInsecure = false

    /// The proxies for a request to `url`, as curl chooses them: `--proxy`'s (an empty one for
    /// none) over the environment's proxies, which are not read then; none with `--noproxy '*'`;
    /// with `--noproxy` (else the environment's `no_proxy`) and `--proxy-user` applied. Entries
    /// of either list that are no host, address or range are left out, as curl does. A malformed
    /// variable stops only a request that would go through it: one `url`'s scheme does not read,
    /// and any for a host the list sends directly, are left out.
    func proxySettings(for url: URL, environment: [String: String] = ProcessInfo.processInfo.environment) throws(ProxyError) -> ProxySettings {
        let exceptions = self.noProxy ?? environment["no_proxy"] ?? environment["NO_PROXY"] ?? ""
        var settings: ProxySettings
        if let proxy {
            guard !proxy.trimmingCharacters(in: .whitespaces).isEmpty else { return try ProxySettings() }
            let chosen = try Proxy(url: proxy)
            settings = try ProxySettings(httpProxy: chosen, httpsProxy: chosen, noProxy: exceptions, skippingUnreadable: true)
        } else {
            let direct = try ProxySettings(noProxy: exceptions, skippingUnreadable: true)
            if direct.bypasses(url) {
                return direct
            }
            let found = try Self.environmentProxies(for: url, environment: environment)
            settings = try ProxySettings(httpProxy: found.httpProxy, httpsProxy: found.httpsProxy, noProxy: exceptions, skippingUnreadable: true)
        }
        if let proxyUser {
            let parts = proxyUser.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let credentials = Proxy.Credentials(user: String(parts[0]), password: parts.count > 1 ? String(parts[1]) : "")
            let withCredentials = { (proxy: Proxy?) in proxy.map { Proxy(kind: $0.kind, host: $0.host, port: $0.port, credentials: credentials) } }
            settings.httpProxy = withCredentials(settings.httpProxy)
            settings.httpsProxy = withCredentials(settings.httpsProxy)
        }
        return settings
    }

    /// The environment's proxies; when a variable is malformed, read again with only the
    /// variables `url`'s scheme reads (`all_proxy` only when its own is unset), so that only a
    /// variable it needs stops it.
    private static func environmentProxies(for url: URL, environment: [String: String]) throws(ProxyError) -> ProxySettings {
        do {
            return try ProxySettings.environment(environment)
        } catch {
            let own = url.scheme?.lowercased() == "https" ? ["https_proxy", "HTTPS_PROXY"] : ["http_proxy"]
            let ownIsSet = own.contains { !(environment[$0] ?? "").trimmingCharacters(in: .whitespaces).isEmpty }
            let read = own + (ownIsSet ? [] : ["all_proxy", "ALL_PROXY"])
            let reduced = environment.filter { read.contains($0.key) }
            let settings = try ProxySettings.environment(reduced)
            return url.scheme?.lowercased() == "https"
                ? try ProxySettings(httpsProxy: settings.httpsProxy) : try ProxySettings(httpProxy: settings.httpProxy)
        }
    }

    @Option(
        name: .customLong("unix-socket"),
        help: ArgumentHelp("Connect to this Unix domain socket instead of the URL's host and port (the URL still names the server).", valueName: "path")
    )
    var unixSocket: String?

    /// The HTTP versions the flags ask for.
    var httpVersion: HTTPVersionSelection {
        if http11 { return .http1 }
        if http2PriorKnowledge { return .http2PriorKnowledge }
        return .automatic
    }

    func validate() throws {
        if [http11, http2, http2PriorKnowledge].filter({ $0 }).count > 1 {
            throw ValidationError("--http1.1, --http2 and --http2-prior-knowledge exclude each other.")
        }
        if clientKey != nil && clientCertificate == nil {
            throw ValidationError("--key needs --cert.")
        }
        if let certificateType {
            guard ["PEM", "DER", "P12"].contains(certificateType.uppercased()) else {
                throw ValidationError("--cert-type takes PEM, DER or P12.")
            }
            if certificateType.uppercased() == "P12", clientKey != nil {
                throw ValidationError("--key cannot be given with a P12 bundle: the bundle holds the key.")
            }
        }
        if !pinnedCertificateFiles.isEmpty && !pinnedKeyFiles.isEmpty {
            throw ValidationError("--pin-cert and --pin-key exclude each other.")
        }
        if json && form {
            throw ValidationError("--json and --form exclude each other.")
        }
        if let auth, !auth.contains(":") {
            throw ValidationError("--auth takes user:pass.")
        }
        if let timeout, !(timeout >= 0.001 && timeout <= 31_536_000) {
            throw ValidationError("--timeout takes a number of seconds from 0.001 to 31536000 (a year).")
        }
        if !(0...1000).contains(retry) {
            throw ValidationError("--retry takes a count from 0 to 1000.")
        }
        if let retryMaxTime, !(retryMaxTime >= 0.001 && retryMaxTime <= 86400) {
            throw ValidationError("--retry-max-time takes a number of seconds from 0.001 to 86400.")
        }
        // A method is a token (RFC 9110 §9.1): nothing else reaches the request line.
        if let method, method.isEmpty || method.utf8.count > 64 || !method.utf8.allSatisfy(HeaderFieldValidation.isTokenCharacter) {
            throw ValidationError("-X/--request takes a method name: letters, digits and !#$%&'*+-.^_`|~, at most 64.")
        }
        if maxRedirects < 0 {
            throw ValidationError("--max-redirects cannot be negative.")
        }
        // An empty path would be the working directory: its files would sit among the cache's.
        if cacheDirectory?.isEmpty == true {
            throw ValidationError("--cache needs a directory name.")
        }
        if cookieFile?.isEmpty == true {
            throw ValidationError("-b/--cookie-jar/--session needs a file name.")
        }
        if let printSelection, printSelection.isEmpty || !printSelection.allSatisfy({ "HBhb".contains($0) }) {
            throw ValidationError("--print takes letters of HBhb: H request head, B request body, h response head, b response body.")
        }
        for case .file(let name, "") in requestItems {
            throw ValidationError("\"\(name)@\" names no file: give the path after @.")
        }
        for item in items where RequestItem(item) == nil {
            throw ValidationError("\"\(item)\" is not a request item (key==value, key=value, key:=json, field@path, Header:value or Header;).")
        }
    }

    /// The retry policy `--retry` and `--retry-max-time` ask for; `nil` without `--retry`.
    var retryPolicy: RetryPolicy? {
        guard retry > 0 else { return nil }
        // As curl: a Retry-After is waited out whole when it fits in the budget, and ends the
        // retries when it does not (never cut short into an early retry: `CommandLineRetry`).
        let budget = retryMaxTime.map { Duration.milliseconds(Int64($0 * 1000)) } ?? RetryPolicy.defaultMaximumTotalTime
        return RetryPolicy(retryLimit: retry, maximumDelay: budget, maximumTotalTime: budget)
    }

    /// The parsed request items, in order.
    var requestItems: [RequestItem] { items.compactMap(RequestItem.init) }

    /// Whether the last `Accept-Encoding` item removes it (`Accept-Encoding:`): then the
    /// transport neither asks for an encoding nor inflates one.
    var removesAcceptEncoding: Bool {
        for item in self.requestItems.reversed() {
            switch item {
            case .header(let name, let value) where name.lowercased() == "accept-encoding": return value.isEmpty
            case .emptyHeader(let name) where name.lowercased() == "accept-encoding": return false
            default: continue
            }
        }
        return false
    }

    /// The URL with `http://` added when the argument has no scheme.
    var absoluteURLString: String {
        url.contains("://") ? url : "http://" + url
    }
}
