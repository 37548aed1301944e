/// The MIME type of a file name's extension, from a built-in table: Linux has no system-wide
/// type registry a library can rely on.
enum MIMEType {
    /// The type for `fileName`'s extension (case-insensitive), or `application/octet-stream`.
    static func forFileName(_ fileName: String) -> String {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return octetStream }
        let pathExtension = fileName[fileName.index(after: dot)...].lowercased()
        return byExtension[pathExtension] ?? octetStream
    }

    static let octetStream = "application/octet-stream"

    private static let byExtension: [String: String] = [
        // Text
        "txt": "text/plain", "text": "text/plain", "log": "text/plain", "md": "text/markdown",
        "html": "text/html", "htm": "text/html", "css": "text/css", "csv": "text/csv",
        "js": "text/javascript", "mjs": "text/javascript", "xml": "application/xml",
        "json": "application/json", "yaml": "application/yaml", "yml": "application/yaml",
        "plist": "application/x-plist", "swift": "text/x-swift",
        // Images
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "svg": "image/svg+xml", "ico": "image/vnd.microsoft.icon",
        "bmp": "image/bmp", "tif": "image/tiff", "tiff": "image/tiff", "heic": "image/heic",
        "avif": "image/avif",
        // Audio and video
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "wav": "audio/wav", "ogg": "audio/ogg",
        "flac": "audio/flac", "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime",
        "webm": "video/webm", "avi": "video/x-msvideo",
        // Documents and archives
        "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip",
        "tgz": "application/gzip", "tar": "application/x-tar", "bz2": "application/x-bzip2",
        "xz": "application/x-xz", "7z": "application/x-7z-compressed",
        "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "rtf": "application/rtf", "epub": "application/epub+zip",
        // Certificates and keys (AFNetworking's `.cer` type included)
        "cer": "application/x-x509-ca-cert", "crt": "application/x-x509-ca-cert",
        "der": "application/x-x509-ca-cert", "pem": "application/x-pem-file",
        "p12": "application/x-pkcs12", "pfx": "application/x-pkcs12",
        // Fonts and binaries
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
        "wasm": "application/wasm", "bin": "application/octet-stream",
    ]
}
