import Foundation
import Lupine

/// Where each part of an exchange goes. `--print` chooses parts for standard output (by default
/// the response head and body on a terminal, the body alone otherwise); `-v` adds the request and
/// response heads on standard error, so the body on standard output stays exact.
struct ExchangeOutput: Sendable {
    /// Whether standard output is a terminal.
    let terminal: Bool
    private let selection: Set<Character>
    private let verbose: Bool

    init(options: RequestOptions, terminal: Bool) {
        self.terminal = terminal
        self.selection = Set(options.printSelection ?? (terminal ? "hb" : "b"))
        self.verbose = options.verbose
    }

    /// Whether the response body goes to standard output.
    var showsBody: Bool { self.selection.contains("b") }

    /// Shows the request's head (`H`) and body (`B`) as selected, and its head on stderr with `-v`.
    func show(_ request: Request) throws {
        let head = Array((ExchangeFormatter.requestHead(request) + "\n").utf8)
        if self.verbose {
            FileHandle.standardError.write(Data(head))
        }
        if self.selection.contains("H") {
            try StandardOutput.write(head)
        }
        if self.selection.contains("B"), case .bytes(let body) = request.body, !body.isEmpty {
            try StandardOutput.write(body)
            try StandardOutput.write(Array("\n\n".utf8))
        }
    }

    /// Shows the response head (`h`) as selected, and on stderr with `-v`.
    func show(_ head: ResponseHead) throws {
        let text = Array((ExchangeFormatter.responseHead(head) + "\n").utf8)
        if self.verbose {
            FileHandle.standardError.write(Data(text))
        }
        if self.selection.contains("h") {
            try StandardOutput.write(text)
        }
    }
}
