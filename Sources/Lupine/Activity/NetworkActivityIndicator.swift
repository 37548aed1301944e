import NIOConcurrencyHelpers
import Foundation

/// One "network busy" signal for everything a program sends, as AFNetworking's
/// `AFNetworkActivityIndicatorManager`: it shows once work has lasted ``activationDelay``
/// (1 s by default, so quick requests never flicker it) and hides ``completionDelay`` (0.17 s)
/// after the last work ends, so back-to-back requests keep it shown.
///
/// It counts tasks from their events: add it to a session's ``SessionManager/eventMonitors``, or
/// have it observe every session's task notifications with ``observeTaskNotifications(from:)``
/// (``shared`` does, as AFNetworking's `sharedManager`). A task counts from resume to suspend
/// or completion, once however often it is resumed; ``increment()`` and ``decrement()`` count
/// work that is not a task. Visibility is reported only when it changes, to the action set
/// with ``setNetworkingActivityAction(_:)`` and to each ``visibilityUpdates()`` stream, in order.
///
/// The delays run on the clock given to ``init(activationDelay:completionDelay:clock:)``
/// (`ContinuousClock` by default); the decisions are a pure state machine's, which never reads a clock.
/// Thread-safe: every call may come from any thread.
public final class NetworkActivityIndicator: Sendable {
    private struct State {
        var machine: ActivityStateMachine
        /// The tasks counted now, kept alive so their identifiers cannot be reused meanwhile.
        var countedTasks: [ObjectIdentifier: SessionTask] = [:]
        var timers: [UInt64: Task<Void, Never>] = [:]
        var action: (@Sendable (Bool) -> Void)?
        var streams: [UInt64: AsyncStream<Bool>.Continuation] = [:]
        var nextStream: UInt64 = 0
        /// Visibility changes not yet delivered, oldest first, and whether a thread is delivering them.
        var undelivered: [Bool] = []
        var isDelivering = false
        var observations = TaskNotificationObservation()
    }

    /// How many changes a ``visibilityUpdates()`` stream keeps for a reader that has fallen behind.
    public static let bufferedUpdates = 64

    /// The indicator of every session in the process: it observes the task notifications of
    /// `NotificationCenter.default`, with the default delays on `ContinuousClock`.
    public static let shared: NetworkActivityIndicator = {
        let indicator = NetworkActivityIndicator()
        indicator.observeTaskNotifications()
        return indicator
    }()

    private let state: NIOLockedValueBox<State>
    /// A sleep until `delay` from now (measured when this is called) on the indicator's clock.
    private let sleeper: @Sendable (Duration) -> @Sendable () async throws -> Void

    /// An indicator with AFNetworking's delays (by default), timed by `clock`.
    ///
    /// - Parameters:
    ///   - activationDelay: how long work must last before the indicator shows; a negative
    ///     value counts as zero, and zero shows it at once.
    ///   - completionDelay: how long the indicator stays after the last work ends; a negative
    ///     value counts as zero, and zero hides it at once.
    ///   - clock: the clock the delays run on (a manual one in tests).
    public init<C: Clock<Duration>>(
        activationDelay: Duration = .seconds(1),
        completionDelay: Duration = .milliseconds(170),
        clock: C
    ) {
        self.state = NIOLockedValueBox(State(machine: ActivityStateMachine(activationDelay: activationDelay, completionDelay: completionDelay)))
        self.sleeper = { delay in
            // A caller's delay past what a clock's sleep takes (about 68 years) is capped there.
            let deadline = clock.now.advanced(by: delay.sleepable)
            return { try await clock.sleep(until: deadline, tolerance: nil) }
        }
    }

    /// An indicator with AFNetworking's delays (by default) on `ContinuousClock`.
    public convenience init(activationDelay: Duration = .seconds(1), completionDelay: Duration = .milliseconds(170)) {
        self.init(activationDelay: activationDelay, completionDelay: completionDelay, clock: ContinuousClock())
    }

    deinit {
        self.state.withLockedValue { state in
            state.timers.values.forEach { $0.cancel() }
            state.streams.values.forEach { $0.finish() }
            state.observations.stop()
        }
    }

    /// How long work must last before the indicator shows (1 s by default; never negative).
    /// A change applies from the next delay started.
    public var activationDelay: Duration {
        get { self.state.withLockedValue { $0.machine.activationDelay } }
        set { self.state.withLockedValue { $0.machine.activationDelay = newValue } }
    }

    /// How long the indicator stays after the last work ends (0.17 s by default; never
    /// negative). A change applies from the next delay started.
    public var completionDelay: Duration {
        get { self.state.withLockedValue { $0.machine.completionDelay } }
        set { self.state.withLockedValue { $0.machine.completionDelay = newValue } }
    }

    /// Whether the indicator is shown now.
    public var isNetworkActivityIndicatorVisible: Bool { self.state.withLockedValue { $0.machine.isVisible } }

    /// Tasks and other work under way now.
    public var activityCount: Int { self.state.withLockedValue { $0.machine.count } }

    /// Sets what runs on each change of visibility (`true` when the indicator shows), replacing
    /// the previous action; `nil` removes it. It runs on the thread whose event changed the
    /// visibility, one change at a time, in order, with no lock of the indicator held.
    public func setNetworkingActivityAction(_ action: (@Sendable (_ visible: Bool) -> Void)?) {
        self.state.withLockedValue { $0.action = action }
    }

    /// Each change of visibility from now on, in order, until the indicator is released. A
    /// reader that falls more than ``bufferedUpdates`` changes behind loses the oldest.
    public func visibilityUpdates() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingNewest(Self.bufferedUpdates))
        let id = self.state.withLockedValue { state in
            defer { state.nextStream &+= 1 }
            state.streams[state.nextStream] = continuation
            return state.nextStream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLockedValue { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    /// Counts work that is not a session task as under way (AFNetworking's `incrementActivityCount`).
    public func increment() {
        self.change { $0.machine.increment() }
    }

    /// Counts such work as ended (AFNetworking's `decrementActivityCount`); the count never goes below zero.
    public func decrement() {
        self.change { $0.machine.decrement() }
    }

    /// Counts `task` as under way, once: it is a task with a URL, as AFNetworking asks.
    func taskStarted(_ task: SessionTask) {
        self.change { state in
            guard state.countedTasks.updateValue(task, forKey: ObjectIdentifier(task)) == nil else { return [] }
            return state.machine.increment()
        }
    }

    /// Counts `task` as no longer under way, when it was counted.
    func taskStopped(_ task: SessionTask) {
        self.change { state in
            guard state.countedTasks.removeValue(forKey: ObjectIdentifier(task)) != nil else { return [] }
            return state.machine.decrement()
        }
    }

    /// Sets `observations` under the lock and stops the ones it replaces.
    func replaceObservations(with observations: TaskNotificationObservation) {
        self.state.withLockedValue { state in
            state.observations.stop()
            state.observations = observations
        }
    }

    /// Feeds the machine under the lock, performs its timer actions there, then delivers the
    /// visibility changes outside it.
    private func change(_ step: (inout State) -> [ActivityStateMachine.Action]) {
        let mustDeliver = self.state.withLockedValue { state in
            for action in step(&state) {
                self.perform(action, in: &state)
            }
            guard !state.undelivered.isEmpty, !state.isDelivering else { return false }
            state.isDelivering = true
            return true
        }
        if mustDeliver {
            self.deliver()
        }
    }

    private func perform(_ action: ActivityStateMachine.Action, in state: inout State) {
        switch action {
        case .startTimer(let id, let delay):
            let sleep = self.sleeper(delay)
            state.timers[id] = Task { [weak self] in
                // A clock whose sleep fails for another reason than cancellation fires early
                // rather than leaving the indicator stuck.
                try? await sleep()
                guard !Task.isCancelled else { return }
                self?.change { state in
                    state.timers[id] = nil
                    return state.machine.timerFired(id)
                }
            }
        case .cancelTimer(let id):
            state.timers.removeValue(forKey: id)?.cancel()
        case .reportVisible(let visible):
            state.undelivered.append(visible)
        }
    }

    /// Hands the undelivered changes, oldest first, to the action and the streams, until none
    /// is left; one thread at a time does it (a change made meanwhile, also by the action
    /// itself, is delivered by this loop).
    private func deliver() {
        while let (visible, action, streams) = self.state.withLockedValue({ state -> (Bool, (@Sendable (Bool) -> Void)?, [AsyncStream<Bool>.Continuation])? in
            guard !state.undelivered.isEmpty else {
                state.isDelivering = false
                return nil
            }
            return (state.undelivered.removeFirst(), state.action, Array(state.streams.values))
        }) {
            action?(visible)
            for stream in streams {
                stream.yield(visible)
            }
        }
    }
}
