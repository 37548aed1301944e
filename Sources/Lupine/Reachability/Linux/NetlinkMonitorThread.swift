#if os(Linux)
import Foundation
import Glibc
import NIOConcurrencyHelpers

/// The Linux monitor: a thread of its own, blocked in `poll(2)` on an rtnetlink socket subscribed
/// to link, address and route changes, and on a pipe that wakes it to stop. Each batch of
/// changes makes it ask the kernel again (``RouteEvaluator``) and hand the status to `publish`,
/// which reports only changes. Nothing polls: without a change of the network the thread sleeps.
///
/// When a namespace is given (a test seam, never public), the thread enters that network
/// namespace first: `setns(2)` changes only the calling thread, so the sockets it opens see that
/// namespace's links and routes.
///
/// The thread closes its sockets and the pipe as it ends; the pipe is written to and closed only
/// under its lock, so a stop never writes into a descriptor number since reused.
final class NetlinkMonitorThread: Sendable {
    private let wake: NIOLockedValueBox<(read: Int32, write: Int32)?>
    private let finished = DispatchSemaphore(value: 0)
    private let threadID = NIOLockedValueBox<pthread_t?>(nil)
    private let sockets = NIOLockedValueBox<[Int32]>([])

    private init(wakeRead: Int32, wakeWrite: Int32) {
        self.wake = NIOLockedValueBox((wakeRead, wakeWrite))
    }

    private func closePipe() {
        self.wake.withLockedValue { ends in
            guard let (read, write) = ends else { return }
            close(read)
            close(write)
            ends = nil
        }
    }

    /// Starts monitoring `target`; returns once the sockets are open, before the first status.
    ///
    /// - Throws: ``LupineError/reachabilityFailed(_:)`` when the namespace cannot be entered or
    ///   a socket cannot be opened; no thread is left running then.
    static func start(
        _ target: ReachabilityTarget,
        namespacePath: String?,
        resolver: DomainResolver,
        publish: @escaping @Sendable (NetworkReachabilityManager.Status) -> Void
    ) throws(LupineError) -> NetlinkMonitorThread {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw .reachabilityFailed(.monitorUnavailable(reason: "a pipe cannot be opened: \(String(cString: strerror(errno)))"))
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        let monitor = NetlinkMonitorThread(wakeRead: ends[0], wakeWrite: ends[1])
        let ready = DispatchSemaphore(value: 0)
        let failure = NIOLockedValueBox<LupineError?>(nil)
        let thread = Thread {
            monitor.run(target, namespacePath: namespacePath, resolver: resolver, publish: publish) { error in
                failure.withLockedValue { $0 = error }
                ready.signal()
            }
        }
        thread.name = "com.lupine.reachability"
        thread.start()
        ready.wait()
        if let error = failure.withLockedValue({ $0 }) {
            monitor.finished.wait()
            throw error
        }
        return monitor
    }

    /// The descriptors the monitor holds open: its sockets and its pipe (for tests that check
    /// nothing leaks).
    var descriptors: [Int32] {
        self.sockets.withLockedValue { $0 } + (self.wake.withLockedValue { $0.map { [$0.read, $0.write] } } ?? [])
    }

    /// Wakes the thread to end, and waits until it has closed its descriptors, unless called on
    /// the thread itself (which cannot wait for itself, and ends right after).
    func stop() {
        self.wake.withLockedValue { ends in
            var byte: UInt8 = 1
            if let ends { _ = write(ends.write, &byte, 1) }
        }
        let onThread = self.threadID.withLockedValue { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
        if !onThread {
            self.finished.wait()
            self.finished.signal()
        }
    }

    private func run(
        _ target: ReachabilityTarget,
        namespacePath: String?,
        resolver: DomainResolver,
        publish: (NetworkReachabilityManager.Status) -> Void,
        started: (LupineError?) -> Void
    ) {
        self.threadID.withLockedValue { $0 = pthread_self() }
        defer {
            self.closePipe()
            self.finished.signal()
        }
        let events: NetlinkSocket
        let queries: NetlinkSocket
        do throws(LupineError) {
            if let namespacePath {
                try Self.enterNetworkNamespace(namespacePath)
            }
            events = try NetlinkSocket(groups: NetlinkSocket.changeGroups)
            queries = try NetlinkSocket(groups: 0)
        } catch {
            started(error)
            return
        }
        defer {
            events.close()
            queries.close()
            self.sockets.withLockedValue { $0 = [] }
        }
        self.sockets.withLockedValue { $0 = [events.descriptor, queries.descriptor] }
        started(nil)
        let evaluator = RouteEvaluator(socket: queries, resolver: resolver)
        publish(evaluator.status(of: target))
        while true {
            switch self.waitForChanges(on: events) {
            case .changed:
                publish(evaluator.status(of: target))
            case .stopped:
                return
            case .failed:
                // The kernel can no longer be heard: the status is not known any more.
                publish(.unknown)
                return
            }
        }
    }

    private enum Wake {
        case changed
        case stopped
        case failed
    }

    /// Sleeps until the network changes, the monitor is stopped, or the socket fails.
    private func waitForChanges(on events: NetlinkSocket) -> Wake {
        // The read end stays open until this thread closes it, as it ends.
        guard let wakeRead = self.wake.withLockedValue({ $0?.read }) else { return .stopped }
        var descriptors = [
            pollfd(fd: events.descriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            guard poll(&descriptors, 2, -1) >= 0 else {
                if errno == EINTR { continue }
                return .failed
            }
            if descriptors[1].revents != 0 {
                return .stopped
            }
            if descriptors[0].revents & Int16(POLLNVAL) != 0 {
                return .failed
            }
            // POLLERR is how a socket that lost events (ENOBUFS) shows it: the receive below
            // reports it as an overrun, and the kernel is asked again.
            // Take every queued message: one evaluation answers for the whole batch.
            var changed = false
            drain: while true {
                switch events.receive(waiting: false) {
                case .messages(let envelopes): changed = changed || !envelopes.isEmpty
                case .overrun: changed = true
                case .empty: break drain
                case .failed: return .failed
                }
            }
            if changed { return .changed }
        }
    }

    /// Moves the calling thread into the network namespace at `path` (`/run/netns/NAME`).
    static func enterNetworkNamespace(_ path: String) throws(LupineError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .reachabilityFailed(.monitorUnavailable(reason: "the network namespace \(path) cannot be opened: \(String(cString: strerror(errno)))"))
        }
        defer { close(descriptor) }
        // setns(2) is a GNU extension Glibc's module does not declare; CLONE_NEWNET is 0x40000000.
        typealias SetNamespace = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "setns"), unsafeBitCast(symbol, to: SetNamespace.self)(descriptor, 0x4000_0000) == 0 else {
            throw .reachabilityFailed(.monitorUnavailable(reason: "the network namespace \(path) cannot be entered: \(String(cString: strerror(errno)))"))
        }
    }
}
#endif
