import NIOConcurrencyHelpers
import NIOCore

/// One attempt of a request on its way through the pool: waiting for a connection, then started
/// on one. Whichever thread hands it its connection starts it there (a released connection's
/// event loop), so the caller waits once, for the response head, however long the queue; and a
/// cancel reaches it at either stage.
final class PendingRequest: Sendable {
    typealias Started = (connection: HTTPConnection, id: HTTPClientRequestHandler.RequestID)

    private enum Stage {
        case waiting
        case started(Started)
        case cancelled
    }

    /// The response head, or why there is none (the pool's failure included).
    let head = AwaitedValue<Result<TransportResponse, any Error>>()
    /// For a caller that writes the body itself (`nil` for one that only awaits the head): the
    /// connection and ID once started, and the request's end, however it ends.
    let upload: (started: AwaitedValue<Result<Started, any Error>>, ended: AwaitedValue<Void>)?
    private let stage = NIOLockedValueBox(Stage.waiting)
    private let request: PreparedRequest
    private let cancellation: TransportCancellation

    init(_ request: PreparedRequest, cancellation: TransportCancellation, handsOverItsConnection: Bool) {
        self.request = request
        self.cancellation = cancellation
        self.upload = handsOverItsConnection ? (AwaitedValue(), AwaitedValue()) : nil
    }

    /// What the pool delivers: a connection to start on, or why there is none. Returns whether
    /// it took the connection: one that comes after a cancel is declined, so a request cancelled
    /// while it waited is never sent.
    func deliver(_ result: Result<HTTPConnection, any Error>) -> Bool {
        switch result {
        case .success(let connection):
            let cancelled = self.stage.withLockedValue { stage in
                if case .cancelled = stage { return true }
                return false
            }
            guard !cancelled else {
                self.fail(TransportError.cancelled)
                return false
            }
            self.start(on: connection)
            return true
        case .failure(let error):
            self.fail(error)
            return false
        }
    }

    private func fail(_ error: any Error) {
        self.upload?.started.deliver(.failure(error))
        self.head.deliver(.failure(error))
    }

    /// Cancels the request: on its connection once started (the head then fails), else marks it
    /// so that a connection handed over later is declined (or, handed over meanwhile, started
    /// and at once cancelled). Returns whether it was still waiting, when the caller must also
    /// take it out of the pool's queue.
    func cancel() -> Bool {
        let started: Started? = self.stage.withLockedValue { stage in
            switch stage {
            case .started(let started):
                return started
            case .waiting, .cancelled:
                stage = .cancelled
                return nil
            }
        }
        guard let started else { return true }
        started.connection.cancel(started.id)
        return false
    }

    private func start(on connection: HTTPConnection) {
        let id = connection.execute(self.request, into: self.head, ended: self.upload?.ended)
        let cancelledMeanwhile = self.stage.withLockedValue { stage in
            if case .cancelled = stage {
                return true
            }
            stage = .started((connection, id))
            return false
        }
        if cancelledMeanwhile {
            connection.cancel(id)
        }
        // After `execute`, so the cancel reaches the event loop after the request it cancels.
        self.cancellation.whenCancelled { connection.cancel(id) }
        self.upload?.started.deliver(.success((connection, id)))
    }
}
