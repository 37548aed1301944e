/// Decides whether a task follows a redirect, and with what request. Set per session
/// (``SessionManager/redirectHandler``) or per request (``Request/redirectHandler``). The first
/// of these is asked: the request's handler, the task's own ``SessionHooks/willPerformRedirection``,
/// the session's handler, the session's hook; without any, every redirect is followed (up to
/// ``SessionManager/maximumRedirects``).
public protocol RedirectHandler: Sendable {
    /// The request to send for the redirect `response`, given `request`, the one Lupine made
    /// of its `Location` (RFC 9110 §15.4: method and body kept or turned into `GET`, credentials
    /// dropped across origins); `nil` stops and delivers the redirect response itself. When the
    /// body just sent could be sent only once (``Request/Body/stream(length:chunks:)``, a file
    /// of unknown length), a next request with such a body fails the task with
    /// ``LupineError/RedirectFailureReason/bodyNotReplayable(_:)`` instead of sending it empty.
    func task(_ task: SessionTask, willBeRedirectedTo request: Request, for response: ResponseHead) async -> Request?
}

/// The usual ``RedirectHandler``s: follow, do not follow, or follow what a closure makes.
public struct Redirector: RedirectHandler {
    private let decide: @Sendable (SessionTask, Request, ResponseHead) async -> Request?

    /// A handler that follows the request `decide` returns (`nil`: do not follow).
    public init(_ decide: @escaping @Sendable (SessionTask, Request, ResponseHead) async -> Request?) {
        self.decide = decide
    }

    /// Follows every redirect with the request Lupine made.
    public static let follow = Redirector { _, request, _ in request }
    /// Follows no redirect: the redirect response is delivered.
    public static let doNotFollow = Redirector { _, _, _ in nil }

    public func task(_ task: SessionTask, willBeRedirectedTo request: Request, for response: ResponseHead) async -> Request? {
        await self.decide(task, request, response)
    }
}

/// The redirect hook of ``SessionHooks`` as a ``RedirectHandler``.
struct HookRedirectHandler: RedirectHandler {
    let hook: @Sendable (SessionTask, ResponseHead, Request) -> Request?

    func task(_ task: SessionTask, willBeRedirectedTo request: Request, for response: ResponseHead) async -> Request? {
        self.hook(task, response, request)
    }
}
