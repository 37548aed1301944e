/// The session's view of the network, as AFNetworking's `AFURLSessionManager.reachabilityManager`.
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
