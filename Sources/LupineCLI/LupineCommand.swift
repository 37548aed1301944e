import ArgumentParser
import Lupine
import Foundation

/// The `lupine` command-line tool.
@main
struct LupineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lupine",
        abstract: "An HTTP client and test toolkit built on the Lupine library.",
        subcommands: [
            GetCommand.self, HeadCommand.self, PostCommand.self, PutCommand.self, PatchCommand.self, DeleteCommand.self,
            DownloadCommand.self, ServeCommand.self, DemoCommand.self, ReachabilityCommand.self,
        ]
    )

    /// Runs the command line, after making sure descriptors 0, 1 and 2 are open (see
    /// ``StandardOutput/reserveStandardDescriptors()``) before anything else opens one, and that
    /// every argument is UTF-8 text.
    static func main() async {
        // A reader that goes away (`| head`, a closed stdout's pipe) fails the write with EPIPE,
        // which is reported, instead of killing the process without a word.
        signal(SIGPIPE, SIG_IGN)
        StandardOutput.reserveStandardDescriptors()
        if let position = Self.firstArgumentNotUTF8() {
            Self.exitForBadArguments(
                ValidationError(
                    "argument \(position) is not UTF-8 text; Lupine would read it with its bytes replaced and use another name, path or value than the one given"
                ))
        }
        let command: any ParsableCommand
        do {
            command = try Self.parseAsRoot(nil)
        } catch {
            Self.exitForBadArguments(error)
        }
        do {
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                var synchronous = command
                try synchronous.run()
            }
        } catch {
            Self.exit(withError: error)
        }
    }

    /// Ends the process for arguments that do not parse or validate: one line, `lupine: ` and the
    /// sentence naming the option and what is wrong with it, without the usage that follows it
    /// by default (`--help` has it). A request for help or the version is answered as usual.
    private static func exitForBadArguments(_ error: any Error) -> Never {
        let code = Self.exitCode(for: error)
        guard code != .success else { Self.exit(withError: error) }
        // The message without the usage or help lines that may follow it, its control characters
        // escaped: the sentence quotes what the user typed, line breaks and escapes included.
        var message = Self.message(for: error)
        for marker in ["\nUsage: ", "\nHelp: ", "\nSee '"] {
            if let start = message.range(of: marker) {
                message = String(message[..<start.lowerBound])
            }
        }
        let sentence = message.hasPrefix("Error: ") ? String(message.dropFirst(7)) : message
        StandardError.write("lupine: \(MessageText.oneLine(sentence.isEmpty ? "the arguments are not valid" : sentence))\n")
        Self.exit(withError: ExitCode(code.rawValue))
    }

    /// The position (from 1) of the first argument whose bytes are not UTF-8, which Swift's
    /// `CommandLine.arguments` would silently repair: a `--cache` or `-o` path would then name
    /// another file than the user's.
    private static func firstArgumentNotUTF8() -> Int? {
        (1..<Int(CommandLine.argc)).first { index in
            CommandLine.unsafeArgv[index].map { String(validatingCString: $0) == nil } ?? false
        }
    }
}
