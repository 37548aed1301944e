import Foundation

/// Unbuffered writes to standard output, so lines reach a pipe at once.
enum StandardOutput {
    static func writeLine(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
