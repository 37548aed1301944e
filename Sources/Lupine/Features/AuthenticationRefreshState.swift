/// The state an ``AuthenticationInterceptor`` keeps under its lock: the credential, the refresh in
/// flight and who waits for it. A value with transitions that return what to do; the interceptor
/// performs it outside the lock (resuming a waiter, starting a refresh).
///
/// A waiter is a slot first (``makeSlot()``), then enters (``enter(_:need:waiter:interval:maximumAttempts:now:)``);
/// a cancellation may come at either moment (``cancel(_:)``), so none is ever left waiting. Generic
/// over the waiter so it can be tested by value.
struct AuthenticationRefreshState<Credential: AuthenticationCredential, Waiter: Sendable>: Sendable {
    /// What a waiter needs.
    enum Need: Equatable {
        /// The current credential, after the refresh in flight if any.
        case current
        /// A refresh of the credential of `generation`, unless it was replaced since.
        case refresh(generation: Int)
    }

    /// What the interceptor does after ``enter(_:need:waiter:interval:maximumAttempts:now:)``.
    enum EnterAction {
        /// Resume `waiter` with `result` now.
        case resume(Waiter, Result<Credential, LupineError>)
        /// Nothing: the waiter waits for the refresh in flight.
        case wait
        /// Start refresh `id` of `credential`; the waiter waits for it.
        case startRefresh(id: Int, credential: Credential)
    }

    private enum Slot {
        case created
        case waiting(Waiter)
        case cancelled
    }

    /// The credential applied to requests.
    private(set) var credential: Credential?
    /// Counts the changes of ``credential``, so a waiter can tell whether it changed.
    private(set) var generation = 0
    /// The refresh in flight.
    private(set) var refreshing: Int?
    private var nextID = 0
    private var slots: [Int: Slot] = [:]
    private var refreshStarts: [ContinuousClock.Instant] = []

    init(credential: Credential?) {
        self.credential = credential
    }

    /// How many waiters wait for the refresh in flight.
    var waitingCount: Int {
        self.slots.values.count { if case .waiting = $0 { true } else { false } }
    }

    /// Replaces the credential.
    mutating func setCredential(_ credential: Credential?) {
        self.credential = credential
        self.generation += 1
    }

    /// A new waiter's identifier.
    mutating func makeSlot() -> Int {
        let id = self.nextID
        self.nextID += 1
        self.slots[id] = .created
        return id
    }

    /// Waiter `id` with `waiter` asks for `need`, at `now`; a refresh may start only when fewer than
    /// `maximumAttempts` started within `interval` before `now`.
    mutating func enter(
        _ id: Int,
        need: Need,
        waiter: Waiter,
        interval: Duration,
        maximumAttempts: Int,
        now: ContinuousClock.Instant
    ) -> EnterAction {
        guard case .created = self.slots.removeValue(forKey: id) else {
            return .resume(waiter, .failure(.cancelled))
        }
        if self.refreshing != nil {
            self.slots[id] = .waiting(waiter)
            return .wait
        }
        guard let credential = self.credential else {
            return .resume(waiter, .failure(.authenticationFailed(.missingCredential)))
        }
        guard case .refresh(let generation) = need, generation == self.generation else {
            return .resume(waiter, .success(credential))
        }
        self.refreshStarts.removeAll { $0.duration(to: now) >= interval }
        guard self.refreshStarts.count < maximumAttempts else {
            let excessive = LupineError.authenticationFailed(.excessiveRefresh(count: self.refreshStarts.count, interval: interval))
            return .resume(waiter, .failure(excessive))
        }
        self.refreshStarts.append(now)
        let refreshID = self.nextID
        self.nextID += 1
        self.refreshing = refreshID
        self.slots[id] = .waiting(waiter)
        return .startRefresh(id: refreshID, credential: credential)
    }

    /// Waiter `id`'s task was cancelled: its waiter to resume with the cancellation, if it waits.
    mutating func cancel(_ id: Int) -> Waiter? {
        switch self.slots[id] {
        case .created:
            self.slots[id] = .cancelled
            return nil
        case .waiting(let waiter):
            self.slots[id] = nil
            return waiter
        case .cancelled, nil:
            return nil
        }
    }

    /// Refresh `id` ended with `result`: the waiters to resume with it (none when it is not the
    /// refresh in flight, as after its timeout).
    mutating func finish(refresh id: Int, with result: Result<Credential, LupineError>) -> [Waiter] {
        guard self.refreshing == id else { return [] }
        self.refreshing = nil
        if case .success(let credential) = result {
            self.setCredential(credential)
        }
        var waiters: [Waiter] = []
        for (slotID, slot) in self.slots {
            guard case .waiting(let waiter) = slot else { continue }
            waiters.append(waiter)
            self.slots[slotID] = nil
        }
        return waiters
    }
}
