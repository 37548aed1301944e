/// AFNetworkActivityIndicatorManager's state machine, pure: it counts activity, decides when
/// the indicator shows and hides, and says which timer to start or cancel. It never reads a
/// clock; ``NetworkActivityIndicator`` performs its actions.
///
/// not active → delaying start (the activation delay) → active → delaying end (the completion
/// delay) → not active. Activity that ends before the activation delay never shows; activity
/// that starts again during the completion delay keeps the indicator shown without a change.
/// A zero delay takes its step at once, without a timer.
struct ActivityStateMachine: Sendable {
    enum State: Equatable, Sendable {
        case notActive
        /// Waiting for the activation timer `timer`.
        case delayingStart(timer: UInt64)
        case active
        /// Waiting for the completion timer `timer`.
        case delayingEnd(timer: UInt64)
    }

    /// What the machine tells its shell to do, in order.
    enum Action: Equatable, Sendable {
        /// Start the timer `id`, due `after` from now; when it is due, feed ``timerFired(_:)``.
        case startTimer(id: UInt64, after: Duration)
        /// The timer `id` is no longer wanted.
        case cancelTimer(id: UInt64)
        /// Report a change of visibility.
        case reportVisible(Bool)
    }

    private(set) var state: State = .notActive
    /// Tasks and other work under way; never below zero.
    private(set) var count = 0
    /// Whether the indicator is shown now.
    private(set) var isVisible = false
    /// How long activity must last before the indicator shows; never negative.
    var activationDelay: Duration {
        didSet { self.activationDelay = max(.zero, self.activationDelay) }
    }
    /// How long the indicator stays after activity ends; never negative.
    var completionDelay: Duration {
        didSet { self.completionDelay = max(.zero, self.completionDelay) }
    }
    private var nextTimer: UInt64 = 0

    init(activationDelay: Duration, completionDelay: Duration) {
        self.activationDelay = max(.zero, activationDelay)
        self.completionDelay = max(.zero, completionDelay)
    }

    /// One more piece of work under way.
    mutating func increment() -> [Action] {
        self.count += 1
        return self.activityChanged()
    }

    /// One piece of work ended; at zero it stays zero.
    mutating func decrement() -> [Action] {
        self.count = max(0, self.count - 1)
        return self.activityChanged()
    }

    /// The timer `id` is due. A timer that was cancelled or belongs to an earlier state does nothing.
    mutating func timerFired(_ id: UInt64) -> [Action] {
        switch self.state {
        case .delayingStart(let timer) where timer == id:
            return self.count > 0 ? self.becomeActive() : self.becomeNotActive()
        case .delayingEnd(let timer) where timer == id:
            return self.becomeNotActive()
        default:
            return []
        }
    }

    /// AFNetworking's `updateCurrentStateForNetworkActivityChange`.
    private mutating func activityChanged() -> [Action] {
        switch self.state {
        case .notActive where self.count > 0:
            guard self.activationDelay > .zero else { return self.becomeActive() }
            let timer = self.makeTimer()
            self.state = .delayingStart(timer: timer)
            return [.startTimer(id: timer, after: self.activationDelay)]
        case .active where self.count == 0:
            guard self.completionDelay > .zero else { return self.becomeNotActive() }
            let timer = self.makeTimer()
            self.state = .delayingEnd(timer: timer)
            return [.startTimer(id: timer, after: self.completionDelay)]
        case .delayingEnd(let timer) where self.count > 0:
            return [.cancelTimer(id: timer)] + self.becomeActive()
        case .notActive, .delayingStart, .active, .delayingEnd:
            // Delaying start lets its timer decide.
            return []
        }
    }

    private mutating func becomeActive() -> [Action] {
        self.state = .active
        return self.setVisible(true)
    }

    private mutating func becomeNotActive() -> [Action] {
        self.state = .notActive
        return self.setVisible(false)
    }

    private mutating func setVisible(_ visible: Bool) -> [Action] {
        guard visible != self.isVisible else { return [] }
        self.isVisible = visible
        return [.reportVisible(visible)]
    }

    private mutating func makeTimer() -> UInt64 {
        defer { self.nextTimer &+= 1 }
        return self.nextTimer
    }
}
