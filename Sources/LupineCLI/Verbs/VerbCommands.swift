import ArgumentParser
import Lupine

/// `lupine get URL [items]`.
struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "get", abstract: "Send a GET request.")
    @OptionGroup var request: RequestOptions
    func run() async throws { try await HTTPExchange(method: .GET, options: self.request).run() }
}

/// `lupine head URL [items]`.
struct HeadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "head", abstract: "Send a HEAD request.")
    @OptionGroup var request: RequestOptions
    func run() async throws { try await HTTPExchange(method: .HEAD, options: self.request).run() }
}

/// `lupine post URL [items]`.
struct PostCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "post", abstract: "Send a POST request.")
    @OptionGroup var request: RequestOptions
    func run() async throws { try await HTTPExchange(method: .POST, options: self.request).run() }
}

/// `lupine put URL [items]`.
struct PutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "put", abstract: "Send a PUT request.")
    @OptionGroup var request: RequestOptions
    func run() async throws { try await HTTPExchange(method: .PUT, options: self.request).run() }
}

/// `lupine patch URL [items]`.
struct PatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "patch", abstract: "Send a PATCH request.")
    @OptionGroup var request: RequestOptions
    func run() async throws { try await HTTPExchange(method: .PATCH, options: self.request).run() }
}

/// `lupine delete URL [items]`.
struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Send a DELETE request.")
    @OptionGroup var request: RequestOptions
    func run() async throws { try await HTTPExchange(method: .DELETE, options: self.request).run() }
}
