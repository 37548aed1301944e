import Foundation
import NIOConcurrencyHelpers

/// A manager's status and everyone who hears of its changes: the status-change closure and the
/// notification (on the manager's serial queue, in order), and the `AsyncStream`s (at once).
/// Only a status different from the last one is reported, so each change is reported once.
final class ReachabilityHub: Sendable {
    private struct State {
        var status = NetworkReachabilityManager.Status.unknown
        var onStatusChange: (@Sendable (NetworkReachabilityManager.Status) -> Void)?
        var streams: [UUID: AsyncStream<NetworkReachabilityManager.Status>.Continuation] = [:]
        var isFinished = false
        var owner = Owner()
        /// When the monitor found the last change.
        var changedAt: ContinuousClock.Instant?
    }

    /// The manager, for the notification's object: weak, so a monitor never keeps it alive.
    ///
    /// `@unchecked Sendable`: a weak reference to a `Sendable` class, only set and read inside
    /// `state`'s lock.
    private struct Owner: @unchecked Sendable {
        weak var manager: NetworkReachabilityManager?
    }

    private let state = NIOLockedValueBox(State())
    let queue = DispatchQueue(label: "com.lupine.reachability")

    /// Names the manager the notifications come from.
    func attach(to manager: NetworkReachabilityManager) {
        self.state.withLockedValue { $0.owner = Owner(manager: manager) }
    }

    var status: NetworkReachabilityManager.Status { self.state.withLockedValue { $0.status } }

    /// When the monitor found the last change of ``status``; `nil` before the first.
    var changedAt: ContinuousClock.Instant? { self.state.withLockedValue { $0.changedAt } }

    /// How many streams are listening.
    var streamCount: Int { self.state.withLockedValue { $0.streams.count } }

    func setOnStatusChange(_ handler: (@Sendable (NetworkReachabilityManager.Status) -> Void)?) {
        self.state.withLockedValue { $0.onStatusChange = handler }
    }

    /// A stream that yields the current status, then each change, until the manager is released.
    func makeStream() -> AsyncStream<NetworkReachabilityManager.Status> {
        let (stream, continuation) = AsyncStream.makeStream(of: NetworkReachabilityManager.Status.self, bufferingPolicy: .unbounded)
        let key = UUID()
        let current: NetworkReachabilityManager.Status? = self.state.withLockedValue { state in
            guard !state.isFinished else { return nil }
            state.streams[key] = continuation
            // Yielded under the lock, so no change can come in between and be missed or reordered.
            continuation.yield(state.status)
            return state.status
        }
        if current == nil {
            continuation.finish()
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLockedValue { _ = $0.streams.removeValue(forKey: key) }
        }
        return stream
    }

    /// Records `status`; when it differs from the last, tells everyone.
    func publish(_ status: NetworkReachabilityManager.Status) {
        let listeners = self.state.withLockedValue { state -> (handler: (@Sendable (NetworkReachabilityManager.Status) -> Void)?, owner: Owner)? in
            guard state.status != status else { return nil }
            state.status = status
            state.changedAt = .now
            for continuation in state.streams.values {
                continuation.yield(status)
            }
            return (state.onStatusChange, state.owner)
        }
        guard let (handler, owner) = listeners else { return }
        self.queue.async {
            handler?(status)
            guard let manager = owner.manager else { return }
            NotificationCenter.default.post(
                name: .lupineReachabilityDidChange,
                object: manager,
                userInfo: [lupineReachabilityNotificationStatusItem: status]
            )
        }
    }

    /// Ends every stream (the manager is going away).
    func finish() {
        let streams = self.state.withLockedValue { state in
            state.isFinished = true
            defer { state.streams = [:] }
            return Array(state.streams.values)
        }
        for continuation in streams {
            continuation.finish()
        }
    }
}
