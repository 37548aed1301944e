import Foundation
import Lupine
import LupineImage
import LupineTestServer
import LupineTestSupport

/// Runs `body` with a fresh test server on loopback and a manager for it, stopping both after.
func withImageServer<Result>(_ body: (LupineTestServer, HTTPSessionManager) async throws -> Result) async throws -> Result {
    try await withTestServer { server in
        let manager = HTTPSessionManager(baseURL: server.baseURL, configuration: TransportConfiguration())
        return try await running {
            try await body(server, manager)
        } thenAlways: {
            manager.invalidateSession(cancelingTasks: true)
        }
    }
}

extension HTTPSessionManager {
    /// GETs `path` through `serializer`: the image, or the ``LupineError`` it failed with.
    func image(_ path: String, serializer: ImageResponseSerializer = ImageResponseSerializer()) async -> Swift.Result<Image, LupineError> {
        do {
            return .success(try await self.request(.GET, path, serializer: serializer).result.get())
        } catch let error as LupineError {
            return .failure(error)
        } catch {
            return .failure(.responseSerializationFailed(.handlerFailed(error)))
        }
    }

    /// The bytes of `path`, as sent.
    func bytes(_ path: String) async throws -> [UInt8] {
        try await self.request(.GET, path, serializer: HTTPResponseSerializer()).result.get()
    }
}

extension Swift.Result<Image, LupineError> {
    /// The error, if the request failed.
    var error: LupineError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

extension DecodedImage {
    /// The RGBA bytes of the pixel at (x, y).
    func pixel(_ x: Int, _ y: Int) -> [UInt8] {
        let start = (y * self.width + x) * 4
        return Array(self.rgba[start..<start + 4])
    }
}
