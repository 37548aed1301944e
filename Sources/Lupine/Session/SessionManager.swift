import Foundation
import Logging
import NIOConcurrencyHelpers
import Tracing

/// Creates and runs tasks on a transport, as AFNetworking's `AFURLSessionManager`: per-task
/// progress and completion, hooks, notifications and event monitors, a completion queue.
///
/// Completion handlers run on ``completionQueue``, or when it is `nil` on a serial queue the
/// manager owns (never the main queue: a command-line or server process does not pump it).
/// Response serialization runs off the transport's event loops. Notifications, event monitors
/// and the did-complete hook are told synchronously, as AFNetworking posts its resume and
/// suspend notifications: on the thread that resumed or suspended the task, and for completion
/// on the task's own Swift task, before its completion handler is dispatched.
///
/// `@unchecked Sendable`: the mutable configuration and the task registry live in `settings`,
/// guarded by its lock; the rest is immutable.
open class SessionManager: @unchecked Sendable {
    struct Settings {
        var completionQueue: DispatchQueue?
        var completionGroup: DispatchGroup?
        var responseSerializer: any ResponseSerializer = JSONResponseSerializer()
        var hooks = SessionHooks() {
            didSet {
                // One provider for as long as the hook is the session's: its connections pool.
                self.clientIdentityProvider = self.hooks.didReceiveClientCertificateChallenge.map(ClientIdentityProvider.init)
            }
        }
        /// Made from `hooks.didReceiveClientCertificateChallenge` whenever the hooks are set.
        var clientIdentityProvider: ClientIdentityProvider?
        var eventMonitors: [any EventMonitor] = []
        var maximumRedirects = 10
        var downloadDirectory = FileManager.default.temporaryDirectory
        var credential: Credential?
        var features = SessionFeatures()
        /// As set (``SessionManager/metrics``, ``SessionManager/tracer``); `features` holds
        /// what of them records anything.
        var metrics: SessionMetrics?
        var tracer: (any Tracer)?
        var securityPolicy = SecurityPolicy.default
        /// The evaluator made from `securityPolicy` when it was set; `nil` until then.
        var serverTrustEvaluator: ServerTrustEvaluator?
        var logger = Logger(label: "com.lupine.session")
        var isInvalidated = false
        var isTransportShutDown = false
        var tasks: [Int: SessionTask] = [:]
        var nextTaskIdentifier = 0
        var reachabilityManager = NetworkReachabilityManager.shared
        var connectivityPolicy = ConnectivityPolicy.startsImmediately
    }

    /// The transport requests go through.
    public let transport: any Transport
    let ownsTransport: Bool
    let settings = NIOLockedValueBox(Settings())
    /// The serial queue completions run on when ``completionQueue`` is `nil`.
    let defaultCompletionQueue = DispatchQueue(label: "com.lupine.session.completion")

    /// Creates a manager on `transport`, by default the process-wide `NIOTransport.shared`.
    public init(transport: any Transport = NIOTransport.shared) {
        self.transport = transport
        self.ownsTransport = false
    }

    /// Creates a manager with a transport of its own, shut down by ``invalidateSession(cancelingTasks:)``.
    public init(configuration: TransportConfiguration) {
        self.transport = NIOTransport(configuration: configuration)
        self.ownsTransport = true
        self.settings.withLockedValue { $0.features.urlCache = HTTPCache(memoryCapacity: 4 * 1024 * 1024) }
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

    /// Where download tasks keep their temporary files (default: the system's temporary folder).
    public var downloadDirectory: URL {
        get { self.settings.withLockedValue { $0.downloadDirectory } }
        set { self.settings.withLockedValue { $0.downloadDirectory = newValue } }
    }

    /// The credential used for a Basic challenge when the hook asks for default handling.
    public var credential: Credential? {
        get { self.settings.withLockedValue { $0.credential } }
        set { self.settings.withLockedValue { $0.credential = newValue } }
    }

    /// How servers' certificates are judged for this manager's `https` requests (default
    /// ``SecurityPolicy/default``); change it with ``setSecurityPolicy(_:)``.
    ///
    /// Until a policy is set, the transport's own `TransportConfiguration.serverTrustEvaluator`
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

    /// The upload tasks among ``tasks``.
    public var uploadTasks: [UploadTask] { self.tasks.compactMap { $0 as? UploadTask } }

    /// The download tasks among ``tasks``.
    public var downloadTasks: [DownloadTask] { self.tasks.compactMap { $0 as? DownloadTask } }

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
        serializer: some ResponseSerializer,
        hooks taskHooks: SessionHooks = SessionHooks(),
        uploadProgress: (@Sendable (Progress) -> Void)? = nil,
        downloadProgress: (@Sendable (Progress) -> Void)? = nil,
        completionHandler: @escaping @Sendable (TaskCompletion) -> Void
    ) -> DataTask {
        self.makeTask(
            DataTask.self,
            with: request,
            serialization: TaskSerialization(serializer),
            hooks: taskHooks,
            uploadProgress: uploadProgress,
            downloadProgress: downloadProgress,
            completesOnQueue: true
        ) { _, completion in
            completionHandler(completion)
        }
    }

    /// Creates a task of `kind` whose body goes to `bodyDestination`, registered with the
    /// manager until it completes; its completion handler gets the task as its own type. With
    /// `completesOnQueue` false the completion handler runs directly on the task's own Swift
    /// task, for callers that only resume a continuation with it.
    func makeTask<Kind: SessionTask>(
        _ kind: Kind.Type,
        with request: Request,
        bodyDestination: BodyDestination = .memory,
        serialization: TaskSerialization,
        hooks taskHooks: SessionHooks,
        uploadProgress: (@Sendable (Progress) -> Void)?,
        downloadProgress: (@Sendable (Progress) -> Void)?,
        completesOnQueue: Bool,
        completionHandler: @escaping @Sendable (Kind, TaskCompletion) -> Void
    ) -> Kind {
        let delegate = TaskDelegate(uploadProgress: uploadProgress, downloadProgress: downloadProgress)
        // One lock round: the task's number, whether it may run, and its registration.
        let task: Kind = self.settings.withLockedValue { settings in
            settings.nextTaskIdentifier += 1
            let identifier = settings.nextTaskIdentifier
            let isInvalidated = settings.isInvalidated
            // Nothing to hold or call on every task unless the session waits for connectivity.
            let connectivity =
                settings.connectivityPolicy == .startsImmediately ? nil : (policy: settings.connectivityPolicy, manager: settings.reachabilityManager)
            let task = Kind(
                identifier: identifier,
                request: request,
                delegate: delegate,
                bodyDestination: bodyDestination,
                // Strong: the task holds the manager until it completes anyway (see below).
                tell: { task, event in self.tell(event, about: task) }
            )
            // The body holds the task and the manager until it has run, so a completion is never lost.
            task.install {
                let outcome: ExecutionOutcome
                if isInvalidated {
                    outcome = ExecutionOutcome(request: request, error: .sessionInvalidated)
                } else if let connectivity, let offline = await connectivity.policy.wait(for: connectivity.manager) {
                    outcome = ExecutionOutcome(request: request, error: offline)
                } else {
                    outcome = await self.executor(for: request, taskHooks: taskHooks).run(task)
                }
                // The completion hook in force when the task completes.
                let hooks = self.settings.withLockedValue { $0.hooks.overridden(by: taskHooks) }
                self.complete(task, outcome: outcome, serialization: serialization, hooks: hooks, onQueue: completesOnQueue, handler: completionHandler)
            }
            settings.tasks[identifier] = task
            return task
        }
        delegate.bind(to: task)
        return task
    }

    /// The loop that runs a task of `request` with `taskHooks`, made with the session's hooks,
    /// extension points and settings as they are when the task starts, not when it was made:
    /// AFNetworking reads a session block when its event comes, so a block set after a task is
    /// made and before it is resumed is the one called (its own test does this with the redirect
    /// block).
    private func executor(for request: Request, taskHooks: SessionHooks) -> RequestExecutor {
        self.settings.withLockedValue { settings in
            RequestExecutor(
                transport: self.transport,
                hooks: settings.hooks.overridden(by: taskHooks),
                features: TaskFeatures(
                    request: request,
                    session: settings.features,
                    taskHooks: taskHooks,
                    sessionHooks: settings.hooks,
                    monitors: settings.eventMonitors
                ),
                maximumRedirects: settings.maximumRedirects,
                credential: settings.credential,
                serverTrustEvaluator: settings.serverTrustEvaluator,
                clientIdentityProvider: taskHooks.didReceiveClientCertificateChallenge.map(ClientIdentityProvider.init)
                    ?? settings.clientIdentityProvider,
                logger: settings.logger
            )
        }
    }

    /// The upload progress of `task`, whose cancel, pause and resume drive the task.
    public func uploadProgress(for task: SessionTask) -> Progress { task.delegate.uploadProgress(of: task) }

    /// The download progress of `task`, whose cancel, pause and resume drive the task.
    public func downloadProgress(for task: SessionTask) -> Progress { task.delegate.downloadProgress(of: task) }

    /// Invalidates the manager: later tasks fail with ``LupineError/sessionInvalidated``; with
    /// `cancelingTasks`, running ones are cancelled, and without, they run to completion. The
    /// background revalidations of `stale-while-revalidate` are cancelled either way. A
    /// transport the manager created is shut down once its last task has completed.
    public func invalidateSession(cancelingTasks: Bool) {
        let (running, background) = self.settings.withLockedValue { settings in
            settings.isInvalidated = true
            return (Array(settings.tasks.values), settings.features.backgroundTasks)
        }
        // Background revalidations serve no caller: they end with the session either way.
        background.cancelAll()
        if cancelingTasks {
            for task in running {
                task.cancel()
            }
        }
        self.shutDownTransportIfDone()
        NotificationCenter.default.post(name: .lupineSessionDidInvalidate, object: self)
        for monitor in self.eventMonitors {
            monitor.sessionDidInvalidate(self)
        }
    }
}
