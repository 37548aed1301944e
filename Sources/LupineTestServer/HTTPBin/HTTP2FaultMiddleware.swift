import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2

/// Injects the ``LupineTestServer/HTTP2Faults`` on an HTTP/2 listener: counts the streams of each
/// connection and, on the ones the faults name, writes a GOAWAY or a `RST_STREAM` on the
/// connection itself.
struct HTTP2FaultMiddleware: RouterMiddleware {
    typealias Context = TestServerRequestContext

    let faults: LupineTestServer.HTTP2Faults
    /// Streams seen per connection, until it closes.
    private let streams = NIOLockedValueBox<[ObjectIdentifier: Int]>([:])

    init(faults: LupineTestServer.HTTP2Faults) {
        self.faults = faults
    }

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard self.faults.goAwayEvery != nil || self.faults.refuseEvery != nil, let connection = context.channel.parent else {
            return try await next(request, context)
        }
        let streamID = try await context.channel.getOption(HTTP2StreamChannelOptions.streamID).get()
        let number = self.count(on: connection)
        if let every = self.faults.refuseEvery, number % every == 0 {
            try await connection.writeAndFlush(HTTP2Frame(streamID: streamID, payload: .rstStream(.refusedStream)))
            return Response(status: .serviceUnavailable)
        }
        if let every = self.faults.goAwayEvery, number % every == 0 {
            let code = HTTP2ErrorCode(networkCode: Int(self.faults.goAwayErrorCode))
            try await connection.writeAndFlush(
                HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: streamID, errorCode: code, opaqueData: nil))
            )
            if code != .noError {
                try await connection.close()
                return Response(status: .serviceUnavailable)
            }
        }
        return try await next(request, context)
    }

    /// This stream's number on `connection`, from 1.
    private func count(on connection: any Channel) -> Int {
        let key = ObjectIdentifier(connection)
        let (number, isFirst) = self.streams.withLockedValue { streams in
            let number = (streams[key] ?? 0) + 1
            streams[key] = number
            return (number, number == 1)
        }
        if isFirst {
            let streams = self.streams
            connection.closeFuture.whenComplete { _ in
                streams.withLockedValue { $0[key] = nil }
            }
        }
        return number
    }
}
