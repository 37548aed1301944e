/// How many connections one pool of a ``NIOTransport`` holds: its open connections (idle or
/// carrying a request; not those still connecting) and, among them, the idle ones.
package struct ConnectionPoolStatistics: Sendable, Equatable {
    /// The pool's scheme, host and port (`http://127.0.0.1:8080`): pools that differ only in
    /// their trust setting are counted together.
    package var pool: String
    package var open: Int
    package var idle: Int

    package init(pool: String, open: Int, idle: Int) {
        self.pool = pool
        self.open = open
        self.idle = idle
    }
}

extension ConnectionPool {
    /// What each pool holds now, one entry per scheme, host and port with a connection or a waiting
    /// request, in the order of their names.
    func statistics() -> [ConnectionPoolStatistics] {
        let byPool: [String: ConnectionPoolStatistics] = self.state.withLockedValue { locked in
            var byPool: [String: ConnectionPoolStatistics] = [:]
            for (key, host) in locked.stateMachine.hosts {
                let name = key.description
                var entry = byPool[name] ?? ConnectionPoolStatistics(pool: name, open: 0, idle: 0)
                for connection in host.connections.values {
                    guard case .open(_, let carrying, _, _, _) = connection else { continue }
                    entry.open += 1
                    if carrying == 0 {
                        entry.idle += 1
                    }
                }
                byPool[name] = entry
            }
            return byPool
        }
        return byPool.values.sorted { $0.pool < $1.pool }
    }
}

extension NIOTransport {
    /// What each of the transport's connection pools holds now.
    package func connectionPoolStatistics() -> [ConnectionPoolStatistics] {
        self.pool.statistics()
    }
}
