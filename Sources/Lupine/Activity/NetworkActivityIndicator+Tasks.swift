import Foundation

/// The indicator counts a session's tasks as one of its event monitors.
extension NetworkActivityIndicator: EventMonitor {
    public func taskDidResume(_ task: SessionTask) {
        self.taskStarted(task)
    }

    public func taskDidSuspend(_ task: SessionTask) {
        self.taskStopped(task)
    }

    public func taskDidComplete(_ task: SessionTask, with completion: TaskCompletion) {
        self.taskStopped(task)
    }
}

extension NetworkActivityIndicator {
    /// Counts the tasks of every session from the resume, suspend and complete notifications
    /// posted to `center`, as AFNetworking's indicator observes its task notifications; a
    /// notification whose object is not a ``SessionTask`` (it has no request URL) is ignored.
    /// Observing a second center stops observing the first; the observation ends when the
    /// indicator is released. A task both observed here and reported as an event monitor still
    /// counts once.
    public func observeTaskNotifications(from center: NotificationCenter = .default) {
        let observe = { (name: Notification.Name, counts: @escaping @Sendable (NetworkActivityIndicator, SessionTask) -> Void) in
            center.addObserver(forName: name, object: nil, queue: nil) { [weak self] notification in
                guard let self, let task = notification.object as? SessionTask else { return }
                counts(self, task)
            }
        }
        self.replaceObservations(
            with: TaskNotificationObservation(
                center: center,
                tokens: [
                    observe(.lupineTaskDidResume) { $0.taskStarted($1) },
                    observe(.lupineTaskDidSuspend) { $0.taskStopped($1) },
                    observe(.lupineTaskDidComplete) { $0.taskStopped($1) },
                ]))
    }
}

/// The observers an indicator registered with a notification center.
///
/// `@unchecked Sendable`: the tokens are opaque handles that are only handed back to their
/// center's `removeObserver(_:)`, which is thread-safe; the indicator keeps this value in its
/// lock and changes it only there.
struct TaskNotificationObservation: @unchecked Sendable {
    private var center: NotificationCenter?
    private var tokens: [any NSObjectProtocol]

    init(center: NotificationCenter? = nil, tokens: [any NSObjectProtocol] = []) {
        self.center = center
        self.tokens = tokens
    }

    /// Removes the observers; observing nothing afterwards.
    mutating func stop() {
        for token in self.tokens {
            self.center?.removeObserver(token)
        }
        self.tokens = []
        self.center = nil
    }
}
