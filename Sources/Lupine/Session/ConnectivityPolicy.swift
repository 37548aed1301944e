/// What a task started while the session's ``SessionManager/reachabilityManager`` says
/// ``NetworkReachabilityManager/Status/notReachable`` does (URLSession's `waitsForConnectivity`).
public enum ConnectivityPolicy: Sendable, Hashable {
    /// The task starts at once, whatever the reachability status (the default): with no network
    /// it fails as its connection does.
    case startsImmediately
    /// The task waits up to `timeout` for the network to come back, then fails with
    /// ``LupineError/notConnected(waited:)`` instead of spending its connect timeout. Only a
    /// manager that is monitoring says not reachable: start it with
    /// ``NetworkReachabilityManager/startMonitoring(onStatusChange:)``.
    case waitsForConnectivity(timeout: Duration)
}

extension ConnectivityPolicy {
    /// Waits as the policy says while `manager` reports not reachable; the error the task fails
    /// with, or `nil` to go on.
    func wait(for manager: NetworkReachabilityManager) async -> LupineError? {
        guard case .waitsForConnectivity(let timeout) = self, manager.status == .notReachable else { return nil }
        let updates = manager.statusUpdates
        let cameBack = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await status in updates where status != .notReachable {
                    return true
                }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: timeout.sleepable)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if Task.isCancelled { return .cancelled }
        return cameBack ? nil : .notConnected(waited: timeout)
    }
}
