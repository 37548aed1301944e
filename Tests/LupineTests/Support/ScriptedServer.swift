import Foundation
import LupineTestSupport
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// A TCP listener on a kernel-chosen loopback port whose connections a test drives byte by byte:
/// it reads what the client sent and writes exactly the bytes it chooses, when it chooses, so a
/// test can send what no HTTP server would (a head alone, a head and a broken body in one write,
/// a reset) and wait for the client at any point between.
final class ScriptedServer: Sendable {
    /// `http://127.0.0.1:PORT`.
    let url: URL
    private let accepted: Arrivals<ScriptedConnection>

    private init(url: URL, accepted: Arrivals<ScriptedConnection>) {
        self.url = url
        self.accepted = accepted
    }

    /// Runs `body` with a started server, closing it afterwards whether `body` succeeds or throws.
    static func with<Result>(_ body: (ScriptedServer) async throws -> Result) async throws -> Result {
        let accepted = Arrivals<ScriptedConnection>()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let connection = ScriptedConnection(channel: channel)
                    try channel.pipeline.syncOperations.addHandler(ScriptedConnection.Inbound(received: connection.received))
                    accepted.add(connection)
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port, let url = URL(string: "http://127.0.0.1:\(port)") else {
            try? await channel.close()
            throw ScriptedServerError(description: "the listener has no port")
        }
        return try await running {
            try await body(ScriptedServer(url: url, accepted: accepted))
        } thenAlways: {
            try? await channel.close()
            accepted.finish()
        }
    }

    /// The next connection a client opened, in order.
    func nextConnection() async throws -> ScriptedConnection {
        guard let connection = await self.accepted.next() else {
            throw ScriptedServerError(description: "the listener closed")
        }
        return connection
    }
}

/// One accepted connection of a ``ScriptedServer``. One test task reads from it at a time.
final class ScriptedConnection: Sendable {
    let channel: any Channel
    /// The socket's reads, ended when the client closes.
    fileprivate let received = Arrivals<ByteBuffer>()
    /// What was received and not yet taken.
    private let pending = NIOLockedValueBox(ByteBuffer())

    fileprivate init(channel: any Channel) {
        self.channel = channel
    }

    /// The next request head the client sent (up to its blank line), or `nil` when the client
    /// closed first. Request bodies are read with ``readBytes(_:)``.
    func readRequestHead() async -> String? {
        while true {
            let view = self.pending.withLockedValue { Array($0.readableBytesView) }
            if let end = Self.blankLine(in: view) {
                self.pending.withLockedValue { $0.moveReaderIndex(forwardBy: end) }
                return String(decoding: view[..<end], as: UTF8.self)
            }
            guard await self.receiveMore() else { return nil }
        }
    }

    /// The next `count` bytes the client sent, or fewer when it closed first.
    func readBytes(_ count: Int) async -> [UInt8] {
        while self.pending.withLockedValue({ $0.readableBytes }) < count {
            guard await self.receiveMore() else { break }
        }
        return self.pending.withLockedValue { $0.readBytes(length: min(count, $0.readableBytes)) ?? [] }
    }

    /// Waits until the client closes the connection (what it sends meanwhile is dropped).
    func waitForClientClose() async {
        while await self.receiveMore() {
            self.pending.withLockedValue { $0.clear() }
        }
    }

    /// Writes and flushes `text`.
    func write(_ text: String) async throws {
        try await self.write(ByteBuffer(string: text))
    }

    /// Writes and flushes `bytes`.
    func write(_ bytes: ByteBuffer) async throws {
        try await self.channel.writeAndFlush(bytes)
    }

    /// Closes the connection, unless the client already has; with `reset`, by a TCP reset
    /// (`SO_LINGER` 0) instead of a FIN.
    func close(reset: Bool = false) async throws {
        do {
            if reset, let socket = self.channel as? any SocketOptionProvider {
                try await socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
            }
            try await self.channel.close()
        } catch ChannelError.alreadyClosed, ChannelError.ioOnClosedChannel {
            return
        }
    }

    private func receiveMore() async -> Bool {
        guard var more = await self.received.next() else { return false }
        self.pending.withLockedValue { $0.writeBuffer(&more) }
        return true
    }

    private static func blankLine(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index..<(index + 4)].elementsEqual("\r\n\r\n".utf8) {
            return index + 4
        }
        return nil
    }

    /// Hands what the socket reads to the connection, and its end when the client closes.
    final class Inbound: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        private let received: Arrivals<ByteBuffer>

        init(received: Arrivals<ByteBuffer>) {
            self.received = received
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            self.received.add(Self.unwrapInboundIn(data))
        }

        func channelInactive(context: ChannelHandlerContext) {
            self.received.finish()
            context.fireChannelInactive()
        }
    }
}

/// Items handed from an event loop to one waiting task, in order, until finished.
final class Arrivals<Item: Sendable>: Sendable {
    private struct State {
        var items: [Item] = []
        var finished = false
        var waiter: CheckedContinuation<Item?, Never>?
    }

    private let state = NIOLockedValueBox(State())

    func add(_ item: Item) {
        let waiter: CheckedContinuation<Item?, Never>? = self.state.withLockedValue { state in
            guard let waiter = state.waiter else {
                state.items.append(item)
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: item)
    }

    func finish() {
        let waiter: CheckedContinuation<Item?, Never>? = self.state.withLockedValue { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next item, or `nil` once finished and all were taken.
    func next() async -> Item? {
        await withCheckedContinuation { continuation in
            let ready: Item?? = self.state.withLockedValue { state in
                if !state.items.isEmpty { return .some(state.items.removeFirst()) }
                if state.finished { return .some(nil) }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// A ``ScriptedServer`` could not do what the test asked.
struct ScriptedServerError: Error, CustomStringConvertible {
    let description: String
}
