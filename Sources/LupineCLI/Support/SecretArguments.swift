/// Hides secrets given on the command line from other users of the machine, as curl does: the
/// process's own argument strings (what `ps` and `/proc/PID/cmdline` show) are overwritten once
/// they have been parsed.
enum SecretArguments {
    /// The options whose value is a secret.
    static let options: Set<String> = ["--proxy-user", "--pass", "--auth"]

    /// Overwrites, in place, the value of each option in ``options`` with `*`.
    static func hide() {
        let count = Int(CommandLine.argc)
        var index = 1
        while index < count {
            guard let argument = CommandLine.unsafeArgv[index] else { break }
            let text = String(cString: argument)
            if Self.options.contains(text), index + 1 < count, let value = CommandLine.unsafeArgv[index + 1] {
                Self.overwrite(value, from: 0)
                index += 2
                continue
            }
            if let equals = text.firstIndex(of: "="), Self.options.contains(String(text[..<equals])) {
                Self.overwrite(argument, from: text.utf8.distance(from: text.utf8.startIndex, to: equals) + 1)
            }
            index += 1
        }
    }

    private static func overwrite(_ text: UnsafeMutablePointer<CChar>, from offset: Int) {
        var position = offset
        while text[position] != 0 {
            text[position] = CChar(UInt8(ascii: "*"))
            position += 1
        }
    }
}
