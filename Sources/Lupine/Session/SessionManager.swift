import Foundation
import Logging
import NIOConcurrencyHelpers

/// Creates and runs tasks on a transport, as AFNetworking's `AFURLSessionManager`: per-task
/// progress and completion, hooks, notifications and event monitors, a completion queue.
///
/// Completion handlers run on ``completionQueue``, or when it is `nil` on a serial queue the
/// manager owns (never the main queue: a command-line or server process does not pump it).
/// Response serialization runs off the transport's event loops.
///
/// `@unchecked Sendable`: the mutable configuration and the task registry live in `settings`,
/// guarded by its lock; the rest is immutable.
open class SessionManager: @unchecked Sendable {
    private struct Settings {
        var completionQueue: DispatchQueue?
        var completionGroup: DispatchGroup?
        var responseSerializer: any ResponseSerializer = JSONResponseSerializer()
        var hooks = SessionHooks()
        var eventMonitors: [any EventMonitor] = []
        var maximumRedirects = 10
        var credential: Credential?
        var securityPolicy = SecurityPolicy.default
        /// The evaluator made from `securityPolicy` when it was set; `nil` until then.
        var serverTrustEvaluator: ServerTrustEvaluator?
        var logger = Logger(label: "com.lupine.session")
        var isInvalidated = false
        var tasks: [Int: SessionTask] = [:]
        var nextTaskIdentifier = 0
    }

    /// The transport requests go through.
    public let transport: any Transport
    private let ownsTransport: Bool
    private let settings = NIOLockedValueBox(Settings())
    /// The serial queue notifications and monitors run on, and completions when ``completionQueue`` is `nil`.
    let eventQueue = DispatchQueue(label: "com.lupine.session.events")

    /// Creates a manager on `transport`, by default the process-wide ``NIOTransport/shared``.
    public init(transport: any Transport = NIOTransport.shared) {
        self.transport = transport
        self.ownsTransport = false
    }

    /// Creates a manager with a transport of its own, shut down by ``invalidateSession(cancelingTasks:)``.
    public init(configuration: TransportConfiguration) {
        self.transport = NIOTransport(configuration: configuration)
        self.ownsTransport = true
    }

    // MARK: Configuration

    /// Where completion handlers run; `nil` for the manager's own serial queue.
    public var completionQueue: DispatchQueue? {
        get { self.settings.withLockedValue { $0.completionQueue } }
        set { self.settings.withLockedValue { $0.completionQueue = newValue } }
    }

    /// A group every completion handler runs inside, when set.
    public var completionGroup: DispatchGroup? {
        get { self.settings.withLockedValue { $0.completionGroup } }
        set { self.settings.withLockedValue { $0.completionGroup = newValue } }
    }

    /// Turns response bodies into values (default ``JSONResponseSerializer``).
    public var responseSerializer: any ResponseSerializer {
        get { self.settings.withLockedValue { $0.responseSerializer } }
        set { self.settings.withLockedValue { $0.responseSerializer = newValue } }
    }

    /// The session-wide hooks; a task's own hooks take precedence.
    public var hooks: SessionHooks {
        get { self.settings.withLockedValue { $0.hooks } }
        set { self.settings.withLockedValue { $0.hooks = newValue } }
    }

    /// Monitors told about every task event, in order.
    public var eventMonitors: [any EventMonitor] {
        get { self.settings.withLockedValue { $0.eventMonitors } }
        set { self.settings.withLockedValue { $0.eventMonitors = newValue } }
    }

    /// How many redirects a task follows before failing (default 10).
    public var maximumRedirects: Int {
        get { self.settings.withLockedValue { $0.maximumRedirects } }
        set { self.settings.withLockedValue { $0.maximumRedirects = max(0, newValue) } }
    }

    /// The credential used for a Basic challenge when the hook asks for default handling.
    public var credential: Credential? {
        get { self.settings.withLockedValue { $0.credential } }
        set { self.settings.withLockedValue { $0.credential = newValue } }
    }

    /// How servers' certificates are judged for this manager's `https` requests (default
    /// ``SecurityPolicy/default``); change it with ``setSecurityPolicy(_:)``.
    ///
    /// Until a policy is set, the transport's own ``TransportConfiguration/serverTrustEvaluator``
    /// decides, which by default makes the same checks as ``SecurityPolicy/default``.
    public var securityPolicy: SecurityPolicy {
        self.settings.withLockedValue { $0.securityPolicy }
    }

    /// Sets ``securityPolicy`` for the tasks created from now on: each new TLS connection they
    /// open is evaluated with it, and connections opened under another policy are never reused
    /// for them. Setting an equal policy again keeps the pooled connections.
    ///
    /// - Throws: Nothing here; ``HTTPSessionManager`` throws
    ///   ``LupineError/pinningRequiresSecureBaseURL(_:)`` for a pinning policy without an `https` base URL.
    open func setSecurityPolicy(_ policy: SecurityPolicy) throws {
        self.settings.withLockedValue { settings in
            guard settings.serverTrustEvaluator == nil || settings.securityPolicy != policy else { return }
            settings.securityPolicy = policy
            settings.serverTrustEvaluator = policy.makeServerTrustEvaluator()
        }
    }

    /// Where requests, responses (redirects included) and failures are logged, at `debug` level.
    /// The `Authorization`, `Cookie`, `Proxy-Authorization` and `Set-Cookie` headers are redacted
    /// and URLs are logged without user-info.
    public var logger: Logger {
        get { self.settings.withLockedValue { $0.logger } }
        set { self.settings.withLockedValue { $0.logger = newValue } }
    }

    // MARK: Tasks

    /// The tasks created and not yet completed.
    public var tasks: [SessionTask] {
        self.settings.withLockedValue { $0.tasks.values.sorted { $0.taskIdentifier < $1.taskIdentifier } }
    }

    /// The data tasks among ``tasks``.
    public var dataTasks: [DataTask] { self.tasks.compactMap { $0 as? DataTask } }

    /// A suspended task for `request`; call ``SessionTask/resume()`` to run it. The completion
    /// handler gets the response, the body, the serialized value and the error, exactly once.
    public func dataTask(
        with request: Request,
        hooks taskHooks: SessionHooks = SessionHooks(),
        uploadProgress: (@Sendable (Progress) -> Void)? = nil,
        downloadProgress: (@Sendable (Progress) -> Void)? = nil,
        completionHandler: @escaping @Sendable (TaskCompletion) -> Void
    ) -> DataTask {
        self.dataTask(
            with: request,
            serializer: self.responseSerializer,
            hooks: taskHooks,
            uploadProgress: uploadProgress,
            downloadProgress: downloadProgress,
            completionHandler: completionHandler
        )
    }

    /// As ``dataTask(with:hooks:uploadProgress:downloadProgress:completionHandler:)``, with its own response serializer.
    public func dataTask(
        with request: Request,
        serializer: any ResponseSerializer,
        hooks taskHooks: SessionHooks = SessionHooks(),
        uploadProgress: (@Sendable (Progress) -> Void)? = nil,
        downloadProgress: (@Sendable (Progress) -> Void)? = nil,
        completionHandler: @escaping @Sendable (TaskCompletion) -> Void
    ) -> DataTask {
        self.makeDataTask(
            with: request,
            serializer: serializer,
            hooks: taskHooks,
            uploadProgress: uploadProgress,
            downloadProgress: downloadProgress,
            completesOnQueue: true
        ) { _, completion in
            completionHandler(completion)
        }
    }

    /// Creates a data task. With `completesOnQueue` false the completion handler runs directly
    /// on the task's own Swift task, for callers that only resume a continuation with it.
    func makeDataTask(
        with request: Request,
        serializer: any ResponseSerializer,
        hooks taskHooks: SessionHooks,
        uploadProgress: (@Sendable (Progress) -> Void)?,
        downloadProgress: (@Sendable (Progress) -> Void)?,
        completesOnQueue: Bool,
        completionHandler: @escaping @Sendable (SessionTask, TaskCompletion) -> Void
    ) -> DataTask {
        let delegate = TaskDelegate(
            uploadProgress: uploadProgress,
            downloadProgress: downloadProgress,
            completionHandler: completionHandler
        )
        let (identifier, settings) = self.settings.withLockedValue { settings in
            settings.nextTaskIdentifier += 1
            return (settings.nextTaskIdentifier, settings)
        }
        let hooks = settings.hooks.overridden(by: taskHooks)
        let executor = RequestExecutor(
            transport: self.transport,
            hooks: hooks,
            maximumRedirects: settings.maximumRedirects,
            credential: settings.credential,
            serverTrustEvaluator: settings.serverTrustEvaluator,
            logger: settings.logger
        )
        let isInvalidated = settings.isInvalidated
        let task = DataTask(
            identifier: identifier,
            request: request,
            delegate: delegate,
            events: TaskEvents(
                didResume: { [weak self] task in self?.post(.lupineTaskDidResume, for: task) },
                didSuspend: { [weak self] task in self?.post(.lupineTaskDidSuspend, for: task) }
            )
        ) { task in
            // The task holds the manager until it completes, so a completion is never lost.
            let outcome =
                isInvalidated
                ? ExecutionOutcome(request: request, error: .sessionInvalidated)
                : await executor.run(task)
            self.complete(task, outcome: outcome, serializer: serializer, hooks: hooks, onQueue: completesOnQueue)
        }
        delegate.bind(to: task)
        self.settings.withLockedValue { $0.tasks[identifier] = task }
        return task
    }

    /// The upload progress of `task`, whose cancel, pause and resume drive the task.
    public func uploadProgress(for task: SessionTask) -> Progress { task.delegate.uploadProgress }

    /// The download progress of `task`, whose cancel, pause and resume drive the task.
    public func downloadProgress(for task: SessionTask) -> Progress { task.delegate.downloadProgress }

    /// Invalidates the manager: later tasks fail with ``LupineError/sessionInvalidated``; with
    /// `cancelingTasks`, running ones are cancelled. A transport the manager created is shut down.
    public func invalidateSession(cancelingTasks: Bool) {
        let running = self.settings.withLockedValue { settings in
            settings.isInvalidated = true
            return Array(settings.tasks.values)
        }
        if cancelingTasks {
            for task in running {
                task.cancel()
            }
        }
        if self.ownsTransport {
            let transport = self.transport
            Task { await transport.shutdown() }
        }
        self.eventQueue.async {
            NotificationCenter.default.post(name: .lupineSessionDidInvalidate, object: self)
            for monitor in self.eventMonitors {
                monitor.sessionDidInvalidate(self)
            }
        }
    }

    // MARK: Completion

    private func complete(
        _ task: SessionTask,
        outcome: ExecutionOutcome,
        serializer: any ResponseSerializer,
        hooks: SessionHooks,
        onQueue: Bool
    ) {
        let serialized = outcome.error == nil ? serializer.serializeAny(head: outcome.head, data: outcome.data, request: outcome.request) : nil
        let error = outcome.error ?? serialized?.error
        let completion = TaskCompletion(
            response: outcome.head,
            responseData: outcome.data,
            serializedObject: serialized?.value,
            error: error,
            metrics: outcome.metrics,
            redirectChain: outcome.redirectChain
        )
        guard task.complete(metrics: outcome.metrics, error: error) else { return }
        task.delegate.finish(succeeded: outcome.error == nil)
        let (queue, group) = self.settings.withLockedValue { settings in
            settings.tasks[task.taskIdentifier] = nil
            return (settings.completionQueue ?? self.eventQueue, settings.completionGroup)
        }
        let handler = task.delegate.completionHandler
        if !onQueue {
            handler(task, completion)
        } else if let group {
            queue.async(group: group) { handler(task, completion) }
        } else {
            queue.async { handler(task, completion) }
        }
        self.eventQueue.async {
            hooks.didComplete?(task, error)
            var userInfo: [String: Any] = [
                LupineNotificationKey.responseData: completion.responseData,
                LupineNotificationKey.responseSerializer: serializer,
            ]
            userInfo[LupineNotificationKey.serializedResponse] = completion.serializedObject
            userInfo[LupineNotificationKey.error] = completion.error
            userInfo[LupineNotificationKey.metrics] = completion.metrics
            NotificationCenter.default.post(name: .lupineTaskDidComplete, object: task, userInfo: userInfo)
            for monitor in self.eventMonitors {
                monitor.taskDidComplete(task, with: completion)
            }
        }
    }

    private func post(_ name: Notification.Name, for task: SessionTask) {
        self.eventQueue.async {
            NotificationCenter.default.post(name: name, object: task)
            for monitor in self.eventMonitors {
                if name == .lupineTaskDidResume {
                    monitor.taskDidResume(task)
                } else {
                    monitor.taskDidSuspend(task)
                }
            }
        }
    }
}
