extension DecodingError {
    /// What went wrong and where, in words: "missing key "id" at items[2]".
    var reason: String {
        switch self {
        case .keyNotFound(let key, let context):
            return "missing key \"\(key.stringValue)\" at \(Self.location(context))"
        case .typeMismatch(let type, let context):
            return "expected \(type) at \(Self.location(context)): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "expected \(type) but found null at \(Self.location(context))"
        case .dataCorrupted(let context):
            return "\(context.debugDescription) at \(Self.location(context))"
        @unknown default:
            return String(describing: self)
        }
    }

    private static func location(_ context: Context) -> String {
        guard !context.codingPath.isEmpty else { return "the top level" }
        return context.codingPath.enumerated().map { index, key in
            if let position = key.intValue { return "[\(position)]" }
            return index == 0 ? key.stringValue : ".\(key.stringValue)"
        }.joined()
    }
}
