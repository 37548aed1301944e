import Foundation
import Lupine

/// What `--continue` saw of a server that would not send the rest of a file Lupine holds no
/// record for: perhaps a `416` first, then the whole body, which the run refuses (nothing says
/// the file's bytes are stale, as `curl -C -` reasons).
struct ContinueRefusal {
    /// The `416 Range Not Satisfiable` that came first, if one did.
    var rangeRefusal: ResponseHead?
    /// The head of the whole body the run refused.
    var wholeBody: ResponseHead?

    /// Whether the refused body is as long as the `held` bytes: a server that ignores `Range`
    /// and sends as many bytes as the file holds has nothing more to give, as curl and wget say.
    func meansComplete(held: Int) -> Bool {
        guard let wholeBody, self.rangeRefusal == nil, wholeBody.statusCode == 200 else { return false }
        return wholeBody.headers.first(name: "Content-Encoding") == nil
            && wholeBody.headers.first(name: "Content-Length").flatMap(Int.init) == held
    }

    /// The line that says why `file`, holding `held` bytes, is left as it was.
    func reason(file: URL, held: Int) -> String {
        let advice = "\(LocalPath.shown(file)) is left as it was; download without --continue to replace it"
        guard let refusal = self.rangeRefusal else {
            return "the server answered with the whole body, not the rest from byte \(held), and nothing says the bytes "
                + "already there are stale: \(advice)"
        }
        let contentRange = refusal.headers.first(name: "Content-Range")
        if let contentRange, contentRange.hasPrefix("bytes */"), let length = Int(contentRange.dropFirst(8)), length < held {
            return "the server has \(length) bytes for this URL, fewer than the \(held) already in the file, so they are not "
                + "its start (416, then the whole body): \(advice)"
        }
        return "the server refused the range from byte \(held) (416\(contentRange.map { ", Content-Range: \($0)" } ?? "")), "
            + "then sent the whole body: \(advice)"
    }
}
