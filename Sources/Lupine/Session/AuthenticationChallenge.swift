import Foundation

/// A server asked for credentials (`401` with `WWW-Authenticate`).
public struct AuthenticationChallenge: Sendable {
    /// The host that asked.
    public let host: String
    /// The port of that host.
    public let port: Int
    /// The authentication scheme, as in the header (`Basic`).
    public let scheme: String
    /// The realm the server named, if any.
    public let realm: String?
    /// How many times credentials for this request were already refused.
    public let previousFailureCount: Int

    /// Parses a `WWW-Authenticate` value for its scheme and realm.
    init?(wwwAuthenticate: String, host: String, port: Int, previousFailureCount: Int) {
        let trimmed = wwwAuthenticate.trimmingCharacters(in: .whitespaces)
        guard let scheme = trimmed.split(separator: " ", maxSplits: 1).first, !scheme.isEmpty else { return nil }
        self.scheme = String(scheme)
        self.host = host
        self.port = port
        self.previousFailureCount = previousFailureCount
        if let realmRange = trimmed.range(of: "realm=\"", options: .caseInsensitive),
            let end = trimmed[realmRange.upperBound...].firstIndex(of: "\"")
        {
            self.realm = String(trimmed[realmRange.upperBound..<end])
        } else {
            self.realm = nil
        }
    }
}

/// A user name and password for Basic authentication.
public struct Credential: Sendable, Equatable {
    /// The user name.
    public var user: String
    /// The password.
    public var password: String

    /// Creates a credential.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// The `Authorization` header value for Basic authentication.
    public var basicAuthorizationHeader: String {
        "Basic " + Data("\(self.user):\(self.password)".utf8).base64EncodedString()
    }
}

/// What to do about an ``AuthenticationChallenge``, as `URLSession.AuthChallengeDisposition`.
public enum AuthenticationDisposition: Sendable, Equatable {
    /// Answer with this credential (the request is sent again with it).
    case useCredential(Credential)
    /// Use the session's ``SessionManager/credential`` if any, otherwise deliver the 401 response.
    case performDefaultHandling
    /// Cancel the task.
    case cancelAuthenticationChallenge
    /// Refuse this challenge; the 401 response is delivered as it is.
    case rejectProtectionSpace
}
