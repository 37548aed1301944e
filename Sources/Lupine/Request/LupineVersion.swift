/// The version of the Lupine library, as it appears in the default `User-Agent` header.
public enum LupineVersion {
    /// The library's semantic version.
    public static let current = "0.1.0"
}
