import NIOConcurrencyHelpers
import Foundation

/// Authenticates requests with a credential its ``Authenticator`` applies, and refreshes the
/// credential when it expires or the server refuses it.
///
/// - **Adapting:** each request gets the current ``credential``; no credential fails it with
///   ``LupineError/AuthenticationFailureReason/missingCredential`` (nothing is sent). A credential
///   that ``AuthenticationCredential/requiresRefresh`` is refreshed first. A request that comes
///   while a refresh runs waits for it and gets the new credential.
/// - **Retrying:** a response the authenticator says was refused
///   (``Authenticator/didRequest(_:with:failDueToAuthenticationError:)``, a 401 by default) is
///   retried: at once when it was sent with an older credential than the current one (at most
///   ``RefreshWindow/maximumAttempts`` times per task: a request whose credential is taken off
///   on the way, as by a redirect to another origin, is not sent forever), else after a refresh.
/// - **Single flight:** one refresh runs at a time, however many requests are refused at once;
///   every request that needs it waits for that one. When it throws, each of them fails with
///   ``LupineError/AuthenticationFailureReason/refreshFailed(underlying:)``; when
///   it does not end within ``refreshTimeout``, with
///   ``LupineError/AuthenticationFailureReason/refreshTimedOut(timeout:)``; more refreshes than
///   ``refreshWindow`` allows fail with
///   ``LupineError/AuthenticationFailureReason/excessiveRefresh(count:interval:)``.
/// - **Cancellation:** a task cancelled while it waits for a refresh stops waiting at once with
///   ``LupineError/cancelled``; the refresh goes on for the others.
///
/// Safe to use from any thread; set ``credential`` at any time.
///
/// ```swift
/// let interceptor = AuthenticationInterceptor(authenticator: OAuthAuthenticator(), credential: saved)
/// session.interceptor = interceptor
/// ```
public final class AuthenticationInterceptor<A: Authenticator>: RequestInterceptor {
    typealias State = AuthenticationRefreshState<A.Credential, CheckedContinuation<A.Credential, any Error>>

    /// The default limit on one refresh: 30 s.
    public static var defaultRefreshTimeout: Duration { .seconds(30) }

    /// The authenticator that applies and refreshes the credential.
    public let authenticator: A
    /// How many refreshes may start within a sliding interval.
    public let refreshWindow: RefreshWindow
    /// How long one refresh may take before it is abandoned (and cancelled).
    public let refreshTimeout: Duration
    private let state: NIOLockedValueBox<State>

    /// An interceptor applying `credential` with `authenticator`.
    ///
    /// A negative `refreshTimeout` counts as zero (every refresh then times out), one above an
    /// hour as an hour.
    public init(
        authenticator: A,
        credential: A.Credential? = nil,
        refreshWindow: RefreshWindow = RefreshWindow(),
        refreshTimeout: Duration = defaultRefreshTimeout
    ) {
        self.authenticator = authenticator
        self.refreshWindow = refreshWindow
        self.refreshTimeout = min(max(.zero, refreshTimeout), .seconds(3600))
        self.state = NIOLockedValueBox(State(credential: credential))
    }

    /// The credential applied to requests; setting it replaces the current one (a refresh in
    /// flight still replaces it again when it ends).
    public var credential: A.Credential? {
        get { self.state.withLockedValue { $0.credential } }
        set { self.state.withLockedValue { $0.setCredential(newValue) } }
    }

    /// How many tasks wait for the refresh in flight now.
    var waitingCount: Int { self.state.withLockedValue { $0.waitingCount } }

    public func adapt(_ request: Request, for context: AdaptContext) async throws -> Request {
        let (current, generation, refreshing) = self.state.withLockedValue { ($0.credential, $0.generation, $0.refreshing != nil) }
        let credential: A.Credential
        if !refreshing, let current, !current.requiresRefresh {
            credential = current
        } else {
            let needsRefresh = !refreshing && current?.requiresRefresh == true
            credential = try await self.credential(
                needing: needsRefresh ? .refresh(generation: generation) : .current,
                cancellation: context.task.cancellation
            )
        }
        var adapted = request
        self.authenticator.apply(credential, to: &adapted)
        return adapted
    }

    public func retry(_ context: RetryContext) async throws -> RetryDecision {
        guard let response = context.response,
            self.authenticator.didRequest(context.request, with: response, failDueToAuthenticationError: context.error)
        else {
            return .doNotRetry
        }
        let (current, generation) = self.state.withLockedValue { ($0.credential, $0.generation) }
        guard let current else {
            return .doNotRetryWithError(LupineError.authenticationFailed(.missingCredential))
        }
        let sentWithCurrent = self.authenticator.isRequest(context.request, authenticatedWith: current)
        guard sentWithCurrent || context.retryCount < self.refreshWindow.maximumAttempts else {
            return .doNotRetry
        }
        do {
            _ = try await self.credential(
                needing: sentWithCurrent ? .refresh(generation: generation) : .current,
                cancellation: context.task.cancellation
            )
            return .retry
        } catch {
            return .doNotRetryWithError(error)
        }
    }

    /// The credential `need` asks for, after waiting for a refresh when one runs or must start.
    ///
    /// The wait ends at once when the Swift task is cancelled, or `cancellation` (the session
    /// task's handle, for a task that runs in its caller's Swift task).
    private func credential(needing need: State.Need, cancellation: TaskCancellation) async throws -> A.Credential {
        let id = self.state.withLockedValue { $0.makeSlot() }
        return try await cancellation.whileWaiting(onCancel: { self.cancelWaiter(id) }) {
            try await self.waitForCredential(id, needing: need)
        }
    }

    /// Waits in slot `id` for the credential `need` asks for.
    private func waitForCredential(_ id: Int, needing need: State.Need) async throws -> A.Credential {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let action = self.state.withLockedValue { state in
                    state.enter(
                        id,
                        need: need,
                        waiter: continuation,
                        interval: self.refreshWindow.interval,
                        maximumAttempts: self.refreshWindow.maximumAttempts,
                        now: .now
                    )
                }
                switch action {
                case .resume(let waiter, let result):
                    waiter.resume(with: result.mapError { $0 })
                case .wait:
                    break
                case .startRefresh(let refreshID, let credential):
                    self.startRefresh(refreshID, of: credential)
                }
            }
        } onCancel: {
            self.cancelWaiter(id)
        }
    }

    /// Ends waiter `id`'s wait with ``LupineError/cancelled``, whether it waits yet or not.
    private func cancelWaiter(_ id: Int) {
        self.state.withLockedValue { $0.cancel(id) }?.resume(throwing: LupineError.cancelled)
    }

    /// Runs refresh `id` of `credential` on a task of its own, abandoning it after
    /// ``refreshTimeout``; whichever ends first resumes the waiters.
    private func startRefresh(_ id: Int, of credential: A.Credential) {
        let authenticator = self.authenticator
        let timeout = self.refreshTimeout
        let refresh = Task { try await authenticator.refresh(credential) }
        Task {
            let timer = Task {
                guard (try? await Task.sleep(for: timeout.sleepable)) != nil else { return }
                self.finish(id, with: .failure(.authenticationFailed(.refreshTimedOut(timeout: timeout))))
                refresh.cancel()
            }
            let result = await refresh.result
            timer.cancel()
            self.finish(id, with: result.mapError { .authenticationFailed(.refreshFailed(underlying: $0)) })
        }
    }

    private func finish(_ id: Int, with result: Result<A.Credential, LupineError>) {
        let waiters = self.state.withLockedValue { $0.finish(refresh: id, with: result) }
        for waiter in waiters {
            waiter.resume(with: result.mapError { $0 })
        }
    }
}
