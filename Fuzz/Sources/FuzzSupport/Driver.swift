import CLibFuzzer

/// The executable's entry point: hands the arguments and `target` to libFuzzer's driver.
///
/// SwiftPM links an executable target with `--defsym main=<Target>_main` (its entry point is
/// renamed so that tests could link it); with `-parse-as-library` there is no such function,
/// so each target defines `<Target>_main` with `@_cdecl` and calls this, rather than relying
/// on libFuzzer's own `main`.
public func runLibFuzzer(
    _ argc: CInt,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
    _ target: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt {
    var count = argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return LLVMFuzzerRunDriver(&count, &arguments, target)
}
