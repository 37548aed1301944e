/// How far a coded response body (gzip, deflate, br, zstd) may inflate before it is abandoned as a decompression
/// bomb.
///
/// Both limits count the whole body received so far, as AsyncHTTPClient's ratio mode does: the
/// inflated bytes are compared with all the compressed bytes that produced them, not with the
/// last chunk. The ratio is checked only once the body has inflated past ``ratioGrace``, so a small
/// but highly repetitive body (a JSON list of alike records easily compresses 250 times) is never
/// refused for its ratio, while a bomb (gzip of zeros inflates about 1,000 times) is stopped
/// after some 8 compressed kilobytes.
public struct DecompressionLimit: Sendable, Hashable {
    /// The most bytes one response body may inflate to; `nil` sets no bound on the size.
    public var maximumSize: Int?
    /// The most inflated bytes per compressed byte received; `nil` sets no bound on the ratio.
    public var maximumRatio: Int?
    /// How many inflated bytes a body may reach before its ratio is checked.
    public var ratioGrace: Int

    /// Creates a limit. The defaults accept any body up to 8 MiB inflated whatever its ratio (a
    /// zero-filled file of a few MiB is legitimate), and beyond that any body whose ratio stays
    /// within 500 (anything real that is not mostly one repeated byte); a bomb is refused as soon
    /// as it inflates past the grace.
    public init(maximumSize: Int? = nil, maximumRatio: Int? = 500, ratioGrace: Int = 8 * 1024 * 1024) {
        self.maximumSize = maximumSize.map { max(0, $0) }
        self.maximumRatio = maximumRatio.map { max(1, $0) }
        self.ratioGrace = max(0, ratioGrace)
    }

    /// The default limit: ratio 500 once past 8 MiB inflated, no bound on the size.
    public static let `default` = DecompressionLimit()

    /// No limit at all: a body inflates as far as its sender makes it.
    public static let none = DecompressionLimit(maximumSize: nil, maximumRatio: nil)

    /// Whether `inflated` bytes produced from `compressed` bytes go beyond this limit.
    func isExceeded(inflated: Int, compressed: Int) -> Bool {
        if let maximumSize, inflated > maximumSize {
            return true
        }
        guard let maximumRatio, inflated > self.ratioGrace else { return false }
        let (allowed, overflow) = compressed.multipliedReportingOverflow(by: maximumRatio)
        return !overflow && inflated > allowed
    }
}
