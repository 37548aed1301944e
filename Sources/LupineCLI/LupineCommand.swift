import ArgumentParser

/// The `lupine` command-line tool.
@main
struct LupineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lupine",
        abstract: "An HTTP client and test toolkit built on the Lupine library.",
        subcommands: [
            GetCommand.self, HeadCommand.self, PostCommand.self, PutCommand.self, PatchCommand.self, DeleteCommand.self,
            DownloadCommand.self, ServeCommand.self, DemoCommand.self,
        ]
    )
}
