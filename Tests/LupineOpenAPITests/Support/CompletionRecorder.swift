import NIOConcurrencyHelpers
import Lupine

/// Records how a session's tasks completed, as its event monitor.
final class CompletionRecorder: EventMonitor {
    private let errors = NIOLockedValueBox<[LupineError?]>([])

    /// How many tasks completed.
    var completed: Int {
        self.errors.withLockedValue { $0.count }
    }

    /// How many tasks completed cancelled.
    var cancelled: Int {
        self.errors.withLockedValue { errors in
            errors.count { error in
                if case .cancelled? = error { return true }
                return false
            }
        }
    }

    func taskDidComplete(_ task: SessionTask, with completion: TaskCompletion) {
        self.errors.withLockedValue { $0.append(completion.error) }
    }
}
