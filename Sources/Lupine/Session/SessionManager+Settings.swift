import Foundation
import Logging
import Tracing

extension SessionManager {
    /// Everything about a manager that changes after it is made: its configuration (queues,
    /// serializer, hooks, monitors, policies, extension points), its registry of running tasks
    /// and whether it is invalidated. One value under one lock (the manager's `settings`), so a
    /// task reads a consistent configuration when it is made, started and completed.
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
}
