import Foundation
import NIOCore
import NIOHTTP1

/// A request ready for a connection: its head with framing headers still to add, its body in a
/// form the connection can write, and the bookkeeping shared with the caller.
struct PreparedRequest: Sendable {
    enum Body: Sendable {
        case none
        case bytes(ByteBuffer)
        /// Chunks pushed by a writer task through ``HTTPConnection/bodyWriter(of:)``.
        case streamed(length: Int?)
    }

    var head: HTTPRequestHead
    let url: URL
    let body: Body
    let metrics: MetricsRecorder
    /// Told the total body bytes the socket has taken, after each write.
    let bodyProgress: (@Sendable (Int) -> Void)?
    let readTimeout: TimeAmount?
    /// When the whole request must be complete, and the limit it came from (for the error message).
    let deadline: (at: NIODeadline, timeout: TimeAmount)?
}
