@testable import LupineTestServer

/// The parts the test server's parser reads from `body`, or `nil` when it refuses it. Kept in
/// a file of its own: the test server's `MultipartFormData` is named like Lupine's, and the
/// module name `LupineTestServer` is shadowed by its type of that name, so it cannot qualify it.
func serverMultipartParts(body: [UInt8], boundary: String) -> [(name: String, filename: String?, content: [UInt8])]? {
    MultipartFormData(body: body, boundary: boundary)?.parts.map { ($0.name, $0.filename, $0.content) }
}
