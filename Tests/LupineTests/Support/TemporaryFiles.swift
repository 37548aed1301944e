import Foundation

/// A new, empty folder under the system's temporary folder, for one test's files.
func temporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appending(path: "lupine-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A file named `name` holding `contents`, in a new temporary folder.
func temporaryFile(_ contents: [UInt8], name: String) throws -> URL {
    let url = try temporaryFolder().appending(path: name)
    try Data(contents).write(to: url)
    return url
}
