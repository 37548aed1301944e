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

    /// Runs the command line, after making sure descriptors 0, 1 and 2 are open (see
    /// ``StandardOutput/reserveStandardDescriptors()``) before anything else opens one.
    static func main() async {
        StandardOutput.reserveStandardDescriptors()
        await Self.main(nil)
    }
}
