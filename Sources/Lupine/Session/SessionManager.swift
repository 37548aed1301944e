import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
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

// MARK: - Completion

// How a task ends: its completion built and delivered (hooks, the complete notification,
// event monitors, then the handler on its queue), and the transport shut down once an
// invalidated manager has no task left.
extension SessionManager {
    func complete<Kind: SessionTask>(
        _ task: Kind,
        outcome: ExecutionOutcome,
        serialization: TaskSerialization,
        hooks: SessionHooks,
        onQueue: Bool,
        handler: @escaping @Sendable (Kind, TaskCompletion) -> Void
    ) {
        let serialized = outcome.error == nil ? serialization.serialize(outcome.head, outcome.data, outcome.request) : nil
        let error = outcome.error ?? serialized?.error
        let completion = TaskCompletion(
            response: outcome.head,
            responseData: outcome.data,
            serializedObject: serialized?.value,
            error: error,
            metrics: outcome.metrics,
            earlierMetrics: outcome.earlierMetrics,
            retryCount: outcome.retryCount,
            redirectChain: outcome.redirectChain,
            fileURL: outcome.fileURL,
            cacheStatus: outcome.cacheStatus
        )
        guard task.complete(metrics: outcome.metrics, error: error) else { return }
        task.didComplete()
        task.delegate.finish(succeeded: outcome.error == nil)
        let (queue, group, monitors) = self.settings.withLockedValue { settings in
            settings.tasks[task.taskIdentifier] = nil
            return (settings.completionQueue ?? self.defaultCompletionQueue, settings.completionGroup, settings.eventMonitors)
        }
        self.shutDownTransportIfDone()
        hooks.didComplete?(task, error)
        NotificationCenter.default.post(
            name: .lupineTaskDidComplete,
            object: task,
            userInfo: CompletionUserInfo.of(completion, serializer: serialization.serializer)
        )
        for monitor in monitors {
            monitor.taskDidComplete(task, with: completion)
        }
        if !onQueue {
            handler(task, completion)
        } else if let group {
            queue.async(group: group) { handler(task, completion) }
        } else {
            queue.async { handler(task, completion) }
        }
    }

    /// Shuts down the transport the manager owns, once the manager is invalidated and has no
    /// task left; only the first call that finds it so does it.
    func shutDownTransportIfDone() {
        guard self.ownsTransport else { return }
        let shutDownNow = self.settings.withLockedValue { settings in
            guard settings.isInvalidated, settings.tasks.isEmpty, !settings.isTransportShutDown else { return false }
            settings.isTransportShutDown = true
            return true
        }
        guard shutDownNow else { return }
        let transport = self.transport
        Task { await transport.shutdown() }
    }

    func tell(_ event: TaskEvent, about task: SessionTask) {
        let name: Notification.Name = event == .resumed ? .lupineTaskDidResume : .lupineTaskDidSuspend
        NotificationCenter.default.post(name: name, object: task)
        for monitor in self.eventMonitors {
            if event == .resumed {
                monitor.taskDidResume(task)
            } else {
                monitor.taskDidSuspend(task)
            }
        }
    }
}

// MARK: - Awaiting

extension SessionManager {
    /// Creates a task with `make` (given the completion handler to install), runs it and
    /// returns its completion and the task. Cancelling the calling Swift task cancels the task.
    ///
    /// The task runs in the calling Swift task (no thread hand-off); `task.cancel()` reaches the
    /// transport through the task's cancellation handle, which every `Transport` honours.
    nonisolated(nonsending) func runToCompletion<Kind: SessionTask>(
        _ make: (@escaping @Sendable (Kind, TaskCompletion) -> Void) -> Kind
    ) async -> (TaskCompletion, Kind) {
        let awaited = AwaitedValue<TaskCompletion>()
        let task = make { _, completion in awaited.deliver(completion) }
        let completion = await withTaskCancellationHandler {
            await task.resumeInline()
            return await awaited.value()
        } onCancel: {
            task.cancel()
        }
        return (completion, task)
    }

    /// Runs `request` as a data task in the calling Swift task, its body made into a value by
    /// `serialization`; returns its completion and the request it last sent.
    @usableFromInline
    nonisolated(nonsending) func runDataTask(_ request: Request, serialization: TaskSerialization) async -> (TaskCompletion, Request) {
        let (completion, task) = await self.runToCompletion { completionHandler in
            self.makeTask(
                DataTask.self,
                with: request,
                serialization: serialization,
                hooks: SessionHooks(),
                uploadProgress: nil,
                downloadProgress: nil,
                completesOnQueue: false,
                completionHandler: completionHandler
            )
        }
        return (completion, task.currentRequest)
    }
}

// MARK: - Pipeline extension points

// The session-wide extension points of the request pipeline (see ``RequestExecutor`` for where
// each is called). A request's own, when set, comes first (an interceptor) or instead (the
// handlers). Tasks take the values set when they are created.
extension SessionManager {
    /// The adapter and retrier every task's requests go through, after the request's own
    /// (``Request/interceptor``); `nil` for none.
    public var interceptor: (any RequestInterceptor)? {
        get { self.settings.withLockedValue { $0.features.interceptor } }
        set { self.settings.withLockedValue { $0.features.interceptor = newValue } }
    }

    /// Decides about redirects when a request has no ``Request/redirectHandler``; `nil` leaves
    /// it to the ``SessionHooks/willPerformRedirection`` hook, and without it every redirect is followed.
    public var redirectHandler: (any RedirectHandler)? {
        get { self.settings.withLockedValue { $0.features.redirectHandler } }
        set { self.settings.withLockedValue { $0.features.redirectHandler = newValue } }
    }

    /// Decides what ``urlCache`` keeps of each response, when a request has no
    /// ``Request/cachedResponseHandler``: AFNetworking's `dataTaskWillCacheResponse`.
    public var cachedResponseHandler: (any CachedResponseHandler)? {
        get { self.settings.withLockedValue { $0.features.cachedResponseHandler } }
        set { self.settings.withLockedValue { $0.features.cachedResponseHandler = newValue } }
    }

    /// Where responses are kept and answered from, by each request's ``Request/cachePolicy``.
    /// An ``HTTPCache`` follows RFC 9111 (validation, `Vary`, invalidation, streamed stores); any
    /// other ``ResponseCache`` answers as its protocol says. `nil` for no cache: the default,
    /// except for a manager made with a transport of its own (``init(configuration:)``), which
    /// gets an in-memory ``HTTPCache`` of 4 MiB, as URLSession's default configuration does on Linux.
    public var urlCache: (any ResponseCache)? {
        get { self.settings.withLockedValue { $0.features.urlCache } }
        set { self.settings.withLockedValue { $0.features.urlCache = newValue } }
    }

    /// The cookies sent with requests and set by responses, for requests whose
    /// ``Request/httpShouldHandleCookies`` is on; `nil` for none. Each manager starts with a
    /// memory jar of its own (AFNetworking handles cookies by default; a jar shared by every
    /// manager of a process would carry one server user's cookies into another's requests).
    public var cookieStorage: CookieStorage? {
        get { self.settings.withLockedValue { $0.features.cookieStorage } }
        set { self.settings.withLockedValue { $0.features.cookieStorage = newValue } }
    }
}

// MARK: - Observability

// Metrics and tracing, off by default. Each session has its own, so two sessions (or two
// tests running at once) never share a backend; ``SessionMetrics/bootstrapped`` and
// `InstrumentationSystem.tracer` are the process's bootstrapped ones. With neither set a task
// does no observing at all, and so it is when what is set records nothing (swift-metrics' NOOP
// factory, the no-op tracer: what the process's are before anything is bootstrapped). Tasks take
// the values set when they are created.
extension SessionManager {
    /// Where the session's metrics go (requests started and completed, errors, durations, time
    /// to first byte, bytes, retries, cache hits, connection pools: see ``SessionMetrics``);
    /// `nil`, the default, for none.
    public var metrics: SessionMetrics? {
        get { self.settings.withLockedValue { $0.metrics } }
        set {
            self.settings.withLockedValue { settings in
                settings.metrics = newValue
                settings.features.observability = SessionObservability(metrics: newValue, tracer: settings.tracer)
            }
        }
    }

    /// Makes a client span for each task, after OpenTelemetry's HTTP client conventions, child
    /// of the span current where the task was resumed, and writes its context into each attempt's
    /// header fields with the tracer's injector (`traceparent` for an OpenTelemetry tracer);
    /// retries and redirects are events of the span. `nil`, the default, for none.
    public var tracer: (any Tracer)? {
        get { self.settings.withLockedValue { $0.tracer } }
        set {
            self.settings.withLockedValue { settings in
                settings.tracer = newValue
                settings.features.observability = SessionObservability(metrics: settings.metrics, tracer: newValue)
            }
        }
    }
}

// MARK: - Reachability

// The session's view of the network, as AFNetworking's `AFURLSessionManager.reachabilityManager`.
extension SessionManager {
    /// The reachability manager of this session: ``NetworkReachabilityManager/shared`` unless set,
    /// and not monitoring until asked (``NetworkReachabilityManager/startMonitoring(onStatusChange:)``).
    /// ``connectivityPolicy`` consults it.
    public var reachabilityManager: NetworkReachabilityManager {
        get { self.settings.withLockedValue { $0.reachabilityManager } }
        set { self.settings.withLockedValue { $0.reachabilityManager = newValue } }
    }

    /// What tasks started while ``reachabilityManager`` says not reachable do (default
    /// ``ConnectivityPolicy/startsImmediately``). Tasks take the value set when they are created.
    public var connectivityPolicy: ConnectivityPolicy {
        get { self.settings.withLockedValue { $0.connectivityPolicy } }
        set { self.settings.withLockedValue { $0.connectivityPolicy = newValue } }
    }
}

// MARK: - Downloads

// Download tasks, as AFNetworking's `downloadTaskWithRequest:progress:destination:completionHandler:`
// and `downloadTaskWithResumeData:…`: the body streams to a temporary file in
// ``SessionManager/downloadDirectory``, then moves to the destination; the completion's
// ``TaskCompletion/fileURL`` says where it is. Without a destination the file stays in the
// temporary folder, and is the caller's to move or delete.
//
// A status outside 200..<300 fails the task with the error page in the validation error, and
// leaves no file. An interrupted transfer fails with ``LupineError/DownloadFailureReason/interrupted(resumeData:underlying:)``
// when it can be resumed.
extension SessionManager {
    /// A suspended task that downloads `request`'s response body to a file.
    public func downloadTask(
        with request: Request,
        progress: (@Sendable (Progress) -> Void)? = nil,
        destination: DownloadDestination? = nil,
        completionHandler: @escaping @Sendable (TaskCompletion) -> Void
    ) -> DownloadTask {
        self.makeDownloadTask(request, resumeData: nil, progress: progress, destination: destination, completesOnQueue: true) { _, completion in
            completionHandler(completion)
        }
    }

    /// A suspended task that continues the download `resumeData` describe, asking only for the
    /// missing bytes (`Range`) if the resource is unchanged (`If-Range`).
    ///
    /// - Throws: ``LupineError/downloadFailed(_:)`` when the resume data are corrupt, from
    ///   another version of Lupine, or name a partial file that is not a download task's file in
    ///   ``downloadDirectory`` (opaque bytes never get to write anywhere else).
    public func downloadTask(
        withResumeData resumeData: [UInt8],
        progress: (@Sendable (Progress) -> Void)? = nil,
        destination: DownloadDestination? = nil,
        completionHandler: @escaping @Sendable (TaskCompletion) -> Void
    ) throws(LupineError) -> DownloadTask {
        let resume = try ResumeData(encoded: resumeData)
        guard resume.isInside(self.downloadDirectory) else {
            throw .downloadFailed(.resumeDataCorrupt(reason: "the partial file \(resume.temporaryFileURL.path) is not a download file in \(self.downloadDirectory.path)"))
        }
        return self.resumedDownloadTask(Request(url: resume.url), resume, progress: progress, destination: destination, completionHandler: completionHandler)
    }

    /// A suspended task that continues `resumeData` with `request` (its header fields, such as
    /// credentials, travel with the ranged request).
    ///
    /// The partial file may be any file, such as one a previous run of a program left; it is
    /// never deleted, and nothing in it changes until the server answers with a body: a `206`
    /// continues it after `bytesReceived` (cutting anything past them), a `200` rewrites it whole.
    /// With `bytesReceived` 0 the whole body is asked for and written into the file in place.
    ///
    /// - Throws: ``LupineError/DownloadFailureReason/resumeDataForAnotherURL(expected:found:)``
    ///   when the resume data belong to another URL (neither the one the download started with
    ///   nor the one it was redirected to).
    public func downloadTask(
        with request: Request,
        resumeData: ResumeData,
        progress: (@Sendable (Progress) -> Void)? = nil,
        destination: DownloadDestination? = nil,
        completionHandler: @escaping @Sendable (TaskCompletion) -> Void
    ) throws(LupineError) -> DownloadTask {
        guard resumeData.belongs(to: request.url) else {
            throw .downloadFailed(.resumeDataForAnotherURL(expected: request.url, found: resumeData.url))
        }
        return self.resumedDownloadTask(request, resumeData, progress: progress, destination: destination, completionHandler: completionHandler)
    }

    /// Downloads `request`'s response body (continuing `resumeData` when given) and returns the
    /// response whose value is the file's final URL.
    public func download(
        _ request: Request,
        resumeData: ResumeData? = nil,
        destination: DownloadDestination? = nil
    ) async throws -> Response<URL> {
        if let resumeData, !resumeData.belongs(to: request.url) {
            throw LupineError.downloadFailed(.resumeDataForAnotherURL(expected: request.url, found: resumeData.url))
        }
        let (completion, _) = await self.runToCompletion { completionHandler in
            self.makeDownloadTask(request, resumeData: resumeData, progress: nil, destination: destination, completesOnQueue: false, completionHandler: completionHandler)
        }
        if let error = completion.error {
            throw error
        }
        guard let fileURL = completion.fileURL else {
            throw LupineError.responseSerializationFailed(.inputDataNilOrZeroLength)
        }
        return Response(
            request: request,
            head: completion.response,
            data: [],
            result: .success(fileURL),
            metrics: completion.metrics,
            redirectChain: completion.redirectChain
        )
    }

    private func resumedDownloadTask(
        _ request: Request,
        _ resumeData: ResumeData,
        progress: (@Sendable (Progress) -> Void)?,
        destination: DownloadDestination?,
        completionHandler: @escaping @Sendable (TaskCompletion) -> Void
    ) -> DownloadTask {
        self.makeDownloadTask(request, resumeData: resumeData, progress: progress, destination: destination, completesOnQueue: true) { _, completion in
            completionHandler(completion)
        }
    }

    private func makeDownloadTask(
        _ request: Request,
        resumeData: ResumeData?,
        progress: (@Sendable (Progress) -> Void)?,
        destination: DownloadDestination?,
        completesOnQueue: Bool,
        completionHandler: @escaping @Sendable (DownloadTask, TaskCompletion) -> Void
    ) -> DownloadTask {
        self.makeTask(
            DownloadTask.self,
            with: request,
            bodyDestination: .file(DownloadPlan(resumeData: resumeData, directory: self.downloadDirectory, destination: destination)),
            // The download checks the status itself (a 416 can complete a resumed file).
            serialization: TaskSerialization(HTTPResponseSerializer(acceptableStatusCodes: IndexSet(integersIn: 100..<600))),
            hooks: SessionHooks(),
            uploadProgress: nil,
            downloadProgress: progress,
            completesOnQueue: completesOnQueue,
            completionHandler: completionHandler
        )
    }
}

// MARK: - Uploads

// Upload tasks, as AFNetworking's `uploadTaskWithRequest:fromFile:`, `fromData:` and
// `uploadTaskWithStreamedRequest:`. Upload progress counts the bytes the socket has taken.
extension SessionManager {
    /// A suspended task that sends `request` with the file at `fileURL` as its body, read in chunks.
    public func uploadTask(
        with request: Request,
        fromFile fileURL: URL,
        progress: (@Sendable (Progress) -> Void)? = nil,
        completionHandler: @escaping @Sendable (TaskCompletion) -> Void
    ) -> UploadTask {
        var request = request
        request.body = .file(fileURL)
        return self.uploadTask(withStreamedRequest: request, progress: progress, completionHandler: completionHandler)
    }

    /// A suspended task that sends `request` with `bytes` as its body.
    public func uploadTask(
        with request: Request,
        from bytes: [UInt8],
        progress: (@Sendable (Progress) -> Void)? = nil,
        completionHandler: @escaping @Sendable (TaskCompletion) -> Void
    ) -> UploadTask {
        var request = request
        request.body = .bytes(bytes)
        return self.uploadTask(withStreamedRequest: request, progress: progress, completionHandler: completionHandler)
    }

    /// A suspended task that sends `request` with the body it already has: a stream, a multipart
    /// form, a file or bytes.
    public func uploadTask(
        withStreamedRequest request: Request,
        progress: (@Sendable (Progress) -> Void)? = nil,
        completionHandler: @escaping @Sendable (TaskCompletion) -> Void
    ) -> UploadTask {
        self.makeTask(
            UploadTask.self,
            with: request,
            serialization: TaskSerialization(self.responseSerializer),
            hooks: SessionHooks(),
            uploadProgress: progress,
            downloadProgress: nil,
            completesOnQueue: true
        ) { _, completion in
            completionHandler(completion)
        }
    }
}

// MARK: - Streams

// Streaming a response body as it arrives, keeping none of it: memory stays flat whatever the
// body's size (Alamofire's `DataStreamRequest`). For a program that pipes a body somewhere
// (a file, a socket, standard output) rather than serializing it.
extension SessionManager {
    /// Sends `request` and hands the final response (after redirects and authentication) to
    /// `receiveHead`, then each body chunk to `receiveChunk` as it arrives. The next chunk is read
    /// only once the handler returns, so a slow handler slows the socket instead of filling memory.
    ///
    /// Every status is delivered: no status or content-type validation happens, since no
    /// serializer sees the body. A handler that throws ends the task: a ``LupineError`` as
    /// itself, any other error as ``LupineError/ResponseSerializationFailureReason/handlerFailed(_:)``.
    /// Cancelling the calling Swift task cancels the request.
    ///
    /// - Returns: the response, with an empty ``Response/data``.
    /// - Throws: the ``LupineError`` the task failed with.
    public func stream(
        _ request: Request,
        receiveHead: @escaping @Sendable (ResponseHead) async throws -> Void = { _ in },
        receiveChunk: @escaping @Sendable (ByteBuffer) async throws -> Void
    ) async throws(LupineError) -> Response<Void> {
        let (completion, task) = await self.runToCompletion { completionHandler in
            self.makeTask(
                DataTask.self,
                with: request,
                bodyDestination: .handlers(head: receiveHead, chunk: receiveChunk),
                serialization: TaskSerialization(HTTPResponseSerializer(acceptableStatusCodes: IndexSet(integersIn: 0..<1000))),
                hooks: SessionHooks(),
                uploadProgress: nil,
                downloadProgress: nil,
                completesOnQueue: false,
                completionHandler: completionHandler
            )
        }
        if let error = completion.error {
            throw error
        }
        return Response(
            request: task.currentRequest,
            head: completion.response,
            data: [],
            result: .success(()),
            metrics: completion.metrics,
            redirectChain: completion.redirectChain
        )
    }
}
