import LupineTestServer
import OpenAPIRuntime

/// Bodies of the test server's byte pattern (``DeterministicBytes``), made and checked a chunk
/// at a time, so that a body of any size never sits in memory on the test's side either.
enum DeterministicBody {
    /// A request body of `length` bytes of the pattern in chunks of `chunkSize`, produced as the
    /// transport reads it; with `declaresLength`, its length is known (a `Content-Length`),
    /// otherwise it is sent chunked.
    static func upload(length: Int, chunkSize: Int = 64 * 1024, declaresLength: Bool = true, iterationBehavior: IterationBehavior = .single)
        -> HTTPBody
    {
        HTTPBody(
            Chunks(length: length, chunkSize: chunkSize),
            length: declaresLength ? .known(Int64(length)) : .unknown,
            iterationBehavior: iterationBehavior
        )
    }

    /// Reads `body` to its end and returns how many bytes came, and whether they were the
    /// pattern from its start.
    static func check(_ body: HTTPBody) async throws -> (count: Int, matches: Bool) {
        var count = 0
        var matches = true
        for try await chunk in body {
            var index = chunk.startIndex
            DeterministicBytes.forEachRun(in: count..<(count + chunk.count)) { run in
                let end = index + run.count
                matches = matches && chunk[index..<end].elementsEqual(run)
                index = end
            }
            count += chunk.count
        }
        return (count, matches)
    }

    /// The pattern's bytes in chunks.
    struct Chunks: AsyncSequence, Sendable {
        let length: Int
        let chunkSize: Int

        func makeAsyncIterator() -> Iterator {
            Iterator(length: self.length, chunkSize: self.chunkSize)
        }

        /// Makes each chunk when it is asked for.
        struct Iterator: AsyncIteratorProtocol {
            let length: Int
            let chunkSize: Int
            var offset = 0

            mutating func next() async -> HTTPBody.ByteChunk? {
                guard self.offset < self.length else { return nil }
                let end = Swift.min(self.offset + self.chunkSize, self.length)
                defer { self.offset = end }
                return DeterministicBytes.bytes(in: self.offset..<end)[...]
            }
        }
    }
}
