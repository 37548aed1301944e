/// Answers HTTP Basic challenges within one attempt, as AFNetworking's session answers
/// `NSURLAuthenticationMethodHTTPBasic`: the challenge hook decides, and by default the session's
/// credential is sent once, to the origin the task was made for.
struct BasicChallengeResponder {
    /// How many times one request may be re-sent with credentials before the 401 is delivered.
    static let maximumAttempts = 5

    let credential: Credential?
    let hook: (@Sendable (SessionTask, AuthenticationChallenge) -> AuthenticationDisposition)?
    private var failures = 0

    init(credential: Credential?, hook: (@Sendable (SessionTask, AuthenticationChallenge) -> AuthenticationDisposition)?) {
        self.credential = credential
        self.hook = hook
    }

    /// The credential to send the request again with, when `head` is a Basic challenge that
    /// should be answered; `nil` delivers the response as it is.
    mutating func answer(_ head: ResponseHead, task: SessionTask, monitors: TaskFeatures) -> Credential? {
        guard head.statusCode == 401, self.failures < Self.maximumAttempts,
            let header = head.headers.first(name: "WWW-Authenticate"),
            let challenge = AuthenticationChallenge(
                wwwAuthenticate: header,
                host: head.url.host ?? "",
                port: head.url.port ?? (head.url.scheme == "https" ? 443 : 80),
                previousFailureCount: self.failures
            ),
            challenge.scheme.lowercased() == "basic"
        else { return nil }
        let disposition = self.hook?(task, challenge) ?? .performDefaultHandling
        monitors.tell { $0.task(task, didReceive: challenge, disposition: disposition) }
        let answer: Credential?
        switch disposition {
        case .useCredential(let credential):
            answer = credential
        case .performDefaultHandling:
            // The session's credential goes only to the origin the task was made for.
            let sameOrigin = RedirectPolicy.sameOrigin(head.url, task.originalRequest.url)
            answer = self.failures == 0 && sameOrigin ? self.credential : nil
        case .cancelAuthenticationChallenge:
            task.cancel()
            answer = nil
        case .rejectProtectionSpace:
            answer = nil
        }
        if answer != nil {
            self.failures += 1
        }
        return answer
    }
}
