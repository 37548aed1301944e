import Foundation

/// The entity tags listed in an `If-Match` or `If-None-Match` header, compared the way httpbin
/// does: quotes and the weak prefix `W/` are ignored.
struct EntityTagList {
    let tags: [String]

    /// Parses `header`; nil when the header is absent or lists nothing.
    init?(_ header: String?) {
        guard let header else { return nil }
        let tags = header.split(separator: ",").map { element -> String in
            var tag = element.trimmingCharacters(in: .whitespaces)
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        guard !tags.isEmpty else { return nil }
        self.tags = tags
    }

    /// Whether the list names `tag` (unquoted) or is `*`.
    func matches(_ tag: String) -> Bool {
        tags.contains(tag) || tags.contains("*")
    }
}
