import FuzzSupport

/// Fuzzes the `lupine` command line's request-item parser (`RequestItem`, httpie's syntax:
/// `a==b`, `a=b`, `a:=json`, `Header:value`, `Header;`, `field@path`).
///
/// `LupineCLI` is an executable target, which no other package can import, so this target
/// compiles the parser's own source file (`RequestItem.swift`, a symbolic link to
/// Sources/LupineCLI/Verbs/RequestItem.swift; it needs only Foundation) into itself.
///
/// Properties:
/// - the split is at the earliest separator: the name never contains `=`, `:`, `@` or `;`,
///   and is never empty;
/// - nothing is lost: name, separator and value give the argument back (a header's value
///   trimmed of surrounding whitespace, as documented);
/// - `Header;` is an empty header only with nothing after the `;`.
/// The entry point SwiftPM links as `main` (see `runLibFuzzer`).
@_cdecl("FuzzRequestItem_main")
public func fuzzRequestItemMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data!, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let argument = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let item = RequestItem(argument) else {
        if let first = firstSeparatorIndex(argument), first > argument.startIndex {
            let separatorIsSemicolon = argument.unicodeScalars[first] == ";"
            require(separatorIsSemicolon && !argument.unicodeScalars[argument.unicodeScalars.index(after: first)...].isEmpty,
                    "\(argument.debugDescription) refused although its name is not empty")
        }
        return 0
    }
    let (name, rebuilt): (String, String)
    switch item {
    case .query(let n, let v): (name, rebuilt) = (n, n + "==" + v)
    case .field(let n, let v): (name, rebuilt) = (n, n + "=" + v)
    case .jsonField(let n, let json): (name, rebuilt) = (n, n + ":=" + json)
    case .file(let n, let path): (name, rebuilt) = (n, n + "@" + path)
    case .emptyHeader(let n): (name, rebuilt) = (n, n + ";")
    case .header(let n, let v):
        (name, rebuilt) = (n, n + ":" + v)
        let rest = String(String.UnicodeScalarView(argument.unicodeScalars.dropFirst(n.unicodeScalars.count + 1)))
        require(v == rest.trimmingCharacters(in: .whitespaces), "header value \(v.debugDescription) from \(argument.debugDescription)")
    }
    require(!name.isEmpty, "empty name from \(argument.debugDescription)")
    require(!name.unicodeScalars.contains { "=:@;".unicodeScalars.contains($0) }, "name \(name.debugDescription) holds a separator (from \(argument.debugDescription))")
    if case .header = item {} else {
        require(rebuilt == argument, "\(argument.debugDescription) read as \(item)")
    }
    return 0
}

/// Where the first of the separators' first characters is, by Unicode scalar: the parser's
/// `range(of:)` finds a `;` even where a prepended mark (U+0600…U+0605) joins it into one
/// Character with what precedes it.
private func firstSeparatorIndex(_ argument: String) -> String.Index? {
    argument.unicodeScalars.firstIndex { "=:@;".unicodeScalars.contains($0) }
}
