import Foundation
import LupineTestServer
import LupineTestSupport

extension LupineTestServer {
    /// A raw client connected to the main listener.
    func connect() async throws -> RawHTTPClient {
        try await RawHTTPClient.connect(to: baseURL)
    }

    /// A raw client connected to the fault listener.
    func connectToFaults() async throws -> RawHTTPClient {
        try await RawHTTPClient.connect(to: faultsBaseURL)
    }
}
