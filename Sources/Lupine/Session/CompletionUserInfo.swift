/// The user info of a complete notification: the ``LupineNotificationKey`` keys that have a value.
///
/// It is made from a dictionary built once per set of keys, whose values are then replaced by
/// position: a key of an `[AnyHashable: Any]` costs a hash of its long string, and every probe a
/// dynamic cast, which added up to microseconds per task when the dictionary was built anew.
enum CompletionUserInfo {
    /// The keys, in the order of the bits of a template's number.
    private enum Key: Int, CaseIterable {
        case responseData, responseSerializer, serializedResponse, error, metrics, fileURL

        /// The key's bit in a template's number.
        var bit: Int { 1 << self.rawValue }

        var name: String {
            switch self {
            case .responseData: return LupineNotificationKey.responseData
            case .responseSerializer: return LupineNotificationKey.responseSerializer
            case .serializedResponse: return LupineNotificationKey.serializedResponse
            case .error: return LupineNotificationKey.error
            case .metrics: return LupineNotificationKey.metrics
            case .fileURL: return LupineNotificationKey.fileURL
            }
        }
    }

    /// A dictionary holding some of the keys, and where each of them sits in it.
    private struct Template {
        var dictionary: [AnyHashable: Any] = [:]
        var positions: [Dictionary<AnyHashable, Any>.Index?] = Array(repeating: nil, count: Key.allCases.count)

        init(keys: Int) {
            for key in Key.allCases where keys & key.bit != 0 {
                self.dictionary[key.name] = ()
            }
            for key in Key.allCases {
                self.positions[key.rawValue] = self.dictionary.index(forKey: key.name)
            }
        }

        /// Sets the value of `key`, which the template holds exactly when `value` is not `nil`.
        mutating func set(_ key: Key, to value: Any?) {
            if let value, let position = self.positions[key.rawValue] {
                self.dictionary.values[position] = value
            }
        }
    }

    /// One template for each set of keys, numbered by their bits. Never mutated after it is made.
    nonisolated(unsafe) private static let templates = (0..<(1 << Key.allCases.count)).map { Template(keys: $0) }

    /// The user info for `completion`, serialized by `serializer`.
    static func of(_ completion: TaskCompletion, serializer: any ResponseSerializer) -> [AnyHashable: Any] {
        let keys =
            Key.responseData.bit | Key.responseSerializer.bit
            | (completion.serializedObject == nil ? 0 : Key.serializedResponse.bit)
            | (completion.error == nil ? 0 : Key.error.bit)
            | (completion.metrics == nil ? 0 : Key.metrics.bit)
            | (completion.fileURL == nil ? 0 : Key.fileURL.bit)
        var template = Self.templates[keys]
        template.set(.responseData, to: completion.responseData)
        template.set(.responseSerializer, to: serializer)
        template.set(.serializedResponse, to: completion.serializedObject)
        template.set(.error, to: completion.error)
        template.set(.metrics, to: completion.metrics)
        template.set(.fileURL, to: completion.fileURL)
        return template.dictionary
    }
}
