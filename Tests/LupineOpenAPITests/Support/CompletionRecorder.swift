import Lupine
import Synchronization

/// Records how a session's tasks completed, as its event monitor.
final class CompletionRecorder: EventMonitor {
    private let errors = Mutex<[LupineError?]>([])

    /// How many tasks completed.
    var completed: Int {
        self.errors.withLock { $0.count }
    }

    /// How many tasks completed cancelled.
    var cancelled: Int {
        self.errors.withLock { errors in
            errors.count { error in
                if case .cancelled? = error { return true }
                return false
            }
        }
    }

    func taskDidComplete(_ task: SessionTask, with completion: TaskCompletion) {
        self.errors.withLock { $0.append(completion.error) }
    }
}
